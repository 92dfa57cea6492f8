import { describe, expect, it } from 'vitest';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { createEnrollment, enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// A life plan's volume rules, checked on requested volumes at save_and_submit, each at its boundary.

const world = enrollmentWorldPerFile();
const RULES = { increment: '10000', minimum: '10000', maximum: '500000', spouse_max_percent: '50', child_maximum: '10000' };

async function lifePlan() {
  const plan = await createPlan(world.w.admin, {
    group: world.w.groups.manualGroup.id,
    plan_name: 'Voluntary Life',
    line_of_coverage: 'life',
    volume_rules: RULES,
  });
  await createPlanConfiguration(world.w.admin, { plan: plan.id });
  return plan;
}

/** The input errors of submitting a life election with these requested volumes (member, spouse, child). */
async function refusals(plan: { id: string }, member: string, spouse: string | null, child: string | null): Promise<string[]> {
  const { family } = world.w;
  const dependents = [
    ...(spouse ? [{ dependent: family.spouse.id, requested_volume: spouse }] : []),
    ...(child ? [{ dependent: family.child.id, requested_volume: child }] : []),
  ];
  const enrollment = await createEnrollment(world.w, {
    category: 'qle',
    reason: 'employment_change',
    change_date: '2026-02-27',
    effective_start: '2026-04-01',
    enrolled_plans: [{ plan: plan.id, requested_volume: member, enrolled_dependents: dependents }],
  });
  const submitted = await world.w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
  if (submitted.status === 200) return [];
  expect(submitted.status, submitted.text).toBe(400);
  return (submitted.body.input_errors as { field_path: (string | number)[]; message: string }[]).map(
    (error) => `${error.field_path.slice(2).join('.')}: ${error.message}`,
  );
}

describe('volume rules', () => {
  it('when the plan has volume rules, then it shows them with money in canonical form', async () => {
    const plan = await lifePlan();
    expect(plan.volume_rules).toEqual({
      increment: '10000.00',
      minimum: '10000.00',
      maximum: '500000.00',
      spouse_max_percent: '50',
      child_maximum: '10000.00',
    });
  });

  it.each([
    ['10000', null, null, []],
    ['500000', null, null, []],
    ['0', null, null, ['requested_volume: The volume must be at least 10000.00.']],
    ['510000', null, null, ['requested_volume: The volume can be at most 500000.00.']],
    ['105000', null, null, ['requested_volume: The volume must be a multiple of 10000.00.']],
    ['100000', '50000', '10000', []],
    ['100000', '60000', null, ["enrolled_dependents.0.requested_volume: A spouse's volume can be at most 50% of the member's requested volume (50000.00)."]],
    ['100000', null, '20000', ["enrolled_dependents.0.requested_volume: A child's volume can be at most 10000.00."]],
    ['100000', '45000', null, ['enrolled_dependents.0.requested_volume: The volume must be a multiple of 10000.00.']],
  ] as const)('when the member asks %s, a spouse %s and a child %s, then the refusals are %j', async (member, spouse, child, expected) => {
    expect(await refusals(await lifePlan(), member, spouse, child)).toEqual(expected);
  });
});
