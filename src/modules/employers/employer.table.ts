import type { Selectable } from 'kysely';

export interface EmployerTable {
  id: string;
  provider_id: string;
  legal_name: string;
  trade_name: string | null;
  federal_ein: string | null;
  email: string | null;
  phone_number: string | null;
  /** Address as JSON text. */
  address: string;
  external_id: string | null;
  /** Metadata as JSON text. */
  metadata: string;
  created_at: string;
}

export type EmployerRow = Selectable<EmployerTable>;
