import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import { forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { LineOfCoverage, PlanRow } from './plan.table.ts';

/** A plan with the carrier of its group: the carrier is the group's, so it follows the group when that changes. */
export type PlanWithCarrierRow = PlanRow & { carrier_id: string };

function plansWithCarrier(db: Executor, scope: Scope) {
  const query = db
    .selectFrom('plans')
    .innerJoin('carrier_groups', 'carrier_groups.id', 'plans.group_id')
    .selectAll('plans')
    .select('carrier_groups.carrier_id');
  return inScope(query, scope, 'plans', 'employer_id');
}

export function findPlanById(db: Executor, scope: Scope, id: string): Promise<PlanWithCarrierRow | undefined> {
  return plansWithCarrier(db, scope).where('plans.id', '=', id).executeTakeFirst();
}

/** Locks the plan row alone (not its group) for the rest of the transaction. */
export function lockPlanById(trx: Transaction<Database>, scope: Scope, id: string): Promise<PlanRow | undefined> {
  return forUpdate(trx, inScope(trx.selectFrom('plans').selectAll(), scope, 'plans', 'employer_id').where('id', '=', id)).executeTakeFirst();
}

/** Plans of the provider by id, locked for the rest of the transaction (in id order); visibility is checked before. */
export function lockPlansByIds(trx: Transaction<Database>, providerId: string, ids: readonly string[]): Promise<PlanRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return forUpdate(
    trx,
    trx
      .selectFrom('plans')
      .selectAll()
      .where('provider_id', '=', providerId)
      .where('id', 'in', [...ids])
      .orderBy('id'),
  ).execute();
}

/**
 * Plans of the provider by id (no order; visibility is the caller's to check): the reads every enrollment
 * change, approval and carry-over makes, compiled once per shape and remembered by a sweep batch (rememberReads).
 */
export function findPlansByIds(db: Executor, providerId: string, ids: readonly string[]): Promise<PlanRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return plansById(db, providerId, ids);
}

const plansById = cachedQuery(
  (db, providerId: string, ids: readonly string[]) => db.selectFrom('plans').selectAll().where('provider_id', '=', providerId).where('id', 'in', ids),
  { rememberable: true },
);

export function listPlans(
  db: Executor,
  scope: Scope,
  filter: { groupId?: string | undefined; employerId?: string | undefined; lineOfCoverage?: LineOfCoverage | undefined },
  page: PageRequest,
): Promise<Page<PlanWithCarrierRow>> {
  let query = plansWithCarrier(db, scope);
  if (filter.groupId !== undefined) query = query.where('plans.group_id', '=', filter.groupId);
  if (filter.employerId !== undefined) query = query.where('plans.employer_id', '=', filter.employerId);
  if (filter.lineOfCoverage !== undefined) query = query.where('plans.line_of_coverage', '=', filter.lineOfCoverage);
  return paginate(query, page, 'plans');
}

/** The employer and carrier of a group of the provider (visibility to the caller is checked before). */
export function findGroupParties(db: Executor, providerId: string, groupId: string): Promise<{ employer_id: string; carrier_id: string } | undefined> {
  return db
    .selectFrom('carrier_groups')
    .select(['employer_id', 'carrier_id'])
    .where('provider_id', '=', providerId)
    .where('id', '=', groupId)
    .executeTakeFirst();
}

export async function insertPlan(db: Executor, row: PlanRow): Promise<void> {
  await db.insertInto('plans').values(row).execute();
}

export async function updatePlan(db: Executor, row: PlanRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('plans').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

/** One side of a renewal link: the plan's predecessor (previous_plan_id) or successor (next_plan_id). */
export async function updatePlanLink(
  db: Executor,
  providerId: string,
  id: string,
  column: 'previous_plan_id' | 'next_plan_id',
  value: string | null,
): Promise<void> {
  await db
    .updateTable('plans')
    .set({ [column]: value })
    .where('id', '=', id)
    .where('provider_id', '=', providerId)
    .execute();
}
