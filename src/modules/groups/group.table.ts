import type { Selectable } from 'kysely';

/** How enrollment changes reach the carrier for this group (docs/decisions.md "Benefit changes and carriers"). */
export const CONNECTION_METHODS = ['api', 'edi', 'manual'] as const;
export type ConnectionMethod = (typeof CONNECTION_METHODS)[number];

/** An employer's group (policy) with a carrier; the table is `carrier_groups`. */
export interface GroupTable {
  id: string;
  provider_id: string;
  employer_id: string;
  carrier_id: string;
  group_number: string;
  connection_method: ConnectionMethod;
  /** Metadata as JSON text. */
  metadata: string;
  created_at: string;
}

export type GroupRow = Selectable<GroupTable>;
