import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { PlanConfigurationRow } from './plan-configuration.table.ts';

function planConfigurations(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('plan_configurations').selectAll(), scope, 'plan_configurations', 'employer_id');
}

export const findPlanConfigurationById: (db: Executor, scope: Scope, id: string) => Promise<PlanConfigurationRow | undefined> =
  findByIdInScope(planConfigurations);

export function lockPlanConfigurationById(trx: Transaction<Database>, scope: Scope, id: string): Promise<PlanConfigurationRow | undefined> {
  return forUpdate(trx, planConfigurations(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listPlanConfigurations(
  db: Executor,
  scope: Scope,
  filter: { planId?: string | undefined },
  page: PageRequest,
): Promise<Page<PlanConfigurationRow>> {
  let query = planConfigurations(db, scope);
  if (filter.planId !== undefined) query = query.where('plan_id', '=', filter.planId);
  return paginate(query, page);
}

/**
 * Every configuration of these plans, oldest first (created_at, then id): the order selectPlanConfiguration
 * (eligibility.ts) reads candidates in, so the first one created wins among equals.
 */
export function findPlanConfigurationsForPlans(db: Executor, providerId: string, planIds: readonly string[]): Promise<PlanConfigurationRow[]> {
  if (planIds.length === 0) return Promise.resolve([]);
  return configurationsOfPlans(db, providerId, planIds);
}

// Compiled once per shape and remembered by a sweep batch (rememberReads): every enrollment change, approval,
// termination and carry-over reads the configurations of its plans.
const configurationsOfPlans = cachedQuery(
  (db, providerId: string, planIds: readonly string[]) =>
    db.selectFrom('plan_configurations').selectAll().where('provider_id', '=', providerId).where('plan_id', 'in', planIds).orderBy('created_at').orderBy('id'),
  { rememberable: true },
);

/** The employer of a plan of the provider (visibility to the caller is checked before). */
export async function findPlanEmployerId(db: Executor, providerId: string, planId: string): Promise<string | undefined> {
  const row = await db.selectFrom('plans').select('employer_id').where('provider_id', '=', providerId).where('id', '=', planId).executeTakeFirst();
  return row?.employer_id;
}

export async function isEmployerSubclass(db: Executor, providerId: string, employerId: string, subclassId: string): Promise<boolean> {
  const row = await db
    .selectFrom('subclasses')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', '=', subclassId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Fails with a unique violation when the plan already has a configuration for the same required subclass. */
export async function insertPlanConfiguration(db: Executor, row: PlanConfigurationRow): Promise<void> {
  await db.insertInto('plan_configurations').values(row).execute();
}

/** Fails with a unique violation when the plan already has a configuration for the same required subclass. */
export async function updatePlanConfiguration(db: Executor, row: PlanConfigurationRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('plan_configurations').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}
