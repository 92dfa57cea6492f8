import { insertRows } from '../../db/bulk-insert.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import type { ConnectionMethod } from '../groups/group.table.ts';
import type { BenefitChangeRow, DeliveryState } from './benefit-change.table.ts';

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

/** Writes the fields a person or a carrier outcome may change. */
export async function updateBenefitChange(
  trx: Transaction<Database>,
  row: Pick<BenefitChangeRow, 'id' | 'provider_id' | 'memo' | 'assignee' | 'completed_at' | 'delivery_state'>,
): Promise<void> {
  await trx
    .updateTable('benefit_changes')
    .set({ memo: row.memo, assignee: row.assignee, completed_at: row.completed_at, delivery_state: row.delivery_state })
    .where('id', '=', row.id)
    .where('provider_id', '=', row.provider_id)
    .execute();
}

/**
 * Moves a change to `to` only if it is still in one of `from`: a conditional UPDATE, so that an outcome that
 * arrives twice (at-least-once jobs) or races a person's completion applies once. True when it applied.
 */
export async function transitionDelivery(
  trx: Transaction<Database>,
  id: string,
  from: readonly DeliveryState[],
  to: { delivery_state: DeliveryState; completed_at?: string | null; memo?: string | null },
): Promise<boolean> {
  const result = await trx
    .updateTable('benefit_changes')
    .set(to)
    .where('id', '=', id)
    .where('delivery_state', 'in', [...from])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listDeliveryStatesOfEnrollment(db: Executor, enrollmentId: string): Promise<DeliveryState[]> {
  const rows = await db.selectFrom('benefit_changes').select('delivery_state').where('enrollment_id', '=', enrollmentId).execute();
  return rows.map((row) => row.delivery_state);
}

/**
 * The seam of the 834 feed: the group's approved changes still waiting for a file, oldest first and in
 * enrollment order. The generator writes them into a file, then calls markDelivered (benefit-change.service).
 */
export function listChangesAwaitingFile(db: Executor, providerId: string, groupId: string): Promise<BenefitChangeRow[]> {
  return db
    .selectFrom('benefit_changes')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('group_id', '=', groupId)
    .where('connection_method', '=', 'edi')
    .where('delivery_state', '=', 'awaiting_file')
    .orderBy('created_at')
    .orderBy('enrollment_id')
    .orderBy('position')
    .execute();
}

/** Completes the changes among `ids` still awaiting a file; returns those it completed. */
export async function completeChangesAwaitingFile(
  trx: Transaction<Database>,
  ids: readonly string[],
  completion: { completed_at: string; memo: string },
): Promise<BenefitChangeRow[]> {
  if (ids.length === 0) return [];
  return trx
    .updateTable('benefit_changes')
    .set({ delivery_state: 'completed', ...completion })
    .where('id', 'in', [...ids])
    .where('delivery_state', '=', 'awaiting_file')
    .returningAll()
    .execute();
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
