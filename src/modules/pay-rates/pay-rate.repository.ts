import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { PayRateRow } from './pay-rate.table.ts';

function payRates(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('pay_rates').selectAll(), scope, 'pay_rates', 'employer_id');
}

export const findPayRateById: (db: Executor, scope: Scope, id: string) => Promise<PayRateRow | undefined> = findByIdInScope(payRates);

export function lockPayRateById(trx: Transaction<Database>, scope: Scope, id: string): Promise<PayRateRow | undefined> {
  return forUpdate(trx, payRates(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listPayRates(db: Executor, scope: Scope, filter: { memberId?: string | undefined }, page: PageRequest): Promise<Page<PayRateRow>> {
  let query = payRates(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  return paginate(query, page);
}

export async function insertPayRate(db: Executor, row: PayRateRow): Promise<void> {
  await db.insertInto('pay_rates').values(row).execute();
}

export async function updatePayRate(db: Executor, row: PayRateRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('pay_rates').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

export async function deletePayRate(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('pay_rates').where('id', '=', id).execute();
}
