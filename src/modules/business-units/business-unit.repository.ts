import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { BusinessUnitRow } from './business-unit.table.ts';

function businessUnits(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('business_units').selectAll(), scope, 'business_units', 'employer_id');
}

export const findBusinessUnitById: (db: Executor, scope: Scope, id: string) => Promise<BusinessUnitRow | undefined> = findByIdInScope(businessUnits);

export function lockBusinessUnitById(trx: Transaction<Database>, scope: Scope, id: string): Promise<BusinessUnitRow | undefined> {
  return forUpdate(trx, businessUnits(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listBusinessUnits(db: Executor, scope: Scope, filter: { employerId?: string | undefined }, page: PageRequest): Promise<Page<BusinessUnitRow>> {
  let query = businessUnits(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  return paginate(query, page);
}

export async function insertBusinessUnit(db: Executor, row: BusinessUnitRow): Promise<void> {
  await db.insertInto('business_units').values(row).execute();
}

export async function updateBusinessUnit(db: Executor, row: BusinessUnitRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('business_units').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}

/** Unsets is_primary on the employer's business units other than `primary`; returns the ones it changed. */
export function unsetOtherPrimaryBusinessUnits(
  trx: Executor,
  primary: Pick<BusinessUnitRow, 'id' | 'provider_id' | 'employer_id'>,
): Promise<BusinessUnitRow[]> {
  return trx
    .updateTable('business_units')
    .set({ is_primary: false })
    .where('provider_id', '=', primary.provider_id)
    .where('employer_id', '=', primary.employer_id)
    .where('id', '!=', primary.id)
    .where('is_primary', '=', true)
    .returningAll()
    .execute();
}
