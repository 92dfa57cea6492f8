import { describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createPlan } from '../helpers/plan-factories.ts';
import { enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// A new hire's coverage start as HR platforms send it (docs/decisions.md "Enrollments", a new hire's coverage
// start): the default rule is the first of the month after the waiting period, and under a first-of-the-month rule
// the member may choose the first of a later month, up to 3 months on and within the plan year. The test clock
// stands at 2026-03-02.

const world = enrollmentWorldPerFile();

/** A dental plan of the world's employer (plan year 2026) with a configuration created through the API as given. */
async function configuredPlan(configuration: Record<string, unknown>, plan: Record<string, unknown> = {}) {
  const created = await createPlan(world.w.admin, {
    group: world.w.groups.manualGroup.id,
    plan_name: 'New-Hire Dental',
    line_of_coverage: 'dental',
    ...plan,
  });
  const response = await world.w.admin.post('/plan_configurations', { plan: created.id, ...configuration });
  expect(response.status, response.text).toBe(201);
  return { plan: created, configuration: response.body };
}

/** A new hire of the world's employer hired on `hireDate`, enrolling on `plan` from `effectiveStart` (none: the rule's). */
async function newHireSubmits(hireDate: string, plan: { id: string }, effectiveStart?: string) {
  const member = await createMember(world.w.admin, { employer: world.w.employer.id, hire_date: hireDate });
  const created = await world.w.admin.post('/enrollments', {
    member: member.id,
    category: 'qle',
    reason: 'new_hire',
    change_date: hireDate,
    enrolled_plans: [{ plan: plan.id }],
    ...(effectiveStart === undefined ? {} : { effective_start: effectiveStart }),
  });
  expect(created.status, created.text).toBe(201);
  return { created: created.body, submitted: await world.w.admin.post(`/enrollments/${created.body.id}/save_and_submit`) };
}

const messages = (response: { body: { input_errors?: { field_path: (string | number)[]; message: string }[] } }) =>
  (response.body.input_errors ?? []).map((error) => `${error.field_path.join('.')}: ${error.message}`);

describe("a new hire's start on a configuration created without a rule", () => {
  it('when an HR platform sends the first of the month after the hire date, then it is accepted and approved from that day', async () => {
    const { plan, configuration } = await configuredPlan({});
    expect(configuration.coverage_start_rule).toBe('first_of_month_following_waiting_period');
    const { created, submitted } = await newHireSubmits('2026-02-10', plan, '2026-03-01');
    expect(submitted.status, submitted.text).toBe(200);
    const approved = await world.w.admin.post(`/enrollments/${created.id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.enrolled_plans[0].effective_start).toBe('2026-03-01');
  });

  it('when no effective_start is sent, then coverage starts on the first of the month after the hire date', async () => {
    const { plan } = await configuredPlan({});
    const { created, submitted } = await newHireSubmits('2026-02-10', plan);
    expect(submitted.status, submitted.text).toBe(200);
    expect(created.effective_start).toBe('2026-03-01');
  });

  it('when the hire date itself is sent, then the 400 says the date the rule expects', async () => {
    const { plan } = await configuredPlan({});
    const { submitted } = await newHireSubmits('2026-02-10', plan, '2026-02-10');
    expect(submitted.status).toBe(400);
    expect(messages(submitted)).toEqual([
      "enrolled_plans.0.effective_start: A new hire's coverage on this plan starts as coverage_start_rule first_of_month_following_waiting_period says from the hire date 2026-02-10 and a 0-day waiting period: expected 2026-03-01, or the first of a later month up to 2026-06-01.",
    ]);
  });
});

describe('a later first of the month chosen by the member', () => {
  // Hire 2026-02-10, no waiting period: the rule's date is 2026-03-01; the latest first the member may choose is 2026-06-01.
  it.each([
    ['2026-04-01', 200],
    ['2026-06-01', 200],
    ['2026-07-01', 400],
    ['2026-04-02', 400],
    ['2026-02-01', 400],
  ] as const)('when the rule is first_of_month_following_waiting_period and the member chooses %s, then %i', async (start, status) => {
    const { plan } = await configuredPlan({ coverage_start_rule: 'first_of_month_following_waiting_period' });
    const { submitted } = await newHireSubmits('2026-02-10', plan, start);
    expect(submitted.status, submitted.text).toBe(status);
    if (status === 400) {
      expect(messages(submitted)).toContain(
        "enrolled_plans.0.effective_start: A new hire's coverage on this plan starts as coverage_start_rule first_of_month_following_waiting_period says from the hire date 2026-02-10 and a 0-day waiting period: expected 2026-03-01, or the first of a later month up to 2026-06-01.",
      );
    }
  });

  it.each([
    ['2026-05-01', 200],
    ['2026-06-01', 400],
  ] as const)('when the rule is first_of_month_following_hire (hire 2026-01-31) and the member chooses %s, then %i', async (start, status) => {
    const { plan } = await configuredPlan({ coverage_start_rule: 'first_of_month_following_hire' });
    const { submitted } = await newHireSubmits('2026-01-31', plan, start);
    expect(submitted.status, submitted.text).toBe(status);
  });

  it('when the plan year ends before three later firsts, then the latest is the last first of the month within it', async () => {
    const { plan } = await configuredPlan({}, { effective_end: '2026-04-30' });
    expect((await newHireSubmits('2026-02-10', plan, '2026-04-01')).submitted.status).toBe(200);
    const { submitted } = await newHireSubmits('2026-02-10', plan, '2026-05-01');
    expect(messages(submitted)).toEqual(
      expect.arrayContaining([
        'enrolled_plans.0.effective_start: The plan is offered from 2026-01-01 to 2026-04-30: expected a start from 2026-01-01 to 2026-04-30.',
        "enrolled_plans.0.effective_start: A new hire's coverage on this plan starts as coverage_start_rule first_of_month_following_waiting_period says from the hire date 2026-02-10 and a 0-day waiting period: expected 2026-03-01, or the first of a later month up to 2026-04-01.",
      ]),
    );
  });

  it.each([
    ['end_of_waiting_period', '2026-02-10'],
    ['date_of_hire', '2026-02-10'],
  ] as const)('when the rule is %s (a day, not a first of the month), then a later first of the month is a 400 expecting %s', async (rule, expected) => {
    const { plan } = await configuredPlan({ coverage_start_rule: rule });
    const { submitted } = await newHireSubmits('2026-02-10', plan, '2026-03-01');
    expect(messages(submitted)).toEqual([
      `enrolled_plans.0.effective_start: A new hire's coverage on this plan starts as coverage_start_rule ${rule} says from the hire date 2026-02-10 and a 0-day waiting period: expected ${expected}.`,
    ]);
  });
});
