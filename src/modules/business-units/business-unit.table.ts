import type { Selectable, SqlBool } from 'kysely';

export interface BusinessUnitTable {
  id: string;
  provider_id: string;
  employer_id: string;
  legal_name: string;
  trade_name: string | null;
  federal_ein: string | null;
  /** At most one per employer. Read back as 0/1 on SQLite. */
  is_primary: SqlBool;
  /** Address as JSON text, or null. */
  address: string | null;
  phone_number: string | null;
  email: string | null;
  /** Metadata as JSON text. */
  metadata: string;
  created_at: string;
}

export type BusinessUnitRow = Selectable<BusinessUnitTable>;
