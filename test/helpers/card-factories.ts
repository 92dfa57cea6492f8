import { newId } from '../../src/shared/ids.ts';
import { createGroup } from './factories.ts';
import type { ApiClient, TestContext } from './test-app.ts';

export interface InsertedCoverage {
  enrollmentId: string;
  planIds: string[];
  /** One per plan, in plan order. */
  enrolledPlanIds: string[];
  dependentIds: string[];
  /** Every dependent on every enrolled plan: plan by plan, dependents in order within each. */
  enrolledDependentIds: string[];
}

/**
 * A pending enrollment of the member, straight into the database (enrollments have no API yet): `plans`
 * plans of the member's employer (each with a group created through `client`, of the member's provider),
 * one enrolled plan for each, and `dependents` dependents of the member enrolled on every one of them.
 */
export async function insertEnrolledCoverage(
  t: TestContext,
  options: { member: string; client?: ApiClient; plans?: number; dependents?: number },
): Promise<InsertedCoverage> {
  const db = t.database.db;
  const member = await db.selectFrom('members').select(['provider_id', 'employer_id']).where('id', '=', options.member).executeTakeFirstOrThrow();
  const now = t.clock.now().toISOString();
  const owned = { provider_id: member.provider_id, created_at: now };

  const enrollmentId = newId('enrollment');
  await db
    .insertInto('enrollments')
    .values({
      ...owned,
      id: enrollmentId,
      employer_id: member.employer_id,
      member_id: options.member,
      category: 'open_enrollment',
      status: 'pending',
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      reason: 'open_enrollment',
      change_date: null,
      qualifying_life_event_documents: '[]',
      metadata: '{}',
      submitted_at: now,
      approved_at: null,
    })
    .execute();

  const dependentIds: string[] = [];
  for (let index = 0; index < (options.dependents ?? 1); index++) {
    const id = newId('dependent');
    await db
      .insertInto('dependents')
      .values({
        ...owned,
        id,
        employer_id: member.employer_id,
        member_id: options.member,
        first_name: `Child ${index + 1}`,
        middle_name: null,
        last_name: 'Rivera',
        member_relationship: 'child',
        ssn_last_four: null,
        dob: '2015-06-01',
        biological_sex: null,
        address: null,
        has_disability: false,
        metadata: '{}',
      })
      .execute();
    dependentIds.push(id);
  }

  const coverage = {
    volume_cents: null,
    requested_volume_cents: null,
    volume_approved_at: null,
    eoi_dismissed_at: null,
    eoi_status: 'not_required',
    primary_care_provider: null,
    member_id_card_id: null,
  } as const;
  const planIds: string[] = [];
  const enrolledPlanIds: string[] = [];
  const enrolledDependentIds: string[] = [];
  const lines = ['medical', 'dental', 'vision', 'life'] as const;
  for (let position = 0; position < (options.plans ?? 1); position++) {
    const group = await createGroup(options.client ?? t.admin, { employer: member.employer_id });
    const planId = newId('plan');
    await db
      .insertInto('plans')
      .values({
        ...owned,
        id: planId,
        employer_id: member.employer_id,
        group_id: group.id,
        plan_name: `Plan ${position + 1}`,
        plan_type: 'ppo',
        line_of_coverage: lines[position % lines.length]!,
        effective_start: '2026-01-01',
        effective_end: '2026-12-31',
        premium_type: null,
        composite_rates: null,
        age_rates: null,
        guaranteed_issue_volume_cents: null,
        requires_primary_care_provider: false,
        metadata: '{}',
      })
      .execute();
    planIds.push(planId);

    const enrolledPlanId = newId('enrolled_plan');
    await db
      .insertInto('enrolled_plans')
      .values({
        ...owned,
        ...coverage,
        id: enrolledPlanId,
        enrollment_id: enrollmentId,
        member_id: options.member,
        plan_id: planId,
        position,
        effective_start: '2026-01-01',
        effective_end: '2026-12-31',
        premium_cents: 50_000,
        employer_contribution_cents: 40_000,
        member_contribution_cents: 10_000,
        payroll_provider_external_id: null,
      })
      .execute();
    enrolledPlanIds.push(enrolledPlanId);

    for (const [dependentPosition, dependentId] of dependentIds.entries()) {
      const enrolledDependentId = newId('enrolled_dependent');
      await db
        .insertInto('enrolled_dependents')
        .values({ ...owned, ...coverage, id: enrolledDependentId, enrolled_plan_id: enrolledPlanId, dependent_id: dependentId, position: dependentPosition })
        .execute();
      enrolledDependentIds.push(enrolledDependentId);
    }
  }
  return { enrollmentId, planIds, enrolledPlanIds, dependentIds, enrolledDependentIds };
}

/** The card each coverage item points at, read straight from the database. */
export async function cardOfCoverage(t: TestContext, ids: { enrolledPlans?: string[]; enrolledDependents?: string[] }): Promise<(string | null)[]> {
  const db = t.database.db;
  const out: (string | null)[] = [];
  for (const id of ids.enrolledPlans ?? []) {
    out.push((await db.selectFrom('enrolled_plans').select('member_id_card_id').where('id', '=', id).executeTakeFirstOrThrow()).member_id_card_id);
  }
  for (const id of ids.enrolledDependents ?? []) {
    out.push((await db.selectFrom('enrolled_dependents').select('member_id_card_id').where('id', '=', id).executeTakeFirstOrThrow()).member_id_card_id);
  }
  return out;
}
