import { insertRows } from '../../db/bulk-insert.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import type { ConnectionMethod } from '../groups/group.table.ts';
import { DELIVERY_TRANSITIONS, type DeliveryAction } from './benefit-change-delivery.ts';
import type { BenefitChangeRow, DeliveryState } from './benefit-change.table.ts';
import { syncWithDelivery } from '../carrier-ledger/carrier-ledger.ts';

function benefitChanges(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('benefit_changes').selectAll(), scope, 'benefit_changes', 'employer_id');
}

export const findBenefitChangeById: (db: Executor, scope: Scope, id: string) => Promise<BenefitChangeRow | undefined> = findByIdInScope(benefitChanges);

export function lockBenefitChangeById(trx: Transaction<Database>, scope: Scope, id: string): Promise<BenefitChangeRow | undefined> {
  return forUpdate(trx, benefitChanges(trx, scope).where('id', '=', id)).executeTakeFirst();
}

/** The enrollment, if the caller may see it (employer keys: their employer's only). */
export function findEnrollmentById(db: Executor, scope: Scope, id: string): Promise<{ id: string; status: EnrollmentStatus } | undefined> {
  return inScope(db.selectFrom('enrollments').select(['id', 'status']), scope, 'enrollments', 'employer_id')
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listBenefitChangesOfEnrollment(db: Executor, enrollmentId: string): Promise<BenefitChangeRow[]> {
  return db.selectFrom('benefit_changes').selectAll().where('enrollment_id', '=', enrollmentId).orderBy('position').orderBy('id').execute();
}

/** How each group reaches its carrier, by group id. */
export async function findConnectionMethodsOfGroups(db: Executor, providerId: string, groupIds: readonly string[]): Promise<Map<string, ConnectionMethod>> {
  if (groupIds.length === 0) return new Map();
  const rows = await connectionMethodsOf(db, providerId, [...new Set(groupIds)]);
  return new Map(rows.map((row) => [row.id, row.connection_method]));
}

const connectionMethodsOf = cachedQuery(
  (db, providerId: string, groupIds: readonly string[]) =>
    db.selectFrom('carrier_groups').select(['id', 'connection_method']).where('provider_id', '=', providerId).where('id', 'in', groupIds),
  { rememberable: true },
);

export async function insertBenefitChanges(trx: Transaction<Database>, rows: readonly BenefitChangeRow[]): Promise<void> {
  await insertRows(trx, 'benefit_changes', rows);
}

/**
 * Writes the fields a person or a carrier outcome may change. A delivery state it moves (`from`, the state it
 * had) moves the carrier ledger with it.
 */
export async function updateBenefitChange(
  trx: Transaction<Database>,
  row: Pick<BenefitChangeRow, 'id' | 'provider_id' | 'memo' | 'assignee' | 'completed_at' | 'delivery_state'>,
  from: DeliveryState,
  at: string,
): Promise<void> {
  await trx
    .updateTable('benefit_changes')
    .set({ memo: row.memo, assignee: row.assignee, completed_at: row.completed_at, delivery_state: row.delivery_state })
    .where('id', '=', row.id)
    .where('provider_id', '=', row.provider_id)
    .execute();
  if (from !== row.delivery_state) await syncWithDelivery(trx, [row.id], row.delivery_state, at);
}

/**
 * Applies delivery transition `action` (benefit-change-delivery.ts) to one change if it is still in one of its
 * `from` states: a conditional UPDATE, so that an outcome that arrives twice (at-least-once jobs) or races a
 * person's completion applies once. `fields` are written with it. True when it applied.
 */
export async function transitionDelivery(
  trx: Transaction<Database>,
  id: string,
  action: DeliveryAction,
  at: string,
  fields: { completed_at?: string | null; memo?: string | null } = {},
): Promise<boolean> {
  const { from, to } = DELIVERY_TRANSITIONS[action];
  const result = await trx
    .updateTable('benefit_changes')
    .set({ ...fields, delivery_state: to })
    .where('id', '=', id)
    .where('delivery_state', 'in', [...from])
    .executeTakeFirst();
  const applied = result.numUpdatedRows > 0n;
  if (applied) await syncWithDelivery(trx, [id], to, at);
  return applied;
}

/**
 * Applies delivery transition `action` to every change an 834 file carries (its rows not returned by a
 * rejection: a change a rejected file sent back may be in a later file) that is still in one of its `from`
 * states, in one conditional UPDATE; returns the changes it moved.
 */
export async function transitionChangesOfEdiFile(
  trx: Transaction<Database>,
  fileId: string,
  action: 'deliver_file' | 'file_accept' | 'file_return',
  at: string,
  fields: { completed_at?: string | null; memo?: string | null } = {},
): Promise<BenefitChangeRow[]> {
  const { from, to } = DELIVERY_TRANSITIONS[action];
  const moved = await trx
    .updateTable('benefit_changes')
    .set({ ...fields, delivery_state: to })
    .where('delivery_state', 'in', [...from])
    .where('id', 'in', (eb) => eb.selectFrom('edi_file_changes').select('benefit_change_id').where('edi_file_id', '=', fileId).where('returned_at', 'is', null))
    .returningAll()
    .execute();
  await syncWithDelivery(
    trx,
    moved.map((change) => change.id),
    to,
    at,
  );
  return moved;
}

/** The position after the enrollment's last benefit change (0 without any). */
export async function nextPositionOfEnrollment(db: Executor, enrollmentId: string): Promise<number> {
  const row = await db
    .selectFrom('benefit_changes')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('enrollment_id', '=', enrollmentId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function listDeliveryStatesOfEnrollment(db: Executor, enrollmentId: string): Promise<DeliveryState[]> {
  const rows = await db.selectFrom('benefit_changes').select('delivery_state').where('enrollment_id', '=', enrollmentId).execute();
  return rows.map((row) => row.delivery_state);
}

export interface ChangeForDelivery {
  change: BenefitChangeRow;
  carrierId: string;
  groupNumber: string;
  /** JSON text. */
  groupMetadata: string;
}

/** The change with the group and carrier it goes to (ids and codes only). */
export async function findChangeForDelivery(db: Executor, id: string): Promise<ChangeForDelivery | undefined> {
  const row = await db
    .selectFrom('benefit_changes')
    .innerJoin('carrier_groups', 'carrier_groups.id', 'benefit_changes.group_id')
    .selectAll('benefit_changes')
    .select(['carrier_groups.carrier_id', 'carrier_groups.group_number', 'carrier_groups.metadata as group_metadata'])
    .where('benefit_changes.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { carrier_id, group_number, group_metadata, ...change } = row;
  return { change, carrierId: carrier_id, groupNumber: group_number, groupMetadata: group_metadata };
}
