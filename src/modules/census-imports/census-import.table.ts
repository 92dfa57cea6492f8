import type { Selectable } from 'kysely';

/** checking -> checked | failed; checked -> applying -> applied (census-import-status.ts). */
export const CENSUS_IMPORT_STATUSES = ['checking', 'checked', 'failed', 'applying', 'applied'] as const;
export type CensusImportStatus = (typeof CENSUS_IMPORT_STATUSES)[number];
export const CENSUS_IMPORT_FORMATS = ['csv', 'json'] as const;
export type CensusImportFormat = (typeof CENSUS_IMPORT_FORMATS)[number];

/** What a row of the diff is: a file row that creates, updates, changes nothing or cannot be applied; a member the file left out. */
export const CENSUS_ROW_KINDS = ['create', 'update', 'unchanged', 'error', 'missing'] as const;
export type CensusRowKind = (typeof CENSUS_ROW_KINDS)[number];
export const CENSUS_ROW_TARGETS = ['member', 'dependent'] as const;
export type CensusRowTarget = (typeof CENSUS_ROW_TARGETS)[number];
/** What the apply did with a create or update row: applied, skipped for a record changed since the dry run, refused by the services. */
export const CENSUS_ROW_OUTCOMES = ['applied', 'conflict', 'failed'] as const;
export type CensusRowOutcome = (typeof CENSUS_ROW_OUTCOMES)[number];

export interface CensusImportTable {
  id: string;
  provider_id: string;
  employer_id: string;
  status: CensusImportStatus;
  format: CensusImportFormat;
  total_rows: number;
  processed_rows: number;
  applied_rows: number;
  /** Above this share of the employer's employed members terminated by the file, the apply needs confirm_terminations. */
  max_termination_share: number;
  /** The file (CSV text or the JSON rows) encrypted (it holds SSNs), until it is checked; null after. */
  content_encrypted: string | null;
  /** JSON text: CensusImportSummary (census-import.service.ts). */
  summary: string;
  /** Why the check failed (status failed). */
  failure: string | null;
  created_at: string;
  checked_at: string | null;
  applied_at: string | null;
}
export type CensusImportRow = Selectable<CensusImportTable>;

export interface CensusResultTable {
  /** Made from the import's id and the position, so that the keyset order (created_at, id) is the file's order. */
  id: string;
  census_import_id: string;
  /** Order in the diff: file rows by line, then the missing members. */
  position: number;
  /** The file line (header = line 1); null for a missing member. */
  line: number | null;
  kind: CensusRowKind;
  target: CensusRowTarget;
  employee_id: string | null;
  relationship: string | null;
  member_id: string | null;
  dependent_id: string | null;
  /** JSON text: FieldChange[] (census-rules.ts); the SSN only as "changed". */
  changes: string;
  /** JSON text: the member or dependent body the apply sends (create or update), without the SSN. */
  input: string;
  /** The SSN to write (encrypted), when the row sets one. */
  ssn_encrypted: string | null;
  /** JSON text: { errors: CensusProblem[], warnings: CensusWarning[] }. */
  problems: string;
  /** 1 when the row sets a termination_date the member did not have. */
  terminates: number;
  /** A fingerprint of the record as the dry run saw it (census-rules.ts recordVersion); null for creates. */
  seen_version: string | null;
  outcome: CensusRowOutcome | null;
  outcome_message: string | null;
  applied_at: string | null;
  created_at: string;
}
export type CensusResultRow = Selectable<CensusResultTable>;
