import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { SubclassRow } from './subclass.table.ts';

function subclasses(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('subclasses').selectAll(), scope, 'subclasses', 'employer_id');
}

export const findSubclassById: (db: Executor, scope: Scope, id: string) => Promise<SubclassRow | undefined> = findByIdInScope(subclasses);

export function lockSubclassById(trx: Transaction<Database>, scope: Scope, id: string): Promise<SubclassRow | undefined> {
  return forUpdate(trx, subclasses(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listSubclasses(db: Executor, scope: Scope, filter: { employerId?: string | undefined }, page: PageRequest): Promise<Page<SubclassRow>> {
  let query = subclasses(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  return paginate(query, page);
}

export async function insertSubclass(db: Executor, row: SubclassRow): Promise<void> {
  await db.insertInto('subclasses').values(row).execute();
}

export async function updateSubclass(db: Executor, row: SubclassRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('subclasses').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}

/** Unsets is_default on the employer's subclasses of the same category other than `chosen`; returns the ones it changed. */
export function unsetOtherDefaultSubclasses(
  trx: Executor,
  chosen: Pick<SubclassRow, 'id' | 'provider_id' | 'employer_id' | 'category'>,
): Promise<SubclassRow[]> {
  return trx
    .updateTable('subclasses')
    .set({ is_default: false })
    .where('provider_id', '=', chosen.provider_id)
    .where('employer_id', '=', chosen.employer_id)
    .where('category', '=', chosen.category)
    .where('id', '!=', chosen.id)
    .where('is_default', '=', true)
    .returningAll()
    .execute();
}
