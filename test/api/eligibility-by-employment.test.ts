import { describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';
import { addDays } from '../../src/shared/dates.ts';

// Plan configurations decide who is offered a plan by employment (scheduled hours, employment status) and when
// a new hire's coverage starts. The test clock stands at 2026-03-02.

const world = enrollmentWorldPerFile();

/** A plan of the world's employer with a configuration of its own. */
async function configuredPlan(configuration: Record<string, unknown>) {
  const plan = await createPlan(world.w.admin, { group: world.w.groups.manualGroup.id, plan_name: 'Configured Dental', line_of_coverage: 'dental' });
  await createPlanConfiguration(world.w.admin, { plan: plan.id, ...configuration });
  return plan;
}

/** Creates and submits a new_hire enrollment on one plan; the create and the submit responses. */
async function newHireEnrollment(member: { id: string; hire_date: string }, plan: { id: string }, extra: Record<string, unknown> = {}) {
  const created = await world.w.admin.post('/enrollments', {
    member: member.id,
    category: 'qle',
    reason: 'new_hire',
    change_date: member.hire_date,
    enrolled_plans: [{ plan: plan.id }],
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  return { created: created.body, submitted: await world.w.admin.post(`/enrollments/${created.body.id}/save_and_submit`) };
}

const pathsAndMessages = (response: { body: { input_errors?: { field_path: (string | number)[]; message: string }[] } }) =>
  (response.body.input_errors ?? []).map((error) => `${error.field_path.join('.')}: ${error.message}`);

describe('eligibility by scheduled hours and employment status', () => {
  it.each([
    [30, 200],
    [29.75, 400],
    [null, 400],
  ] as const)('when the plan requires 30 hours a week (ACA full-time, 26 CFR 54.4980H-1(a)(21)) and the member works %s, then %i', async (hours, status) => {
    const plan = await configuredPlan({ minimum_hours_per_week: 30 });
    const member = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: '2026-02-20', hours_worked: hours });
    const { submitted } = await newHireEnrollment(member, plan);
    expect(submitted.status, submitted.text).toBe(status);
    if (status === 400)
      expect(pathsAndMessages(submitted)).toEqual([
        expect.stringMatching(/^enrolled_plans\.0\.plan: The member is not eligible for this plan: The plan requires at least 30 scheduled hours a week/),
      ]);
  });

  it('when a part-time member at 8 hours a week elects medical that requires 30 and full-time status, then it is refused; a full-time member at 40 is accepted', async () => {
    const plan = await configuredPlan({ minimum_hours_per_week: 30, eligible_employment_statuses: ['full_time'] });
    const partTime = await createMember(world.w.admin, {
      employer: world.w.employer.id,
      hire_date: '2026-02-20',
      hours_worked: 8,
      employment_status: 'part_time',
    });
    expect((await newHireEnrollment(partTime, plan)).submitted.status).toBe(400);
    const statusOnly = await createMember(world.w.admin, {
      employer: world.w.employer.id,
      hire_date: '2026-02-20',
      hours_worked: 35,
      employment_status: 'seasonal',
    });
    expect(pathsAndMessages((await newHireEnrollment(statusOnly, plan)).submitted)).toEqual([
      'enrolled_plans.0.plan: The member is not eligible for this plan: The plan is offered to full_time employees; the member is seasonal.',
    ]);
    const fullTime = await createMember(world.w.admin, {
      employer: world.w.employer.id,
      hire_date: '2026-02-20',
      hours_worked: 40,
      employment_status: 'full_time',
    });
    expect((await newHireEnrollment(fullTime, plan)).submitted.status).toBe(200);
  });
});

describe("a new hire's coverage start", () => {
  it.each([
    ['end_of_waiting_period', 30, '2026-02-01', '2026-03-03', ''],
    ['end_of_waiting_period', 0, '2026-02-10', '2026-02-10', ''],
    // The day after the waiting period is a first of the month: coverage starts then (coincident).
    ['first_of_month_following_waiting_period', 29, '2026-01-31', '2026-03-01', ', or the first of a later month up to 2026-06-01'],
    ['first_of_month_following_waiting_period', 30, '2026-01-31', '2026-04-01', ', or the first of a later month up to 2026-07-01'],
    ['date_of_hire', 0, '2026-02-15', '2026-02-15', ''],
    // Strictly the month after the hire date, even for a hire on the first.
    ['first_of_month_following_hire', 0, '2026-02-01', '2026-03-01', ', or the first of a later month up to 2026-06-01'],
    ['first_of_month_following_hire', 0, '2026-01-31', '2026-02-01', ', or the first of a later month up to 2026-05-01'],
  ] as const)(
    'when the rule is %s with %i days of waiting and the hire date %s, then coverage starts on %s when none is given; a day later is refused',
    async (rule, days, hireDate, expected, later) => {
      const plan = await configuredPlan({ coverage_start_rule: rule, waiting_period_days: days });
      const member = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: hireDate });
      const computed = await newHireEnrollment(member, plan);
      expect(computed.submitted.status, computed.submitted.text).toBe(200);
      expect(computed.created.effective_start).toBe(expected);
      expect(computed.created.enrolled_plans[0].effective_start).toBe(expected);

      const other = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: hireDate });
      const late = await newHireEnrollment(other, plan, { effective_start: addDays(expected, 1) });
      expect(pathsAndMessages(late.submitted)).toEqual([
        `enrolled_plans.0.effective_start: A new hire's coverage on this plan starts as coverage_start_rule ${rule} says from the hire date ${hireDate} and a ${days}-day waiting period: expected ${expected}${later}.`,
      ]);
    },
  );

  it('when an admin overrides the rules, then a new hire may start on another day (still not before the waiting period ends)', async () => {
    const plan = await configuredPlan({ coverage_start_rule: 'first_of_month_following_waiting_period', waiting_period_days: 30 });
    const member = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: '2026-02-01' });
    const override = { rules_override: { reason: 'Carrier agreed to an earlier start.' } };
    expect((await newHireEnrollment(member, plan, { effective_start: '2026-03-03', ...override })).submitted.status).toBe(200);
    const early = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: '2026-02-01' });
    expect(pathsAndMessages((await newHireEnrollment(early, plan, { effective_start: '2026-03-02', ...override })).submitted)).toEqual([
      'enrolled_plans.0.effective_start: The waiting period ends on 2026-03-03; coverage cannot start before: expected 2026-03-03 or later.',
    ]);
  });
});
