import type { Selectable } from 'kysely';

export const CARRIER_FILE_FORMATS = ['csv', 'x12_834'] as const;
export type CarrierFileFormat = (typeof CARRIER_FILE_FORMATS)[number];

/** A carrier's file compared with our coverage (the file itself is not kept). */
export interface CarrierFileTable {
  id: string;
  provider_id: string;
  employer_id: string;
  group_id: string;
  format: CarrierFileFormat;
  /** The day compared. */
  as_of: string;
  row_count: number;
  /** JSON text: RowProblem[] (carrier-census.ts). */
  row_problems: string;
  /** JSON text: CarrierFileDiscrepancy[] (carrier-file-rules.ts). */
  discrepancies: string;
  created_at: string;
}

export type CarrierFileRow = Selectable<CarrierFileTable>;

export const RESOLUTION_ACTIONS = ['resend', 'accept_carrier_value'] as const;
export type ResolutionAction = (typeof RESOLUTION_ACTIONS)[number];

/** What a resolution did: benefit changes recorded, demographics marked to be sent again, our member or dependent changed. */
export type ResolutionOutcome = 'benefit_change_recorded' | 'demographics_resend' | 'member_updated' | 'dependent_updated';

/** The audit of one discrepancy resolved (unique per carrier file and discrepancy index). */
export interface CarrierFileResolutionTable {
  id: string;
  provider_id: string;
  employer_id: string;
  carrier_file_id: string;
  /** The discrepancy's position in the carrier file's list. */
  discrepancy_index: number;
  action: ResolutionAction;
  outcome: ResolutionOutcome;
  note: string | null;
  /** JSON text: the ids of the benefit changes a resend recorded. */
  benefit_change_ids: string;
  /** JSON text: the fields an accepted value changed (first_name, last_name, dob). */
  fields_changed: string;
  /** The API key that resolved it. */
  resolved_by: string;
  resolved_at: string;
}
export type CarrierFileResolutionRow = Selectable<CarrierFileResolutionTable>;
