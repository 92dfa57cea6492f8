import type { Insertable, Selectable } from 'kysely';

export interface ProviderTable {
  id: string;
  name: string;
  created_at: string;
}

export const API_KEY_ROLES = ['admin', 'employer', 'read_only'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export interface ApiKeyTable {
  id: string;
  provider_id: string;
  role: ApiKeyRole;
  employer_id: string | null;
  name: string | null;
  /** The first characters of the secret part: finds the row without revealing the key. */
  lookup: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  redacted: string;
  created_at: string;
  revoked_at: string | null;
}

export interface IdempotencyKeyTable {
  api_key_id: string;
  idempotency_key: string;
  request_hash: string;
  /**
   * in_progress: the request runs and has committed nothing; committed: its writes committed, its response
   * is not kept yet; done: the response is kept.
   */
  state: 'in_progress' | 'committed' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  /** The token of the request that holds the reservation (null on rows from before owners). */
  owner: string | null;
  /** When the holder claimed, took over or committed: the start of its lease. */
  leased_at: string | null;
}

export interface SettingTable {
  key: string;
  value: string;
}

export type ProviderRow = Selectable<ProviderTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKeyRow = Insertable<ApiKeyTable>;
