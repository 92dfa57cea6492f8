import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createEmployer, createSubclass } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { contributionRule, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { findPlanConfigurationsForPlans } from '../../src/modules/plan-configurations/plan-configuration.repository.ts';
import { selectPlanConfiguration } from '../../src/modules/plan-configurations/eligibility.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const TIERS = ['member', 'member_spouse', 'member_child', 'member_children', 'member_family'];

/** The field_path of every input error, joined with dots (e.g. "member_spouse.monthly_min_threshold"). */
function errorPaths(response: { body: { input_errors?: { field_path: string[] }[] } }): string[] {
  return (response.body.input_errors ?? []).map((error) => error.field_path.join('.'));
}

/** A plan of a new employer, with a subclass of that employer. */
async function planWithSubclass() {
  const employer = await createEmployer(t.admin);
  const plan = await createPlan(t.admin, { employer: employer.id });
  const subclass = await createSubclass(t.admin, { employer: employer.id, category: 'union', name: 'Local 134' });
  return { employer, plan, subclass };
}

describe('POST /plan_configurations', () => {
  it('when created with every field, then 201 returns them all with a pc_ id and no contribution strategy', async () => {
    const { plan, subclass } = await planWithSubclass();
    const body = {
      plan: plan.id,
      waiting_period_days: 30,
      termination_policy: 'end_of_month',
      dependent_age_limit: 25,
      dependent_age_out_rule: 'end_of_year',
      required_subclass: subclass.id,
      coverage_start_rule: 'first_of_month_following_waiting_period',
      minimum_hours_per_week: 30,
      eligible_employment_statuses: ['full_time', 'seasonal'],
      waiting_period_waiver_allowed: true,
      deduction_code: 'MED-PPO',
      tax_treatment: 'post_tax',
      metadata: { source: 'renewal-2026' },
    };
    const response = await t.admin.post('/plan_configurations', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ...body,
      id: expect.stringMatching(/^pc_[A-Za-z0-9]{20}$/),
      contribution_strategy: null,
      created_at: t.clock.now().toISOString(),
    });
    expect((await t.admin.get(`/plan_configurations/${response.body.id}`)).body).toEqual(response.body);
  });

  it('when only the plan is given, then the defaults apply: 0 days, termination_date, 26, date_of_birth, no subclass, first_of_month_following_waiting_period', async () => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.post('/plan_configurations', { plan: plan.id });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      plan: plan.id,
      waiting_period_days: 0,
      termination_policy: 'termination_date',
      dependent_age_limit: 26,
      dependent_age_out_rule: 'date_of_birth',
      required_subclass: null,
      coverage_start_rule: 'first_of_month_following_waiting_period',
      minimum_hours_per_week: null,
      eligible_employment_statuses: null,
      waiting_period_waiver_allowed: false,
      contribution_strategy: null,
      deduction_code: null,
      tax_treatment: null,
      metadata: {},
      created_at: t.clock.now().toISOString(),
    });
  });

  it.each([
    ['first_of_month_following_waiting_period', 60, 201],
    ['first_of_month_following_waiting_period', 61, 400],
    ['end_of_waiting_period', 90, 201],
    ['date_of_hire', 0, 201],
    ['date_of_hire', 1, 400],
    ['first_of_month_following_hire', 0, 201],
    ['first_of_month_following_hire', 1, 400],
  ] as const)(
    'when coverage_start_rule is %s with a %i-day waiting period, then %i (ACA 90-day limit, 29 CFR 2590.715-2708; hire-date rules take no waiting period)',
    async (rule, days, status) => {
      const plan = await createPlan(t.admin);
      const response = await t.admin.post('/plan_configurations', { plan: plan.id, coverage_start_rule: rule, waiting_period_days: days });
      expect(response.status, response.text).toBe(status);
      if (status === 201) {
        // A PATCH that would break the limit is refused the same way.
        const patched = await t.admin.patch(`/plan_configurations/${response.body.id}`, { waiting_period_days: days + 1 });
        expect(patched.status).toBe(400);
      }
    },
  );

  it.each([
    [60, 'first_of_month_following_waiting_period'],
    [61, 'end_of_waiting_period'],
    [90, 'end_of_waiting_period'],
  ] as const)(
    'when coverage_start_rule is not given and waiting_period_days is %i, then it is %s (a first of the month after more than 60 days would pass the ACA 90-day limit)',
    async (days, rule) => {
      const plan = await createPlan(t.admin);
      const response = await t.admin.post('/plan_configurations', { plan: plan.id, waiting_period_days: days });
      expect(response.status, response.text).toBe(201);
      expect(response.body.coverage_start_rule).toBe(rule);
    },
  );

  it('when a configuration of the old default (end_of_waiting_period) is changed without naming the rule, then it keeps its rule', async () => {
    const configuration = await createPlanConfiguration(t.admin, { coverage_start_rule: 'end_of_waiting_period' });
    const patched = await t.admin.patch(`/plan_configurations/${configuration.id}`, { waiting_period_days: 30, dependent_age_limit: 25 });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.coverage_start_rule).toBe('end_of_waiting_period');
  });

  it.each([0, 90])('when waiting_period_days is %i, then 201', async (days) => {
    const configuration = await createPlanConfiguration(t.admin, { waiting_period_days: days });
    expect(configuration.waiting_period_days).toBe(days);
  });

  it.each([0, 99])('when dependent_age_limit is %i, then 201', async (limit) => {
    const configuration = await createPlanConfiguration(t.admin, { dependent_age_limit: limit });
    expect(configuration.dependent_age_limit).toBe(limit);
  });

  it.each(['termination_date', 'end_of_month'])('when termination_policy is %s, then 201', async (policy) => {
    expect((await createPlanConfiguration(t.admin, { termination_policy: policy })).termination_policy).toBe(policy);
  });

  it.each(['date_of_birth', 'end_of_month', 'end_of_year'])('when dependent_age_out_rule is %s, then 201', async (rule) => {
    expect((await createPlanConfiguration(t.admin, { dependent_age_out_rule: rule })).dependent_age_out_rule).toBe(rule);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['waiting_period_days -1', { waiting_period_days: -1 }, 'waiting_period_days'],
    ['waiting_period_days 91', { waiting_period_days: 91 }, 'waiting_period_days'],
    ['fractional waiting_period_days', { waiting_period_days: 1.5 }, 'waiting_period_days'],
    ['waiting_period_days as a string', { waiting_period_days: '30' }, 'waiting_period_days'],
    ['waiting_period_days null', { waiting_period_days: null }, 'waiting_period_days'],
    ['dependent_age_limit -1', { dependent_age_limit: -1 }, 'dependent_age_limit'],
    ['dependent_age_limit 100', { dependent_age_limit: 100 }, 'dependent_age_limit'],
    ['an unknown termination_policy', { termination_policy: 'end_of_year' }, 'termination_policy'],
    ['an unknown dependent_age_out_rule', { dependent_age_out_rule: 'birthday' }, 'dependent_age_out_rule'],
    ['a malformed required_subclass', { required_subclass: 'sub bad' }, 'required_subclass'],
    ['metadata that is a string', { metadata: 'x' }, 'metadata'],
    ['a contribution_strategy (set with its own endpoint)', { contribution_strategy: contributionStrategy() }, 'contribution_strategy'],
    ['an employer (it comes from the plan)', { employer: 'er_x' }, 'employer'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual([field]);
  });

  it('when created without a plan, then 400 naming plan', async () => {
    const response = await t.admin.post('/plan_configurations', { waiting_period_days: 30 });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['plan']);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/plan_configurations/pc_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/plan_configurations/pc%20bad')).status).toBe(404);
    expect((await t.admin.patch('/plan_configurations/pc_doesnotexist', { waiting_period_days: 1 })).status).toBe(404);
    expect((await t.admin.post('/plan_configurations/pc_doesnotexist/contribution_strategy', contributionStrategy())).status).toBe(404);
  });
});

describe('plan configuration references', () => {
  it('when the plan does not exist, then 400 naming plan', async () => {
    const response = await t.admin.post('/plan_configurations', { plan: 'plan_doesnotexist' });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['plan']);
  });

  it('when the plan belongs to another provider, then 400 naming plan', async () => {
    const other = await newProviderAdmin(t, 'pc-plan');
    const theirs = await createPlan(other);
    const response = await t.admin.post('/plan_configurations', { plan: theirs.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['plan']);
    expect(idsOf(await other.get(`/plan_configurations?plan=${theirs.id}`))).toEqual([]);
  });

  it('when the required subclass does not exist, then 400 naming required_subclass', async () => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, required_subclass: 'sub_doesnotexist' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
  });

  it('when the required subclass is another employer’s, then 400 naming required_subclass', async () => {
    const { plan } = await planWithSubclass();
    const foreign = await createSubclass(t.admin);
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, required_subclass: foreign.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
    expect(response.body.input_errors[0].message).toContain("plan's employer");
  });

  it('when the required subclass belongs to another provider, then 400 naming required_subclass', async () => {
    const other = await newProviderAdmin(t, 'pc-subclass');
    const theirs = await createSubclass(other);
    const plan = await createPlan(t.admin);
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, required_subclass: theirs.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
  });
});

describe('one configuration per plan and required subclass', () => {
  it('when a second configuration without a subclass is created for a plan, then 400 naming required_subclass', async () => {
    const plan = await createPlan(t.admin);
    await createPlanConfiguration(t.admin, { plan: plan.id });
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, waiting_period_days: 60 });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['required_subclass']);
    expect(response.body.input_errors[0].message).toMatch(/already has a configuration without a required_subclass/);
    expect(idsOf(await t.admin.get(`/plan_configurations?plan=${plan.id}`))).toHaveLength(1);
  });

  it('when a second configuration for the same subclass is created, then 400 naming required_subclass', async () => {
    const { plan, subclass } = await planWithSubclass();
    await createPlanConfiguration(t.admin, { plan: plan.id, required_subclass: subclass.id });
    const response = await t.admin.post('/plan_configurations', { plan: plan.id, required_subclass: subclass.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
    expect(response.body.input_errors[0].message).toMatch(/already has a configuration for this required_subclass/);
  });

  it('when configurations differ by subclass, or are of different plans, then each is created', async () => {
    const { employer, plan, subclass } = await planWithSubclass();
    const second = await createSubclass(t.admin, { employer: employer.id, name: 'Local 99' });
    const otherPlan = await createPlan(t.admin, { employer: employer.id, line_of_coverage: 'dental' });
    const created = [
      await createPlanConfiguration(t.admin, { plan: plan.id }),
      await createPlanConfiguration(t.admin, { plan: plan.id, required_subclass: subclass.id }),
      await createPlanConfiguration(t.admin, { plan: plan.id, required_subclass: second.id }),
      await createPlanConfiguration(t.admin, { plan: otherPlan.id }),
      await createPlanConfiguration(t.admin, { plan: otherPlan.id, required_subclass: subclass.id }),
    ];
    expect(new Set(created.map((c) => c.id)).size).toBe(5);
  });

  it.each([
    ['without a subclass', false],
    ['for the same subclass', true],
  ])('when two configurations %s are created at once, then one 201 and one 400', async (_case, withSubclass) => {
    const { plan, subclass } = await planWithSubclass();
    const body = { plan: plan.id, ...(withSubclass ? { required_subclass: subclass.id } : {}) };
    const responses = await Promise.all([t.admin.post('/plan_configurations', body), t.admin.post('/plan_configurations', body)]);
    expect(responses.map((r) => r.status).sort()).toEqual([201, 400]);
    const refused = responses.find((r) => r.status === 400)!;
    expect(refused.body.type).toBe('validation_error');
    expect(errorFields(refused)).toEqual(['required_subclass']);
    expect(idsOf(await t.admin.get(`/plan_configurations?plan=${plan.id}`))).toHaveLength(1);
  });

  it('when a configuration is patched onto a subclass another configuration of the plan uses, then 400 and nothing changes', async () => {
    const { plan, subclass } = await planWithSubclass();
    await createPlanConfiguration(t.admin, { plan: plan.id, required_subclass: subclass.id });
    const open = await createPlanConfiguration(t.admin, { plan: plan.id });
    const response = await t.admin.patch(`/plan_configurations/${open.id}`, { required_subclass: subclass.id, waiting_period_days: 45 });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
    expect((await t.admin.get(`/plan_configurations/${open.id}`)).body).toEqual(open);
  });

  it('when a subclass configuration is patched to none while an open one exists, then 400', async () => {
    const { plan, subclass } = await planWithSubclass();
    await createPlanConfiguration(t.admin, { plan: plan.id });
    const union = await createPlanConfiguration(t.admin, { plan: plan.id, required_subclass: subclass.id });
    const response = await t.admin.patch(`/plan_configurations/${union.id}`, { required_subclass: null });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
  });
});

describe('GET /plan_configurations', () => {
  it('when listed, then configurations come newest first and page by page', async () => {
    const admin = await newProviderAdmin(t, 'pc-list');
    const employer = await createEmployer(admin);
    const plans = await createInSequence(t, 3, () => createPlan(admin, { employer: employer.id }));
    const configurations = await createInSequence(t, 3, (i) => createPlanConfiguration(admin, { plan: plans[i]!.id }));
    const list = await admin.get('/plan_configurations');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(configurations.map((c) => c.id).reverse());
    expect(list.body.results[0]).toEqual(configurations[2]);
    const first = await admin.get('/plan_configurations?page_size=2');
    expect(idsOf(first)).toEqual([configurations[2].id, configurations[1].id]);
    const second = await admin.get(first.body.next);
    expect(idsOf(second)).toEqual([configurations[0].id]);
  });

  it('when listed with ?plan=, then only that plan’s configurations come', async () => {
    const { employer, plan, subclass } = await planWithSubclass();
    const other = await createPlan(t.admin, { employer: employer.id });
    const configurations = await createInSequence(t, 3, (i) =>
      createPlanConfiguration(t.admin, i === 1 ? { plan: other.id } : { plan: plan.id, required_subclass: i === 0 ? null : subclass.id }),
    );
    expect(idsOf(await t.admin.get(`/plan_configurations?plan=${plan.id}`))).toEqual([configurations[2].id, configurations[0].id]);
    expect(idsOf(await t.admin.get(`/plan_configurations?plan=${other.id}`))).toEqual([configurations[1].id]);
    expect(idsOf(await t.admin.get('/plan_configurations?plan=plan_doesnotexist'))).toEqual([]);
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/plan_configurations?employer=er_x');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['employer']);
  });
});

describe('PATCH /plan_configurations/{id}', () => {
  it('when patched, then only the given fields change', async () => {
    const { employer, plan, subclass } = await planWithSubclass();
    const configuration = await createPlanConfiguration(t.admin, { plan: plan.id, metadata: { a: '1', b: '2' } });
    const next = await createSubclass(t.admin, { employer: employer.id, name: 'Remote' });
    const response = await t.admin.patch(`/plan_configurations/${configuration.id}`, {
      waiting_period_days: 90,
      termination_policy: 'end_of_month',
      dependent_age_limit: 19,
      dependent_age_out_rule: 'end_of_month',
      required_subclass: subclass.id,
      metadata: { a: 'one', b: '' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...configuration,
      waiting_period_days: 90,
      termination_policy: 'end_of_month',
      dependent_age_limit: 19,
      dependent_age_out_rule: 'end_of_month',
      required_subclass: subclass.id,
      metadata: { a: 'one' },
    });
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body).toEqual(response.body);
    const moved = await t.admin.patch(`/plan_configurations/${configuration.id}`, { required_subclass: next.id });
    expect(moved.body).toEqual({ ...response.body, required_subclass: next.id });
    const cleared = await t.admin.patch(`/plan_configurations/${configuration.id}`, { required_subclass: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ...response.body, required_subclass: null });
  });

  it('when one field is patched, then every other field stays, the contribution strategy included', async () => {
    const configuration = await createPlanConfiguration(t.admin, { waiting_period_days: 30, dependent_age_limit: 24 });
    const strategy = (await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy())).body;
    const response = await t.admin.patch(`/plan_configurations/${configuration.id}`, { termination_policy: 'end_of_month' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...configuration, termination_policy: 'end_of_month', contribution_strategy: strategy });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['waiting_period_days -1', { waiting_period_days: -1 }, 'waiting_period_days'],
    ['waiting_period_days 91', { waiting_period_days: 91 }, 'waiting_period_days'],
    ['dependent_age_limit 100', { dependent_age_limit: 100 }, 'dependent_age_limit'],
    ['waiting_period_days null', { waiting_period_days: null }, 'waiting_period_days'],
    ['termination_policy null', { termination_policy: null }, 'termination_policy'],
    ['dependent_age_limit null', { dependent_age_limit: null }, 'dependent_age_limit'],
    ['dependent_age_out_rule null', { dependent_age_out_rule: null }, 'dependent_age_out_rule'],
    ['the plan', { plan: 'plan_other' }, 'plan'],
    ['a contribution_strategy', { contribution_strategy: contributionStrategy() }, 'contribution_strategy'],
    ['another employer’s subclass', { required_subclass: 'FOREIGN' }, 'required_subclass'],
  ])('when patched with %s, then 400 naming it and nothing changes', async (_case, body, field) => {
    const configuration = await createPlanConfiguration(t.admin);
    const patch = body.required_subclass === 'FOREIGN' ? { required_subclass: (await createSubclass(t.admin)).id } : body;
    const response = await t.admin.patch(`/plan_configurations/${configuration.id}`, patch);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body).toEqual(configuration);
  });

  it.each([0, 90])('when waiting_period_days is patched to %i, then 200', async (days) => {
    const configuration = await createPlanConfiguration(t.admin, { waiting_period_days: 45 });
    const response = await t.admin.patch(`/plan_configurations/${configuration.id}`, { waiting_period_days: days });
    expect(response.status).toBe(200);
    expect(response.body.waiting_period_days).toBe(days);
  });
});

describe('POST /plan_configurations/{id}/contribution_strategy', () => {
  it('when a full strategy is set, then 200 returns it and the configuration shows it', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const strategy = contributionStrategy();
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, strategy);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(strategy);
    expect(Object.keys(response.body)).toEqual(TIERS);
    const fetched = await t.admin.get(`/plan_configurations/${configuration.id}`);
    expect(fetched.body).toEqual({ ...configuration, contribution_strategy: strategy });
    expect((await t.admin.get(`/plan_configurations?plan=${configuration.plan}`)).body.results[0].contribution_strategy).toEqual(strategy);
  });

  it('when a strategy is set again, then it replaces the previous one as a whole', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy());
    const next = contributionStrategy({
      member: contributionRule('80', '100.00', '500.00'),
      member_family: contributionRule('0', '0.00', '0.00'),
    });
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, next);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(next);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body.contribution_strategy).toEqual(next);
  });

  it('when a replacement is refused, then the previous strategy stays', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const strategy = contributionStrategy();
    await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, strategy);
    const refused = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member: contributionRule('100.01') }),
    );
    expect(refused.status).toBe(400);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body.contribution_strategy).toEqual(strategy);
  });

  it('when thresholds have fewer than two decimals, then they are stored and answered with two', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member_child: contributionRule('33.33', '250', '900.5') }),
    );
    expect(response.status).toBe(200);
    expect(response.body.member_child).toEqual({ contribution: '33.33', monthly_min_threshold: '250.00', monthly_max_threshold: '900.50' });
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body.contribution_strategy).toEqual(response.body);
  });

  it.each(TIERS)('when the %s tier is missing, then 400 naming it', async (tier) => {
    const configuration = await createPlanConfiguration(t.admin);
    const strategy: Record<string, unknown> = contributionStrategy();
    delete strategy[tier];
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, strategy);
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorPaths(response)).toEqual([tier]);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body.contribution_strategy).toBeNull();
  });

  it('when the body is empty, then 400 naming all five tiers', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual([...TIERS].sort());
  });

  it('when an extra key is sent, then 400 naming it', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member_domestic_partner: contributionRule() }),
    );
    expect(response.status).toBe(400);
    expect(errorPaths(response)).toEqual(['member_domestic_partner']);
  });

  it.each<[string, unknown, string[]]>([
    ['a rule without contribution', { monthly_min_threshold: '0', monthly_max_threshold: '10' }, ['member_spouse.contribution']],
    ['a rule without thresholds', { contribution: '50' }, ['member_spouse.monthly_min_threshold', 'member_spouse.monthly_max_threshold']],
    ['a rule with an extra field', { ...contributionRule(), cap: '10' }, ['member_spouse.cap']],
    ['a rule that is a string', '50', ['member_spouse']],
    ['a rule that is null', null, ['member_spouse']],
    ['a numeric contribution', { ...contributionRule(), contribution: 50 }, ['member_spouse.contribution']],
  ])('when the member_spouse tier holds %s, then 400 naming %j', async (_case, rule, paths) => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy({ member_spouse: rule }));
    expect(response.status).toBe(400);
    expect(errorPaths(response).sort()).toEqual([...paths].sort());
  });

  it.each(['100.01', '101', '-1', 'abc', '1.005', '', '50%', '05', '.5', ' 50'])(
    'when a contribution is %j, then 400 naming <tier>.contribution',
    async (contribution) => {
      const configuration = await createPlanConfiguration(t.admin);
      const response = await t.admin.post(
        `/plan_configurations/${configuration.id}/contribution_strategy`,
        contributionStrategy({ member_children: contributionRule(contribution) }),
      );
      expect(response.status).toBe(400);
      expect(errorPaths(response)).toEqual(['member_children.contribution']);
    },
  );

  it.each(['0', '0.5', '33.33', '99.99', '100', '100.0', '100.00'])('when a contribution is %j, then 200 and it is kept as sent', async (contribution) => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member: contributionRule(contribution) }),
    );
    expect(response.status).toBe(200);
    expect(response.body.member.contribution).toBe(contribution);
  });

  it.each(['12.345', '-5.00', 'abc', '1,000.00', '1e3', ''])('when a threshold is %j, then 400 naming the threshold', async (money) => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member_family: contributionRule('50', '0.00', money), member: contributionRule('50', money, '100.00') }),
    );
    expect(response.status).toBe(400);
    expect(errorPaths(response).sort()).toEqual(['member.monthly_min_threshold', 'member_family.monthly_max_threshold']);
  });

  it('when a minimum is above its maximum, then 400 naming <tier>.monthly_min_threshold for each such tier', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member_spouse: contributionRule('75', '900.01', '900.00'), member_family: contributionRule('50', '1000', '999.99') }),
    );
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorPaths(response)).toEqual(['member_spouse.monthly_min_threshold', 'member_family.monthly_min_threshold']);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body.contribution_strategy).toBeNull();
  });

  it('when a minimum equals its maximum, then 200', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(
      `/plan_configurations/${configuration.id}/contribution_strategy`,
      contributionStrategy({ member: contributionRule('50', '400.00', '400') }),
    );
    expect(response.status).toBe(200);
    expect(response.body.member).toEqual({ contribution: '50', monthly_min_threshold: '400.00', monthly_max_threshold: '400.00' });
  });

  it('when the body is a list, then 400', async () => {
    const configuration = await createPlanConfiguration(t.admin);
    const response = await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, [contributionStrategy()]);
    expect(response.status).toBe(400);
  });
});

describe('plan configuration tenancy', () => {
  it('when another provider reads, patches, lists or sets a strategy, then 404 and nothing changes', async () => {
    const other = await newProviderAdmin(t, 'pc-tenant');
    const configuration = await createPlanConfiguration(t.admin);
    expect((await other.get(`/plan_configurations/${configuration.id}`)).status).toBe(404);
    const patched = await other.patch(`/plan_configurations/${configuration.id}`, { waiting_period_days: 1 });
    expect(patched.status).toBe(404);
    expect(patched.body.type).toBe('not_found');
    const strategy = await other.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy());
    expect(strategy.status).toBe(404);
    expect(strategy.body.type).toBe('not_found');
    expect(idsOf(await other.get('/plan_configurations?page_size=100'))).not.toContain(configuration.id);
    expect(idsOf(await other.get(`/plan_configurations?plan=${configuration.plan}`))).toEqual([]);
    expect((await t.admin.get(`/plan_configurations/${configuration.id}`)).body).toEqual(configuration);
  });

  it('when an employer key creates a configuration, then 201 for its own plan and 400 naming plan for another employer’s', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createPlan(t.admin, { employer: employer.id });
    const subclass = await createSubclass(t.admin, { employer: employer.id });
    const foreign = await createPlan(t.admin);
    const created = await client.post('/plan_configurations', { plan: own.id, required_subclass: subclass.id });
    expect(created.status).toBe(201);
    const refused = await client.post('/plan_configurations', { plan: foreign.id });
    expect(refused.status).toBe(400);
    expect(errorFields(refused)).toEqual(['plan']);
    expect(idsOf(await t.admin.get(`/plan_configurations?plan=${foreign.id}`))).toEqual([]);
  });

  it('when an employer key reads, patches, lists or sets a strategy, then only its employer’s configurations exist for it', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const mine = await createPlanConfiguration(t.admin, { employer: employer.id });
    const theirs = await createPlanConfiguration(t.admin);
    expect((await client.get(`/plan_configurations/${mine.id}`)).body).toEqual(mine);
    expect((await client.get(`/plan_configurations/${theirs.id}`)).status).toBe(404);
    expect((await client.patch(`/plan_configurations/${theirs.id}`, { waiting_period_days: 1 })).status).toBe(404);
    expect((await client.post(`/plan_configurations/${theirs.id}/contribution_strategy`, contributionStrategy())).status).toBe(404);
    expect((await t.admin.get(`/plan_configurations/${theirs.id}`)).body).toEqual(theirs);
    expect((await client.patch(`/plan_configurations/${mine.id}`, { waiting_period_days: 14 })).status).toBe(200);
    expect((await client.post(`/plan_configurations/${mine.id}/contribution_strategy`, contributionStrategy())).status).toBe(200);
    expect(idsOf(await client.get('/plan_configurations?page_size=100'))).toEqual([mine.id]);
    expect(idsOf(await client.get(`/plan_configurations?plan=${theirs.plan}`))).toEqual([]);
  });

  it('when an employer key names another employer’s subclass on its own plan, then 400 naming required_subclass', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createPlan(t.admin, { employer: employer.id });
    const foreign = await createSubclass(t.admin);
    const response = await client.post('/plan_configurations', { plan: own.id, required_subclass: foreign.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['required_subclass']);
  });

  it('when a read-only key writes, then 403 on POST, PATCH and the strategy endpoint; it reads', async () => {
    const readOnly = await t.client('read_only');
    const plan = await createPlan(t.admin);
    const configuration = await createPlanConfiguration(t.admin, { plan: plan.id });
    const created = await readOnly.post('/plan_configurations', { plan: plan.id });
    expect(created.status).toBe(403);
    expect(created.body.type).toBe('permission_error');
    expect((await readOnly.patch(`/plan_configurations/${configuration.id}`, { waiting_period_days: 5 })).status).toBe(403);
    const strategy = await readOnly.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy());
    expect(strategy.status).toBe(403);
    expect(strategy.body.type).toBe('permission_error');
    expect((await readOnly.get(`/plan_configurations/${configuration.id}`)).body).toEqual(configuration);
    expect(idsOf(await readOnly.get(`/plan_configurations?plan=${plan.id}`))).toEqual([configuration.id]);
  });
});

describe('findPlanConfigurationsForPlans', () => {
  it('when asked for some plans, then it returns their configurations oldest first, of this provider only', async () => {
    const { employer, plan, subclass } = await planWithSubclass();
    const other = await createPlan(t.admin, { employer: employer.id });
    const unrelated = await createPlan(t.admin, { employer: employer.id });
    const bodies = [{ plan: plan.id, required_subclass: subclass.id }, { plan: other.id }, { plan: plan.id }, { plan: unrelated.id }];
    const configurations = await createInSequence(t, bodies.length, (i) => createPlanConfiguration(t.admin, bodies[i]));
    const rows = await findPlanConfigurationsForPlans(t.database.db, t.providerId, [plan.id, other.id]);
    expect(rows.map((row) => row.id)).toEqual([configurations[0].id, configurations[1].id, configurations[2].id]);
    expect(await findPlanConfigurationsForPlans(t.database.db, 'prov_other', [plan.id])).toEqual([]);
    expect(await findPlanConfigurationsForPlans(t.database.db, t.providerId, [])).toEqual([]);
    const ofPlan = rows.filter((row) => row.plan_id === plan.id);
    expect(selectPlanConfiguration([subclass.id], ofPlan)?.id).toBe(configurations[0].id);
    expect(selectPlanConfiguration([], ofPlan)?.id).toBe(configurations[2].id);
  });
});
