import type { Selectable } from 'kysely';

export interface DocumentTable {
  id: string;
  provider_id: string;
  employer_id: string | null;
  member_id: string | null;
  name: string;
  content_type: string;
  /** Bytes of the decoded content. */
  size: number;
  content: Uint8Array;
  created_at: string;
}

export type DocumentRow = Selectable<DocumentTable>;
