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
