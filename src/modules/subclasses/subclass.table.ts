import type { Selectable, SqlBool } from 'kysely';

/** Subclass.category: a value set the contract leaves open (docs/decisions.md "Records and fields"). */
export const SUBCLASS_CATEGORIES = ['department', 'location', 'employment_class', 'union', 'other'] as const;
export type SubclassCategory = (typeof SUBCLASS_CATEGORIES)[number];

export interface SubclassTable {
  id: string;
  provider_id: string;
  employer_id: string;
  category: SubclassCategory;
  name: string;
  /** At most one per employer and category. Read back as 0/1 on SQLite. */
  is_default: SqlBool;
  created_at: string;
}

export type SubclassRow = Selectable<SubclassTable>;
