import type { Executor } from '../../db/database.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';

/**
 * Records that one occurrence of a date-driven rule is being acted on, in the transaction that acts on it.
 * False when it already was (by an earlier run, or by a concurrent one that committed first): the unique key
 * decides, not a check before the insert.
 */
export async function claimOccurrence(trx: Executor, key: string, now: string): Promise<boolean> {
  const result = await trx
    .insertInto('sweep_occurrences')
    .values({ occurrence_key: key, created_at: now })
    .onConflict((oc) => oc.column('occurrence_key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Plan configurations of plans still running on `day`, oldest first. */
export function findRunningConfigurations(db: Executor, day: string): Promise<PlanConfigurationRow[]> {
  return db
    .selectFrom('plan_configurations')
    .innerJoin('plans', 'plans.id', 'plan_configurations.plan_id')
    .selectAll('plan_configurations')
    .where('plans.effective_end', '>=', day)
    .orderBy('plan_configurations.created_at')
    .orderBy('plan_configurations.id')
    .execute();
}

export function findConfigurationsOfPlans(db: Executor, planIds: readonly string[]): Promise<PlanConfigurationRow[]> {
  if (planIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('plan_configurations')
    .selectAll()
    .where('plan_id', 'in', [...new Set(planIds)])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The lowest `dependent_age_limit` of any plan configuration (undefined with none): the sweep's age-out bound. */
export async function findLowestDependentAgeLimit(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom('plan_configurations')
    .select((eb) => eb.fn.min('dependent_age_limit').as('lowest'))
    .executeTakeFirst();
  return row?.lowest === null || row?.lowest === undefined ? undefined : Number(row.lowest);
}

/** Members of the employer hired on one of `hireDates` and not terminated before `day`. */
export function findMembersHiredOn(db: Executor, providerId: string, employerId: string, hireDates: readonly string[], day: string) {
  return db
    .selectFrom('members')
    .select(['id', 'provider_id', 'employer_id', 'hire_date'])
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('hire_date', 'in', [...hireDates])
    .where((eb) => eb.or([eb('termination_date', 'is', null), eb('termination_date', '>=', day)]))
    .execute();
}

export async function findSubclassesOfMembers(db: Executor, memberIds: readonly string[]): Promise<Map<string, string[]>> {
  const byMember = new Map(memberIds.map((id) => [id, [] as string[]]));
  if (memberIds.length === 0) return byMember;
  const rows = await db
    .selectFrom('member_subclasses')
    .select(['member_id', 'subclass_id'])
    .where('member_id', 'in', [...new Set(memberIds)])
    .orderBy('position')
    .execute();
  for (const row of rows) byMember.get(row.member_id)?.push(row.subclass_id);
  return byMember;
}

/** Claims the day's scheduled sweep for one process: a new row, or one whose claimer let its lock expire. */
export async function claimSweepRun(db: Executor, day: string, workerId: string, now: string, lockedUntil: string): Promise<boolean> {
  const inserted = await db
    .insertInto('sweep_runs')
    .values({ day, locked_by: workerId, locked_until: lockedUntil, started_at: now, finished_at: null })
    .onConflict((oc) => oc.column('day').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
  const retaken = await db
    .updateTable('sweep_runs')
    .set({ locked_by: workerId, locked_until: lockedUntil, started_at: now })
    .where('day', '=', day)
    .where('finished_at', 'is', null)
    .where('locked_until', '<', now)
    .executeTakeFirst();
  return retaken.numUpdatedRows > 0n;
}

export async function finishSweepRun(db: Executor, day: string, workerId: string, now: string): Promise<void> {
  await db.updateTable('sweep_runs').set({ finished_at: now, locked_until: null }).where('day', '=', day).where('locked_by', '=', workerId).execute();
}
