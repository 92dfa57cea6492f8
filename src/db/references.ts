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
  pay_schedule: { table: 'pay_schedules', employerColumn: 'employer_id' },
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

/*
 * References a member's own records make (an enrollment's documents and beneficiaries, an ID card's document),
 * checked against the member rather than the caller's key: what the member may cite. The caller turns what is
 * missing into its ValidationFailed, field by field.
 */

/**
 * Documents among `ids` that the employer's members may cite: the employer's own and the provider-wide ones
 * (no employer), which employer keys do not see through the `document` reference above.
 */
export async function findDocumentIdsVisibleToEmployer(db: Executor, providerId: string, employerId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('documents')
    .select('id')
    .where('provider_id', '=', providerId)
    .where((eb) => eb.or([eb('employer_id', '=', employerId), eb('employer_id', 'is', null)]))
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether the document is one of the member's or their employer's: an ID card must not point at anyone else's. */
export async function isDocumentOfMember(db: Executor, providerId: string, member: { id: string; employer_id: string }, documentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('documents')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('id', '=', documentId)
    .where('employer_id', '=', member.employer_id)
    .where((eb) => eb.or([eb('member_id', 'is', null), eb('member_id', '=', member.id)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Beneficiaries of the provider among `ids`, with the member each belongs to: a designation names only its member's. */
export function findBeneficiaryMembers(db: Executor, providerId: string, ids: readonly string[]): Promise<{ id: string; member_id: string }[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('beneficiaries')
    .select(['id', 'member_id'])
    .where('provider_id', '=', providerId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

/**
 * Locks an employer's row for the rest of the transaction. Writes that keep a per-employer invariant (one
 * primary business unit, one default subclass per category) take it first, so that two of them never both
 * succeed on PostgreSQL's READ COMMITTED; on SQLite the transaction already holds the write lock.
 */
export async function lockEmployerRow(trx: Transaction<Database>, providerId: string, employerId: string): Promise<void> {
  await forUpdate(trx, trx.selectFrom('employers').select('id').where('provider_id', '=', providerId).where('id', '=', employerId)).execute();
}
