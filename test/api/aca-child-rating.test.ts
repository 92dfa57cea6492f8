import { describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { ageRates, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// ACA small-group age rating, 45 CFR 147.102(c)(3)(i): an age-banded premium charges at most the three oldest
// covered children under 21. Coverage starts 2026-04-01; bands (plan-factories ageRates): 0 → 210.00,
// 21 → 330.50, 40 → 452.25.

const world = enrollmentWorldPerFile();

async function bandedPlan(acaChildRatingLimit: boolean | undefined) {
  const plan = await createPlan(world.w.admin, {
    group: world.w.groups.manualGroup.id,
    plan_name: 'Banded PPO',
    line_of_coverage: 'medical',
    premium_type: 'age_banded',
    age_rates: ageRates(),
    ...(acaChildRatingLimit === undefined ? {} : { aca_child_rating_limit: acaChildRatingLimit }),
  });
  await createPlanConfiguration(world.w.admin, { plan: plan.id });
  return plan;
}

/** The premium of the member (40 on 2026-04-01) covering children born on these days. */
async function premiumWithChildren(plan: { id: string }, childBirthDates: readonly string[]): Promise<string> {
  const member = await createMember(world.w.admin, { employer: world.w.employer.id, dob: '1985-05-05', hire_date: '2025-01-01' });
  const children = [];
  for (const [index, dob] of childBirthDates.entries()) {
    children.push(await createDependent(world.w.admin, { member: member.id, member_relationship: 'child', first_name: `Child${index}`, dob }));
  }
  const created = await world.w.admin.post('/enrollments', {
    member: member.id,
    category: 'open_enrollment',
    effective_start: '2026-04-01',
    enrolled_plans: [{ plan: plan.id, enrolled_dependents: children.map((child) => ({ dependent: child.id })) }],
  });
  expect(created.status, created.text).toBe(201);
  return created.body.enrolled_plans[0].premium;
}

// On 2026-04-01: 20, 15, 10 and 5 years old.
const FOUR_UNDER_21 = ['2005-06-01', '2010-06-01', '2015-06-01', '2020-06-01'];

describe('ACA three-oldest-children rule', () => {
  it('when the plan applies it, then the fourth child under 21 is covered free; a plan that does not (the default) charges all four', async () => {
    expect(await premiumWithChildren(await bandedPlan(true), FOUR_UNDER_21)).toBe('1082.25'); // 452.25 + 3 × 210.00
    expect(await premiumWithChildren(await bandedPlan(false), FOUR_UNDER_21)).toBe('1292.25'); // 452.25 + 4 × 210.00
    const byDefault = await bandedPlan(undefined);
    expect((await world.w.admin.get(`/plans/${byDefault.id}`)).body.aca_child_rating_limit).toBe(false);
    expect(await premiumWithChildren(byDefault, FOUR_UNDER_21)).toBe('1292.25');
  });

  it('when a child turns 21 on the coverage start, then they are charged as an adult and do not count among the three', async () => {
    const plan = await bandedPlan(true);
    // 21 on 2026-04-01 (last day under 21 was 2026-03-31), with four younger children: 452.25 + 330.50 + 3 × 210.00.
    expect(await premiumWithChildren(plan, ['2005-04-01', ...FOUR_UNDER_21])).toBe('1412.75');
    // One day younger: 20 on the start, so five children under 21 and only three charged.
    expect(await premiumWithChildren(plan, ['2005-04-02', ...FOUR_UNDER_21])).toBe('1082.25');
  });

  it('when a plan is renewed, then the successor keeps the rule', async () => {
    const plan = await bandedPlan(true);
    const renewed = await world.w.admin.post(`/plans/${plan.id}/renew`, { effective_start: '2027-01-01', effective_end: '2027-12-31' });
    expect(renewed.status, renewed.text).toBe(201);
    expect(renewed.body.aca_child_rating_limit).toBe(true);
  });
});
