import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { CarrierRow } from './carrier.table.ts';

/** Provider-wide: employer keys see every carrier of their provider. */
function carriers(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('carriers').selectAll(), scope, 'carriers', null);
}

export const findCarrierById: (db: Executor, scope: Scope, id: string) => Promise<CarrierRow | undefined> = findByIdInScope(carriers);

export function lockCarrierById(trx: Transaction<Database>, scope: Scope, id: string): Promise<CarrierRow | undefined> {
  return forUpdate(trx, carriers(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listCarriers(db: Executor, scope: Scope, page: PageRequest): Promise<Page<CarrierRow>> {
  return paginate(carriers(db, scope), page);
}

export async function insertCarrier(db: Executor, row: CarrierRow): Promise<void> {
  await db.insertInto('carriers').values(row).execute();
}

export async function updateCarrier(db: Executor, row: CarrierRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('carriers').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}
