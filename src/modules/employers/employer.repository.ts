import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EmployerRow } from './employer.table.ts';

function employers(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('employers').selectAll(), scope, 'employers', 'id');
}

export const findEmployerById: (db: Executor, scope: Scope, id: string) => Promise<EmployerRow | undefined> = findByIdInScope(employers);

export function lockEmployerById(trx: Transaction<Database>, scope: Scope, id: string): Promise<EmployerRow | undefined> {
  return forUpdate(trx, employers(trx, scope).where('id', '=', id)).executeTakeFirst();
}

// The external id filter seeks the employers_provider_external_id index (provider_id, external_id, created_at, id).
export function listEmployers(db: Executor, scope: Scope, filter: { externalId?: string | undefined }, page: PageRequest): Promise<Page<EmployerRow>> {
  let query = employers(db, scope);
  if (filter.externalId !== undefined) query = query.where('external_id', '=', filter.externalId);
  return paginate(query, page);
}

export async function insertEmployer(db: Executor, row: EmployerRow): Promise<void> {
  await db.insertInto('employers').values(row).execute();
}

export async function updateEmployer(db: Executor, row: EmployerRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('employers').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}
