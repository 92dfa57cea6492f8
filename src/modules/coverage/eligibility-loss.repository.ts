import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { HoursMeasurement } from './eligibility-loss-rules.ts';
import { isCoverage } from './coverage-in-force.ts';
import type { MemberRow } from '../members/member.table.ts';

type EmploymentStatus = NonNullable<MemberRow['employment_status']>;

/** How the employer measures hours (eligibility-loss-rules.ts). */
export function findHoursMeasurement(db: Executor, employerId: string): Promise<HoursMeasurement> {
  return db
    .selectFrom('employers')
    .select(['hours_measurement_method', 'stability_period_start', 'stability_period_months'])
    .where('id', '=', employerId)
    .executeTakeFirstOrThrow();
}

/**
 * Coverage (isCoverage) in force on `day` and running past it, of members not terminated before `day`, on plans
 * with a configuration that excludes the member on their hours or status: a minimum the member's hours_worked
 * does not reach (or no hours on record), or a list of employment statuses (JSON text, '["full_time"]') without
 * the member's (or no status on record). Which configuration applies to the member (subclasses) the caller
 * decides, exactly. Coverage elected under a rules
 * override is left out: an admin decided it. The daily sweep's candidates for a loss of eligibility.
 */
export async function findCoverageMaybeOutOfEligibility(db: Executor, day: string) {
  const bound = await eligibilityRuleBounds(db);
  if (bound === undefined) return [];
  return db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('members', 'members.id', 'enrolled_plans.member_id')
    .innerJoin('employers', 'employers.id', 'members.employer_id')
    .select([
      'members.id as member_id',
      'members.provider_id',
      'members.hours_worked',
      'members.employment_status',
      'enrolled_plans.plan_id',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'employers.hours_measurement_method',
      'employers.stability_period_start',
      'employers.stability_period_months',
    ])
    .where(isCoverage())
    // Only members some configuration could exclude (eligibilityRuleBounds): a daily read of every member's
    // coverage before (12 ms at 2,000 members, the plan-year bench), where almost everyone meets every rule.
    .where((eb) => {
      const could = [];
      if (bound.highestMinimumHours !== undefined) {
        could.push(eb('members.hours_worked', 'is', null), eb('members.hours_worked', '<', bound.highestMinimumHours));
      }
      if (bound.statusInEveryList !== undefined) {
        could.push(eb('members.employment_status', 'is', null));
        if (bound.statusInEveryList.length > 0) could.push(eb('members.employment_status', 'not in', bound.statusInEveryList));
        else could.push(sql<boolean>`1 = 1`);
      }
      return eb.or(could);
    })
    .where('enrollments.rules_override_reason', 'is', null)
    .where((eb) => eb.or([eb('enrolled_plans.effective_start', 'is', null), eb('enrolled_plans.effective_start', '<=', day)]))
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>', day)]))
    .where((eb) => eb.or([eb('members.termination_date', 'is', null), eb('members.termination_date', '>=', day)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('plan_configurations')
          .select('plan_configurations.id')
          .whereRef('plan_configurations.plan_id', '=', 'enrolled_plans.plan_id')
          .where((c) =>
            c.or([
              c.and([
                c('plan_configurations.eligible_employment_statuses', 'is not', null),
                c.or([
                  c('members.employment_status', 'is', null),
                  // A closed list of plain words: its JSON text holds the quoted status when the status is in it.
                  sql<boolean>`${sql.ref('plan_configurations.eligible_employment_statuses')} not like '%"' || ${sql.ref('members.employment_status')} || '"%'`,
                ]),
              ]),
              c.and([
                c('plan_configurations.minimum_hours_per_week', 'is not', null),
                c.or([c('members.hours_worked', 'is', null), c('members.hours_worked', '<', c.ref('plan_configurations.minimum_hours_per_week'))]),
              ]),
            ]),
          ),
      ),
    )
    .orderBy('members.id')
    .execute();
}

/**
 * What any configuration's hours and status rules could exclude a member on (undefined when no configuration
 * has either): below the highest `minimum_hours_per_week` of any, or (with any status list) a status not in
 * every list. A member outside both meets every configuration's rules.
 */
async function eligibilityRuleBounds(db: Executor): Promise<{ highestMinimumHours?: number; statusInEveryList?: EmploymentStatus[] } | undefined> {
  const rows = await db
    .selectFrom('plan_configurations')
    .select(['minimum_hours_per_week', 'eligible_employment_statuses'])
    .where((eb) => eb.or([eb('minimum_hours_per_week', 'is not', null), eb('eligible_employment_statuses', 'is not', null)]))
    .execute();
  if (rows.length === 0) return undefined;
  const minimums = rows.flatMap((row) => (row.minimum_hours_per_week === null ? [] : [Number(row.minimum_hours_per_week)]));
  const lists = rows.flatMap((row) => (row.eligible_employment_statuses === null ? [] : [JSON.parse(row.eligible_employment_statuses) as EmploymentStatus[]]));
  return {
    ...(minimums.length > 0 ? { highestMinimumHours: Math.max(...minimums) } : {}),
    ...(lists.length > 0 ? { statusInEveryList: lists.reduce((every, list) => every.filter((status) => list.includes(status))) } : {}),
  };
}

/** Member id -> their subclass ids, in position order (members without any left out). */
export async function findSubclassesOfMembers(db: Executor, memberIds: readonly string[]): Promise<Map<string, string[]>> {
  if (memberIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('member_subclasses')
    .select(['member_id', 'subclass_id'])
    .where('member_id', 'in', [...new Set(memberIds)])
    .orderBy('position')
    .execute();
  return new Map([...Map.groupBy(rows, (row) => row.member_id)].map(([memberId, subclasses]) => [memberId, subclasses.map((row) => row.subclass_id)]));
}
