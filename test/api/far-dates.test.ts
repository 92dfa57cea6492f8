import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { createEnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('dates at the end of the calendar the API accepts', () => {
  it('when a member is hired on 9999-12-31 in an employer with plans (waiting periods and first-of-month starts run past it), then it is created, never a 500', async () => {
    const w = await createEnrollmentWorld(t);
    for (const [coverage_start_rule, waiting_period_days] of [
      ['first_of_month_following_waiting_period', 30],
      ['first_of_month_following_hire', 0],
    ] as const) {
      const plan = await createPlan(w.admin, { group: w.groups.manualGroup.id, plan_name: coverage_start_rule, line_of_coverage: 'dental' });
      await createPlanConfiguration(w.admin, { plan: plan.id, coverage_start_rule, waiting_period_days });
    }
    for (const hire_date of ['9999-12-31', '9999-12-15', '9999-11-30']) {
      const member = await createMember(w.admin, { employer: w.employer.id, hire_date, dob: '1990-01-01' });
      expect(member.hire_date).toBe(hire_date);
    }
  });
});
