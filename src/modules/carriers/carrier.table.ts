import type { Selectable } from 'kysely';

/** Carriers are provider-wide: every employer of the provider may have groups with them. */
export interface CarrierTable {
  id: string;
  provider_id: string;
  legal_name: string;
  trade_name: string | null;
  logo_url: string | null;
  created_at: string;
}

export type CarrierRow = Selectable<CarrierTable>;
