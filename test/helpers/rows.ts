import { newId } from '../../src/shared/ids.ts';
import type { TestContext } from './test-app.ts';
import { createGroup } from './factories.ts';

/**
 * Rows inserted straight into the database, for records whose API belongs to another module or does not
 * exist yet (enrollments). Realistic and complete: every NOT NULL column is filled.
 */
export async function insertPlanWithConfiguration(
  t: TestContext,
  options: { employer: string; waitingPeriodDays?: number; requiredSubclass?: string | null; planYear?: [string, string] },
): Promise<{ planId: string; configurationId: string }> {
  const group = await createGroup(t.admin, { employer: options.employer });
  const now = t.clock.now().toISOString();
  const [start, end] = options.planYear ?? ['2026-01-01', '2026-12-31'];
  const planId = newId('plan');
  await t.database.db
    .insertInto('plans')
    .values({
      id: planId,
      provider_id: t.providerId,
      employer_id: options.employer,
      group_id: group.id,
      plan_name: 'Gold PPO',
      plan_type: 'ppo',
      line_of_coverage: 'medical',
      effective_start: start,
      effective_end: end,
      premium_type: null,
      composite_rates: null,
      age_rates: null,
      guaranteed_issue_volume_cents: null,
      requires_primary_care_provider: false,
      metadata: '{}',
      created_at: now,
    })
    .execute();
  const configurationId = newId('plan_configuration');
  await t.database.db
    .insertInto('plan_configurations')
    .values({
      id: configurationId,
      provider_id: t.providerId,
      employer_id: options.employer,
      plan_id: planId,
      waiting_period_days: options.waitingPeriodDays ?? 0,
      termination_policy: 'termination_date',
      dependent_age_limit: 26,
      dependent_age_out_rule: 'date_of_birth',
      required_subclass_id: options.requiredSubclass ?? null,
      coverage_start_rule: 'end_of_waiting_period',
      minimum_hours_per_week: null,
      eligible_employment_statuses: null,
      contribution_strategy: null,
      deduction_code: null,
      tax_treatment: null,
      metadata: '{}',
      created_at: now,
    })
    .execute();
  return { planId, configurationId };
}

/** An enrollment of the member in `status`, with one enrolled plan. */
export async function insertEnrollment(
  t: TestContext,
  options: { member: string; employer: string; planId: string; status: 'not_started' | 'pending' | 'approved' | 'synced' | 'cancelled' | 'failed' },
): Promise<{ enrollmentId: string; enrolledPlanId: string }> {
  const now = t.clock.now().toISOString();
  const enrollmentId = newId('enrollment');
  await t.database.db
    .insertInto('enrollments')
    .values({
      id: enrollmentId,
      provider_id: t.providerId,
      employer_id: options.employer,
      member_id: options.member,
      category: 'open_enrollment',
      status: options.status,
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      reason: 'open_enrollment',
      change_date: null,
      qualifying_life_event_documents: '[]',
      metadata: '{}',
      submitted_at: null,
      approved_at: null,
      created_at: now,
    })
    .execute();
  const enrolledPlanId = newId('enrolled_plan');
  await t.database.db
    .insertInto('enrolled_plans')
    .values({
      id: enrolledPlanId,
      provider_id: t.providerId,
      enrollment_id: enrollmentId,
      member_id: options.member,
      plan_id: options.planId,
      position: 0,
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      premium_cents: 50000,
      employer_contribution_cents: 40000,
      member_contribution_cents: 10000,
      payroll_provider_external_id: null,
      volume_cents: null,
      requested_volume_cents: null,
      volume_approved_at: null,
      eoi_dismissed_at: null,
      eoi_status: 'not_required',
      primary_care_provider: null,
      member_id_card_id: null,
      created_at: now,
    })
    .execute();
  return { enrollmentId, enrolledPlanId };
}
