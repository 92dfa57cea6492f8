import type { Selectable } from 'kysely';

export interface MemberIdCardTable {
  id: string;
  provider_id: string;
  employer_id: string;
  member_id: string;
  carrier_id: string | null;
  member_number: string | null;
  group_number: string | null;
  document_id: string | null;
  created_at: string;
}

export type MemberIdCardRow = Selectable<MemberIdCardTable>;
