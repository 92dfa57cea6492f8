import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { GroupRow } from './group.table.ts';

function groups(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('carrier_groups').selectAll(), scope, 'carrier_groups', 'employer_id');
}

export const findGroupById: (db: Executor, scope: Scope, id: string) => Promise<GroupRow | undefined> = findByIdInScope(groups);

export function lockGroupById(trx: Transaction<Database>, scope: Scope, id: string): Promise<GroupRow | undefined> {
  return forUpdate(trx, groups(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listGroups(db: Executor, scope: Scope, filter: { employerId?: string | undefined }, page: PageRequest): Promise<Page<GroupRow>> {
  let query = groups(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  return paginate(query, page);
}

export async function insertGroup(db: Executor, row: GroupRow): Promise<void> {
  await db.insertInto('carrier_groups').values(row).execute();
}

export async function updateGroup(db: Executor, row: GroupRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('carrier_groups').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}
