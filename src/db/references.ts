import { ValidationFailed, inputError, type InputError } from '../shared/errors.ts';
import type { Scope } from '../shared/tenancy.ts';
import type { Executor, Transaction } from './database.ts';
import type { Database } from './schema.ts';
import { forUpdate, inScope } from './scope.ts';

/**
 * Records a request body may point at, by the name of the body field: the table they live in and the column
 * that confines them to one employer (null for provider-wide records).
 */
const REFERENCES = {
  employer: { table: 'employers', employerColumn: 'id' },
  carrier: { table: 'carriers', employerColumn: null },
  member: { table: 'members', employerColumn: 'employer_id' },
  group: { table: 'carrier_groups', employerColumn: 'employer_id' },
  plan: { table: 'plans', employerColumn: 'employer_id' },
  // Documents without an employer are provider-wide: employer keys do not see them (employer_id is null).
  document: { table: 'documents', employerColumn: 'employer_id' },
} as const satisfies Record<string, { table: keyof Database; employerColumn: string | null }>;

export type ReferenceField = keyof typeof REFERENCES;

/** Whether `id` names a record the caller may see: same provider and, for employer keys, their employer. */
export async function isVisibleReference(db: Executor, scope: Scope, field: ReferenceField, id: string): Promise<boolean> {
  const { table, employerColumn } = REFERENCES[field];
  const row = await inScope(db.selectFrom(table).select('id'), scope, table, employerColumn).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/**
 * Every reference a write names must be visible to the caller (docs/decisions.md "Tenancy and roles"); otherwise a
 * 400 that lists each field at fault. References left undefined (not part of a PATCH) are not checked. Call it inside
 * the transaction of the write it guards.
 */
export async function assertReferencesVisible(db: Executor, scope: Scope, references: Partial<Record<ReferenceField, string | undefined>>): Promise<void> {
  const errors: InputError[] = [];
  for (const [field, id] of Object.entries(references) as [ReferenceField, string | undefined][]) {
    if (id !== undefined && !(await isVisibleReference(db, scope, field, id))) {
      errors.push(inputError([field], `No such ${field}.`));
    }
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
}

/**
 * Locks an employer's row for the rest of the transaction. Writes that keep a per-employer invariant (one
 * primary business unit, one default subclass per category) take it first, so that two of them never both
 * succeed on PostgreSQL's READ COMMITTED; on SQLite the transaction already holds the write lock.
 */
export async function lockEmployerRow(trx: Transaction<Database>, providerId: string, employerId: string): Promise<void> {
  await forUpdate(trx, trx.selectFrom('employers').select('id').where('provider_id', '=', providerId).where('id', '=', employerId)).execute();
}
