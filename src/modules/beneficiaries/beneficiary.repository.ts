import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { BeneficiaryRow } from './beneficiary.table.ts';

function beneficiaries(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('beneficiaries').selectAll(), scope, 'beneficiaries', 'employer_id');
}

export const findBeneficiaryById: (db: Executor, scope: Scope, id: string) => Promise<BeneficiaryRow | undefined> = findByIdInScope(beneficiaries);

export function lockBeneficiaryById(trx: Transaction<Database>, scope: Scope, id: string): Promise<BeneficiaryRow | undefined> {
  return forUpdate(trx, beneficiaries(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listBeneficiaries(db: Executor, scope: Scope, filter: { memberId?: string | undefined }, page: PageRequest): Promise<Page<BeneficiaryRow>> {
  let query = beneficiaries(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  return paginate(query, page);
}

export async function insertBeneficiary(db: Executor, row: BeneficiaryRow): Promise<void> {
  await db.insertInto('beneficiaries').values(row).execute();
}

export async function updateBeneficiary(db: Executor, row: BeneficiaryRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('beneficiaries').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

export async function deleteBeneficiary(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('beneficiaries').where('id', '=', id).execute();
}
