import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createCarrier, createEmployer, createGroup, createSubclass } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { ageRates, compositeRates, contributionRule, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const LINES_OF_COVERAGE = [
  'medical',
  'dental',
  'vision',
  'life',
  'accidental_death',
  'short_term_disability',
  'long_term_disability',
  'accident',
  'critical_illness',
  'cancer',
  'hospital_indemnity',
  'healthcare_fsa',
  'limited_purpose_fsa',
  'dependent_care_fsa',
  'hsa',
];

/** The field_path of every input error, joined with dots (e.g. "age_rates.2.age"). */
function errorPaths(response: { body: { input_errors?: { field_path: string[] }[] } }): string[] {
  return (response.body.input_errors ?? []).map((error) => error.field_path.join('.'));
}

async function planBody(client: ApiClient = t.admin, overrides: Record<string, unknown> = {}) {
  const group = overrides.group ?? (await createGroup(client)).id;
  return {
    plan_name: 'Gold PPO 1500',
    line_of_coverage: 'medical',
    effective_start: '2026-01-01',
    effective_end: '2026-12-31',
    ...overrides,
    group,
  };
}

describe('POST /plans', () => {
  it('when a composite plan is created with every field, then 201 returns them all with the carrier and employer of its group', async () => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin, { legal_name: 'Aetna Life Insurance Company' });
    const group = await createGroup(t.admin, { employer: employer.id, carrier: carrier.id });
    const body = {
      group: group.id,
      plan_name: 'Gold PPO 1500',
      plan_type: 'ppo',
      line_of_coverage: 'medical',
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      premium_type: 'composite',
      composite_rates: compositeRates(),
      guaranteed_issue_volume: '50000.00',
      requires_primary_care_provider: true,
      aca_child_rating_limit: true,
      volume_rules: { increment: '1000.00', maximum: '100000.00' },
      rate_basis: 'flat',
      age_rating_date: 'plan_year_start',
      metadata: { carrier_plan_code: 'GPPO-1500', tier: 'gold' },
    };
    const response = await t.admin.post('/plans', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ...body,
      id: expect.stringMatching(/^plan_[A-Za-z0-9]{20}$/),
      carrier: carrier.id,
      employer: employer.id,
      age_rates: null,
      previous_plan: null,
      next_plan: null,
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when an age-banded plan is created, then 201 with its bands in the order given and no composite rates', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'age_banded', age_rates: ageRates() }));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ premium_type: 'age_banded', age_rates: ageRates(), composite_rates: null });
  });

  it('when a plan is created without a premium type or rates, then optional fields read as null, false and {}', async () => {
    const body = await planBody();
    const response = await t.admin.post('/plans', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      group: body.group,
      carrier: expect.any(String),
      employer: expect.any(String),
      plan_name: 'Gold PPO 1500',
      plan_type: null,
      line_of_coverage: 'medical',
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      premium_type: null,
      composite_rates: null,
      age_rates: null,
      guaranteed_issue_volume: null,
      requires_primary_care_provider: false,
      aca_child_rating_limit: false,
      volume_rules: null,
      rate_basis: 'flat',
      age_rating_date: 'coverage_start',
      previous_plan: null,
      next_plan: null,
      metadata: {},
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when optional fields are sent as null, then they read as null', async () => {
    const plan = await createPlan(t.admin, {
      plan_type: null,
      premium_type: null,
      composite_rates: null,
      age_rates: null,
      guaranteed_issue_volume: null,
    });
    expect(plan).toMatchObject({ plan_type: null, premium_type: null, composite_rates: null, age_rates: null, guaranteed_issue_volume: null });
  });

  it('when money strings have fewer than two decimals, then they are answered with two', async () => {
    const plan = await createPlan(t.admin, {
      premium_type: 'composite',
      composite_rates: compositeRates({ member: '500', member_family: '1500.5' }),
      guaranteed_issue_volume: '250000',
    });
    expect(plan.composite_rates).toMatchObject({ member: '500.00', member_family: '1500.50' });
    expect(plan.guaranteed_issue_volume).toBe('250000.00');
    const banded = await createPlan(t.admin, { premium_type: 'age_banded', age_rates: [{ age: 0, amount: '99.9' }] });
    expect(banded.age_rates).toEqual([{ age: 0, amount: '99.90' }]);
  });

  it('when a created plan is fetched, then it equals the create response', async () => {
    const plan = await createPlan(t.admin, { premium_type: 'age_banded', age_rates: ageRates(), metadata: { a: '1' }, requires_primary_care_provider: true });
    const fetched = await t.admin.get(`/plans/${plan.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(plan);
  });

  it.each(LINES_OF_COVERAGE)('when line_of_coverage is %s, then 201', async (line) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { line_of_coverage: line }));
    expect(response.status).toBe(201);
    expect(response.body.line_of_coverage).toBe(line);
  });

  it('when the plan year is a single day, then 201', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { effective_start: '2026-07-01', effective_end: '2026-07-01' }));
    expect(response.status).toBe(201);
  });

  it('when the plan year ends before it starts, then 400 naming effective_end', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { effective_start: '2026-01-01', effective_end: '2025-12-31' }));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['effective_end']);
  });

  it('when an employer is sent, then 400 naming it: the employer comes from the group', async () => {
    const body = await planBody(t.admin, { employer: 'er_fromclient' });
    const response = await t.admin.post('/plans', body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/plans', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['effective_end', 'effective_start', 'group', 'line_of_coverage', 'plan_name']);
  });

  it('when created with unknown fields (carrier, id), then 400 naming each', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { carrier: 'carr_x', id: 'plan_mine' }));
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['carrier', 'id']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an empty plan_name', { plan_name: '' }, 'plan_name'],
    ['a plan_name over 255', { plan_name: 'x'.repeat(256) }, 'plan_name'],
    ['a plan_type over 255', { plan_type: 'x'.repeat(256) }, 'plan_type'],
    ['an unknown line_of_coverage', { line_of_coverage: 'pet' }, 'line_of_coverage'],
    ['an unknown premium_type', { premium_type: 'tiered' }, 'premium_type'],
    ['an effective_start that is no calendar date', { effective_start: '2026-02-30' }, 'effective_start'],
    ['an effective_end with a time', { effective_end: '2026-12-31T00:00:00Z' }, 'effective_end'],
    ['a guaranteed_issue_volume with 3 decimals', { guaranteed_issue_volume: '1000.005' }, 'guaranteed_issue_volume'],
    ['a negative guaranteed_issue_volume', { guaranteed_issue_volume: '-1.00' }, 'guaranteed_issue_volume'],
    ['a numeric guaranteed_issue_volume', { guaranteed_issue_volume: 1000 }, 'guaranteed_issue_volume'],
    ['a string requires_primary_care_provider', { requires_primary_care_provider: 'true' }, 'requires_primary_care_provider'],
    ['metadata that is an array', { metadata: ['a'] }, 'metadata'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, overrides));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toContain(field);
  });

  it('when strings are exactly at their bounds, then 201', async () => {
    const plan = await createPlan(t.admin, { plan_name: 'N'.repeat(255), plan_type: 'T'.repeat(255) });
    expect(plan).toMatchObject({ plan_name: 'N'.repeat(255), plan_type: 'T'.repeat(255) });
  });
});

describe('plan premium types and rates', () => {
  it.each<[string, Record<string, unknown>]>([
    ['composite with composite_rates', { premium_type: 'composite', composite_rates: compositeRates() }],
    ['composite with composite_rates and age_rates null', { premium_type: 'composite', composite_rates: compositeRates(), age_rates: null }],
    ['age_banded with age_rates', { premium_type: 'age_banded', age_rates: ageRates() }],
    ['age_banded with age_rates and composite_rates null', { premium_type: 'age_banded', age_rates: ageRates(), composite_rates: null }],
    ['no premium_type and no rates', {}],
    ['premium_type null and rates null', { premium_type: null, composite_rates: null, age_rates: null }],
  ])('when the plan is %s, then 201', async (_case, overrides) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, overrides));
    expect(response.status).toBe(201);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['composite without composite_rates', { premium_type: 'composite' }, ['composite_rates']],
    ['composite with composite_rates null', { premium_type: 'composite', composite_rates: null }, ['composite_rates']],
    ['composite with age_rates instead', { premium_type: 'composite', age_rates: ageRates() }, ['composite_rates', 'age_rates']],
    ['composite with both kinds of rates', { premium_type: 'composite', composite_rates: compositeRates(), age_rates: ageRates() }, ['age_rates']],
    ['age_banded without age_rates', { premium_type: 'age_banded' }, ['age_rates']],
    ['age_banded with composite_rates instead', { premium_type: 'age_banded', composite_rates: compositeRates() }, ['composite_rates', 'age_rates']],
    ['age_banded with both kinds of rates', { premium_type: 'age_banded', composite_rates: compositeRates(), age_rates: ageRates() }, ['composite_rates']],
    ['no premium_type with composite_rates', { composite_rates: compositeRates() }, ['composite_rates']],
    ['no premium_type with age_rates', { age_rates: ageRates() }, ['age_rates']],
    [
      'premium_type null with both kinds of rates',
      { premium_type: null, composite_rates: compositeRates(), age_rates: ageRates() },
      ['composite_rates', 'age_rates'],
    ],
  ])('when the plan is %s, then 400 naming %j', async (_case, overrides, fields) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, overrides));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual([...fields].sort());
  });

  it('when composite_rates carry all five tiers, then each tier reads back with its rate', async () => {
    const rates = { member: '100.00', member_spouse: '200.00', member_child: '300.00', member_children: '400.00', member_family: '500.00' };
    const plan = await createPlan(t.admin, { premium_type: 'composite', composite_rates: rates });
    expect(plan.composite_rates).toEqual(rates);
    expect(Object.keys(plan.composite_rates)).toEqual(['member', 'member_spouse', 'member_child', 'member_children', 'member_family']);
    expect((await t.admin.get(`/plans/${plan.id}`)).body.composite_rates).toEqual(rates);
  });

  it.each(['member', 'member_spouse', 'member_child', 'member_children', 'member_family'])(
    'when composite_rates lack the %s tier, then 400 naming composite_rates.<tier>',
    async (tier) => {
      const rates: Record<string, unknown> = compositeRates();
      delete rates[tier];
      const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'composite', composite_rates: rates }));
      expect(response.status).toBe(400);
      expect(errorPaths(response)).toEqual([`composite_rates.${tier}`]);
    },
  );

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown tier', { employee: '100.00' }, 'composite_rates.employee'],
    ['a rate with three decimals', { member_child: '100.005' }, 'composite_rates.member_child'],
    ['a negative rate', { member: '-100.00' }, 'composite_rates.member'],
    ['a numeric rate', { member_family: 1500 }, 'composite_rates.member_family'],
    ['a rate with a thousands separator', { member_spouse: '1,080.00' }, 'composite_rates.member_spouse'],
  ])('when composite_rates hold %s, then 400 naming %s', async (_case, overrides, path) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'composite', composite_rates: compositeRates(overrides) }));
    expect(response.status).toBe(400);
    expect(errorPaths(response)).toEqual([path]);
  });

  it('when composite_rates is an empty object, then 400 naming each missing tier', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'composite', composite_rates: {} }));
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['member', 'member_child', 'member_children', 'member_family', 'member_spouse']);
  });

  it('when two age bands share an age, then 400 naming the later one as age_rates.N.age', async () => {
    const bands = [
      { age: 0, amount: '200.00' },
      { age: 30, amount: '350.00' },
      { age: 30, amount: '360.00' },
      { age: 40, amount: '450.00' },
      { age: 0, amount: '210.00' },
    ];
    const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'age_banded', age_rates: bands }));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorPaths(response)).toEqual(['age_rates.2.age', 'age_rates.4.age']);
    expect(response.body.input_errors[0].message).toContain('age_rates.1');
  });

  it('when there is one band per age from 0 to 120 (121 bands), then 201', async () => {
    const bands = Array.from({ length: 121 }, (_, age) => ({ age, amount: `${100 + age}.00` }));
    const plan = await createPlan(t.admin, { premium_type: 'age_banded', age_rates: bands });
    expect(plan.age_rates).toHaveLength(121);
    expect(plan.age_rates[120]).toEqual({ age: 120, amount: '220.00' });
  });

  it.each<[string, unknown, string]>([
    ['an empty list', [], 'age_rates'],
    ['122 bands', Array.from({ length: 122 }, (_, i) => ({ age: i % 121, amount: '1.00' })), 'age_rates'],
    ['an age of -1', [{ age: -1, amount: '100.00' }], 'age_rates.0.age'],
    [
      'an age of 121',
      [
        { age: 0, amount: '100.00' },
        { age: 121, amount: '100.00' },
      ],
      'age_rates.1.age',
    ],
    ['a fractional age', [{ age: 30.5, amount: '100.00' }], 'age_rates.0.age'],
    ['an age as a string', [{ age: '30', amount: '100.00' }], 'age_rates.0.age'],
    ['an amount with three decimals', [{ age: 0, amount: '100.001' }], 'age_rates.0.amount'],
    ['a band without an amount', [{ age: 0 }], 'age_rates.0.amount'],
    ['a band without an age', [{ amount: '100.00' }], 'age_rates.0.age'],
    ['a band with an unknown field', [{ age: 0, amount: '100.00', tobacco: true }], 'age_rates.0.tobacco'],
    ['an object instead of a list', { 0: '100.00' }, 'age_rates'],
  ])('when age_rates are %s, then 400 naming %s', async (_case, bands, path) => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { premium_type: 'age_banded', age_rates: bands }));
    expect(response.status).toBe(400);
    expect(errorPaths(response)).toContain(path);
  });

  it('when bands start at ages 0 and 120, then 201', async () => {
    const plan = await createPlan(t.admin, {
      premium_type: 'age_banded',
      age_rates: [
        { age: 120, amount: '1.00' },
        { age: 0, amount: '2.00' },
      ],
    });
    expect(plan.age_rates).toEqual([
      { age: 120, amount: '1.00' },
      { age: 0, amount: '2.00' },
    ]);
  });
});

describe('GET /plans', () => {
  it('when listed, then plans come newest first and page by page', async () => {
    const admin = await newProviderAdmin(t, 'plan-list');
    const group = await createGroup(admin);
    const plans = await createInSequence(t, 3, (i) => createPlan(admin, { group: group.id, plan_name: `Plan ${i}` }));
    const list = await admin.get('/plans');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(plans.map((p) => p.id).reverse());
    expect(list.body.results[0]).toEqual(plans[2]);
    const first = await admin.get('/plans?page_size=2');
    expect(idsOf(first)).toEqual([plans[2].id, plans[1].id]);
    expect(first.body.previous).toBeNull();
    const second = await admin.get(first.body.next);
    expect(idsOf(second)).toEqual([plans[0].id]);
    expect(second.body.next).toBeNull();
  });

  it('when listed with ?group=, then only that group’s plans come', async () => {
    const admin = await newProviderAdmin(t, 'plan-group');
    const employer = await createEmployer(admin);
    const [g1, g2] = [await createGroup(admin, { employer: employer.id }), await createGroup(admin, { employer: employer.id })];
    const plans = await createInSequence(t, 4, (i) => createPlan(admin, { group: i % 2 === 0 ? g1.id : g2.id }));
    expect(idsOf(await admin.get(`/plans?group=${g1.id}`))).toEqual([plans[2].id, plans[0].id]);
    expect(idsOf(await admin.get(`/plans?group=${g2.id}`))).toEqual([plans[3].id, plans[1].id]);
    expect(idsOf(await admin.get('/plans?group=grp_doesnotexist'))).toEqual([]);
  });

  it('when listed with ?employer=, then only that employer’s plans come', async () => {
    const admin = await newProviderAdmin(t, 'plan-employer');
    const [e1, e2] = [await createEmployer(admin), await createEmployer(admin)];
    const plans = await createInSequence(t, 4, (i) => createPlan(admin, { employer: i % 2 === 0 ? e1.id : e2.id }));
    expect(idsOf(await admin.get(`/plans?employer=${e1.id}`))).toEqual([plans[2].id, plans[0].id]);
    expect(idsOf(await admin.get(`/plans?employer=${e2.id}`))).toEqual([plans[3].id, plans[1].id]);
  });

  it('when listed with ?line_of_coverage=, then only plans of that line come; filters combine', async () => {
    const admin = await newProviderAdmin(t, 'plan-line');
    const [e1, e2] = [await createEmployer(admin), await createEmployer(admin)];
    const lines = ['medical', 'dental', 'medical', 'vision'];
    const plans = await createInSequence(t, 4, (i) => createPlan(admin, { employer: i < 3 ? e1.id : e2.id, line_of_coverage: lines[i] }));
    expect(idsOf(await admin.get('/plans?line_of_coverage=medical'))).toEqual([plans[2].id, plans[0].id]);
    expect(idsOf(await admin.get('/plans?line_of_coverage=dental'))).toEqual([plans[1].id]);
    expect(idsOf(await admin.get('/plans?line_of_coverage=hsa'))).toEqual([]);
    expect(idsOf(await admin.get(`/plans?line_of_coverage=vision&employer=${e1.id}`))).toEqual([]);
    expect(idsOf(await admin.get(`/plans?line_of_coverage=vision&employer=${e2.id}`))).toEqual([plans[3].id]);
  });

  it('when ?line_of_coverage= is not a line of coverage, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/plans?line_of_coverage=pet_insurance');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['line_of_coverage']);
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/plans?carrier=carr_x');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['carrier']);
  });
});

describe('PATCH /plans/{id}', () => {
  it('when patched, then only the given fields change and null clears optional ones', async () => {
    const plan = await createPlan(t.admin, {
      plan_type: 'ppo',
      premium_type: 'composite',
      composite_rates: compositeRates(),
      guaranteed_issue_volume: '10000.00',
      requires_primary_care_provider: true,
    });
    const response = await t.admin.patch(`/plans/${plan.id}`, {
      plan_name: 'Gold PPO 2000',
      plan_type: null,
      premium_type: null,
      composite_rates: null,
      guaranteed_issue_volume: null,
      requires_primary_care_provider: false,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...plan,
      plan_name: 'Gold PPO 2000',
      plan_type: null,
      premium_type: null,
      composite_rates: null,
      guaranteed_issue_volume: null,
      requires_primary_care_provider: false,
    });
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(response.body);
  });

  it('when one field is patched, then every other field stays', async () => {
    const plan = await createPlan(t.admin, { premium_type: 'age_banded', age_rates: ageRates(), plan_type: 'hmo', metadata: { a: '1' } });
    const response = await t.admin.patch(`/plans/${plan.id}`, { guaranteed_issue_volume: '20000' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...plan, guaranteed_issue_volume: '20000.00' });
  });

  it('when the rates alone are patched, then they are replaced as a whole', async () => {
    const plan = await createPlan(t.admin, { premium_type: 'composite', composite_rates: compositeRates() });
    const next = compositeRates({ member: '600.00' });
    const response = await t.admin.patch(`/plans/${plan.id}`, { composite_rates: next });
    expect(response.status).toBe(200);
    expect(response.body.composite_rates).toEqual(next);
  });

  it('when a composite plan is switched to age_banded in one PATCH (rates swapped), then 200', async () => {
    const plan = await createPlan(t.admin, { premium_type: 'composite', composite_rates: compositeRates() });
    const response = await t.admin.patch(`/plans/${plan.id}`, { premium_type: 'age_banded', age_rates: ageRates(), composite_rates: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ premium_type: 'age_banded', age_rates: ageRates(), composite_rates: null });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['premium_type alone to age_banded', { premium_type: 'age_banded' }, ['composite_rates', 'age_rates']],
    ['age_rates without clearing composite_rates', { premium_type: 'age_banded', age_rates: ageRates() }, ['composite_rates']],
    ['premium_type to null, keeping the rates', { premium_type: null }, ['composite_rates']],
    ['composite_rates to null, keeping premium_type', { composite_rates: null }, ['composite_rates']],
    ['age_rates added to a composite plan', { age_rates: ageRates() }, ['age_rates']],
  ])('when a composite plan is patched with %s, then 400 naming %j and nothing changes', async (_case, body, fields) => {
    const plan = await createPlan(t.admin, { premium_type: 'composite', composite_rates: compositeRates() });
    const response = await t.admin.patch(`/plans/${plan.id}`, { ...body, plan_name: 'Changed' });
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual([...fields].sort());
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);
  });

  it('when a plan without premium type is given rates alone, then 400; with its premium type, then 200', async () => {
    const plan = await createPlan(t.admin);
    const rejected = await t.admin.patch(`/plans/${plan.id}`, { composite_rates: compositeRates() });
    expect(rejected.status).toBe(400);
    expect(errorFields(rejected)).toEqual(['composite_rates']);
    const accepted = await t.admin.patch(`/plans/${plan.id}`, { premium_type: 'composite', composite_rates: compositeRates() });
    expect(accepted.status).toBe(200);
    expect(accepted.body.composite_rates).toEqual(compositeRates());
  });

  it('when patched with duplicate band ages, then 400 naming age_rates.N.age', async () => {
    const plan = await createPlan(t.admin, { premium_type: 'age_banded', age_rates: ageRates() });
    const response = await t.admin.patch(`/plans/${plan.id}`, {
      age_rates: [
        { age: 18, amount: '1.00' },
        { age: 18, amount: '2.00' },
      ],
    });
    expect(response.status).toBe(400);
    expect(errorPaths(response)).toEqual(['age_rates.1.age']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['effective_end before the current start', { effective_end: '2025-12-31' }],
    ['effective_start after the current end', { effective_start: '2027-01-01' }],
    ['both dates out of order', { effective_start: '2026-06-01', effective_end: '2026-05-31' }],
  ])('when patched with %s, then 400 naming effective_end', async (_case, body) => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.patch(`/plans/${plan.id}`, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['effective_end']);
  });

  it('when the plan year is moved as a whole, then 200', async () => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.patch(`/plans/${plan.id}`, { effective_start: '2027-01-01', effective_end: '2027-12-31' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ effective_start: '2027-01-01', effective_end: '2027-12-31' });
  });

  it.each<[string, unknown]>([
    ['group', 'grp_other'],
    ['line_of_coverage', 'dental'],
    ['employer', 'er_other'],
    ['carrier', 'carr_other'],
  ])('when %s is patched, then 400 naming it and the plan keeps its value', async (field, value) => {
    const plan = await createPlan(t.admin);
    const response = await t.admin.patch(`/plans/${plan.id}`, { [field]: value });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);
  });

  it.each(['plan_name', 'effective_start', 'effective_end', 'requires_primary_care_provider'])(
    'when required field %s is patched to null, then 400 naming it',
    async (field) => {
      const plan = await createPlan(t.admin);
      const response = await t.admin.patch(`/plans/${plan.id}`, { [field]: null });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual([field]);
    },
  );

  it('when metadata is patched, then it is merged: overwrite, "" removes, absent keys stay', async () => {
    const plan = await createPlan(t.admin, { metadata: { a: '1', b: '2', c: '3' } });
    const response = await t.admin.patch(`/plans/${plan.id}`, { metadata: { a: 'one', b: '', d: '4' } });
    expect(response.status).toBe(200);
    expect(response.body.metadata).toEqual({ a: 'one', c: '3', d: '4' });
  });

  it('when the group’s carrier changes, then the plan answers the new carrier', async () => {
    const group = await createGroup(t.admin);
    const plan = await createPlan(t.admin, { group: group.id });
    const newCarrier = await createCarrier(t.admin, { legal_name: 'Cigna Health and Life Insurance Company' });
    expect((await t.admin.patch(`/groups/${group.id}`, { carrier: newCarrier.id })).status).toBe(200);
    expect((await t.admin.get(`/plans/${plan.id}`)).body.carrier).toBe(newCarrier.id);
    expect((await t.admin.patch(`/plans/${plan.id}`, { plan_name: 'Renamed' })).body.carrier).toBe(newCarrier.id);
    expect(idsOf(await t.admin.get(`/plans?group=${group.id}`))).toEqual([plan.id]);
    expect((await t.admin.get(`/plans?group=${group.id}`)).body.results[0].carrier).toBe(newCarrier.id);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/plans/plan_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/plans/plan%20bad')).status).toBe(404);
    expect((await t.admin.patch('/plans/plan_doesnotexist', { plan_name: 'x' })).status).toBe(404);
  });
});

describe('plan references and tenancy', () => {
  it('when the group does not exist, then 400 naming group', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { group: 'grp_doesnotexist' }));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['group']);
  });

  it('when the group does not exist and the rates are inconsistent, then 400 naming both', async () => {
    const response = await t.admin.post('/plans', await planBody(t.admin, { group: 'grp_doesnotexist', premium_type: 'composite' }));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['group', 'composite_rates']);
  });

  it('when the group belongs to another provider, then 400 naming group and no plan is created there', async () => {
    const other = await newProviderAdmin(t, 'plan-refs');
    const theirs = await createGroup(other);
    const response = await t.admin.post('/plans', await planBody(t.admin, { group: theirs.id }));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['group']);
    expect(idsOf(await other.get(`/plans?group=${theirs.id}`))).toEqual([]);
  });

  it('when another provider reads, patches or lists a plan, then 404 and it is absent from their list', async () => {
    const other = await newProviderAdmin(t, 'plan-tenant');
    const plan = await createPlan(t.admin);
    expect((await other.get(`/plans/${plan.id}`)).status).toBe(404);
    const patched = await other.patch(`/plans/${plan.id}`, { plan_name: 'Hijacked' });
    expect(patched.status).toBe(404);
    expect(patched.body.type).toBe('not_found');
    expect(idsOf(await other.get('/plans?page_size=100'))).not.toContain(plan.id);
    expect(idsOf(await other.get(`/plans?group=${plan.group}`))).toEqual([]);
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);
  });

  it('when an employer key creates a plan on its own group, then 201; on another employer’s group, then 400 naming group', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const carrier = await createCarrier(t.admin);
    const own = await createGroup(t.admin, { employer: employer.id, carrier: carrier.id });
    const foreign = await createGroup(t.admin, { carrier: carrier.id });
    const created = await client.post('/plans', await planBody(client, { group: own.id }));
    expect(created.status).toBe(201);
    expect(created.body.employer).toBe(employer.id);
    const refused = await client.post('/plans', await planBody(client, { group: foreign.id }));
    expect(refused.status).toBe(400);
    expect(errorFields(refused)).toEqual(['group']);
    expect(idsOf(await t.admin.get(`/plans?group=${foreign.id}`))).toEqual([]);
  });

  it('when an employer key reads, patches or lists, then it sees only its employer’s plans', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const mine = await createPlan(t.admin, { employer: employer.id });
    const theirs = await createPlan(t.admin);
    expect((await client.get(`/plans/${mine.id}`)).body).toEqual(mine);
    expect((await client.get(`/plans/${theirs.id}`)).status).toBe(404);
    expect((await client.patch(`/plans/${theirs.id}`, { plan_name: 'Hijacked' })).status).toBe(404);
    expect((await t.admin.get(`/plans/${theirs.id}`)).body).toEqual(theirs);
    const patched = await client.patch(`/plans/${mine.id}`, { plan_name: 'Own Renamed' });
    expect(patched.status).toBe(200);
    expect(idsOf(await client.get('/plans?page_size=100'))).toEqual([mine.id]);
    expect(idsOf(await client.get(`/plans?employer=${theirs.employer}`))).toEqual([]);
    expect(idsOf(await client.get(`/plans?group=${theirs.group}`))).toEqual([]);
  });

  it('when a read-only key writes, then 403 on POST and PATCH; it reads (limited to its employer if it has one)', async () => {
    const readOnly = await t.client('read_only');
    const plan = await createPlan(t.admin);
    const created = await readOnly.post('/plans', await planBody(t.admin));
    expect(created.status).toBe(403);
    expect(created.body.type).toBe('permission_error');
    const patched = await readOnly.patch(`/plans/${plan.id}`, { plan_name: 'Read only' });
    expect(patched.status).toBe(403);
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);
    expect((await readOnly.get(`/plans/${plan.id}`)).body).toEqual(plan);
    const limited = await t.client('read_only', { employer: (await createEmployer(t.admin)).id });
    expect((await limited.get(`/plans/${plan.id}`)).status).toBe(404);
    expect(idsOf(await limited.get('/plans'))).toEqual([]);
  });
});

describe('renewal links by PATCH', () => {
  /** A plan year and the next one, in one group (fresh each time). */
  async function twoYears(client: ApiClient = t.admin, groupOverrides: Record<string, unknown> = {}) {
    const group = await createGroup(client, groupOverrides);
    const current = await createPlan(client, { group: group.id, plan_name: 'Gold PPO 2026' });
    const next = await createPlan(client, { group: group.id, plan_name: 'Gold PPO 2027', effective_start: '2027-01-01', effective_end: '2027-12-31' });
    return { group, current, next };
  }
  const get = async (id: string) => (await t.admin.get(`/plans/${id}`)).body;
  const eventsOf = async (id: string) => (await t.admin.get(`/events?object_id=${id}`)).body.results as { event_type: string; data: Record<string, unknown> }[];

  it("when next_plan names next year's plan of the same group and line, then both sides are linked, each with a plan.updated event; null unlinks both", async () => {
    const { current, next } = await twoYears();
    const linked = await t.admin.patch(`/plans/${current.id}`, { next_plan: next.id });
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({ ...current, next_plan: next.id });
    expect(await get(next.id)).toEqual({ ...next, previous_plan: current.id });
    for (const [plan, data] of [
      [current.id, { previous_plan: null, next_plan: next.id }],
      [next.id, { previous_plan: current.id, next_plan: null }],
    ] as const) {
      const [latest] = await eventsOf(plan);
      expect(latest).toMatchObject({ event_type: 'plan.updated', data: { line_of_coverage: 'medical', ...data } });
    }
    expect((await t.admin.patch(`/plans/${current.id}`, { next_plan: next.id })).status).toBe(200);

    const unlinked = await t.admin.patch(`/plans/${current.id}`, { next_plan: null });
    expect(unlinked.body).toEqual(current);
    expect(await get(next.id)).toEqual(next);
    expect((await eventsOf(next.id)).map((event) => event.event_type)).toEqual(['plan.updated', 'plan.updated', 'plan.created']);
  });

  it('when previous_plan names the plan a plan renews, then the link is the same as from the other side', async () => {
    const { current, next } = await twoYears();
    const linked = await t.admin.patch(`/plans/${next.id}`, { previous_plan: current.id });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ previous_plan: current.id, next_plan: null });
    expect(await get(current.id)).toMatchObject({ previous_plan: null, next_plan: next.id });
    // The successor is listed with its link too.
    const listed = (await t.admin.get(`/plans?group=${next.group}`)).body.results as { id: string; previous_plan: string | null }[];
    expect(new Map(listed.map((plan) => [plan.id, plan.previous_plan]))).toEqual(
      new Map([
        [next.id, current.id],
        [current.id, null],
      ]),
    );
  });

  it('when the named plan is of another group or line, starts with a gap or an overlap, or is the plan itself, then 400 naming the field and nothing is linked', async () => {
    const { group, current } = await twoYears();
    const otherGroup = await createPlan(t.admin, { effective_start: '2027-01-01', effective_end: '2027-12-31' });
    const dental = await createPlan(t.admin, { group: group.id, line_of_coverage: 'dental', effective_start: '2027-01-01', effective_end: '2027-12-31' });
    const gap = await createPlan(t.admin, { group: group.id, effective_start: '2027-02-01', effective_end: '2027-12-31' });
    const overlap = await createPlan(t.admin, { group: group.id, effective_start: '2026-07-01', effective_end: '2027-06-30' });
    for (const [named, message] of [
      [otherGroup.id, /same group/],
      [dental.id, /line of coverage/],
      [gap.id, /starts the day after it ends: 2027-01-01/],
      [overlap.id, /starts the day after it ends: 2027-01-01/],
      [current.id, /cannot renew itself/],
      ['plan_doesnotexist', /No such plan/],
    ] as const) {
      const refused = await t.admin.patch(`/plans/${current.id}`, { next_plan: named, plan_name: 'Renamed' });
      expect(refused.status, named).toBe(400);
      expect(errorPaths(refused), named).toEqual(['next_plan']);
      expect(refused.body.input_errors[0].message, named).toMatch(message);
    }
    expect(await get(current.id)).toEqual(current);
    for (const plan of [otherGroup, dental, gap, overlap]) expect(await get(plan.id)).toEqual(plan);
  });

  it("when the named plan is already linked to a third plan, then 400: at most one successor and one predecessor; the plan's own link is replaced", async () => {
    const { group, current, next } = await twoYears();
    const rival = await createPlan(t.admin, { group: group.id, plan_name: 'Gold PPO 2027 bis', effective_start: '2027-01-01', effective_end: '2027-12-31' });
    const rivalPredecessor = await createPlan(t.admin, {
      group: group.id,
      plan_name: 'Silver 2026',
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
    });
    expect((await t.admin.patch(`/plans/${current.id}`, { next_plan: next.id })).status).toBe(200);

    const secondSuccessor = await t.admin.patch(`/plans/${rival.id}`, { previous_plan: current.id });
    expect(errorPaths(secondSuccessor)).toEqual(['previous_plan']);
    expect(secondSuccessor.body.input_errors[0].message).toContain(`already renewed by plan ${next.id}`);
    const secondPredecessor = await t.admin.patch(`/plans/${rivalPredecessor.id}`, { next_plan: next.id });
    expect(errorPaths(secondPredecessor)).toEqual(['next_plan']);
    expect(secondPredecessor.body.input_errors[0].message).toContain(`already renews plan ${current.id}`);
    // Backwards is refused by the dates: a chain of renewals never comes back to a plan.
    const cycle = await t.admin.patch(`/plans/${next.id}`, { next_plan: current.id });
    expect(errorPaths(cycle)).toEqual(['next_plan']);
    expect(await get(current.id)).toMatchObject({ previous_plan: null, next_plan: next.id });
    expect(await get(next.id)).toMatchObject({ previous_plan: current.id, next_plan: null });
    expect(await get(rival.id)).toEqual(rival);
    expect(await get(rivalPredecessor.id)).toEqual(rivalPredecessor);

    // The plan's own next_plan, given anew, replaces its successor: the old one loses its side of the link.
    const replaced = await t.admin.patch(`/plans/${current.id}`, { next_plan: rival.id });
    expect(replaced.status).toBe(200);
    expect(replaced.body.next_plan).toBe(rival.id);
    expect(await get(next.id)).toEqual(next);
    expect(await get(rival.id)).toEqual({ ...rival, previous_plan: current.id });
    expect((await eventsOf(next.id))[0]).toMatchObject({ event_type: 'plan.updated', data: { previous_plan: null } });
  });

  it("when a linked plan's dates move away from its neighbour, then 400 at the date; unlinking in the same PATCH lets them move", async () => {
    const { current, next } = await twoYears();
    expect((await t.admin.patch(`/plans/${current.id}`, { next_plan: next.id })).status).toBe(200);
    const end = await t.admin.patch(`/plans/${current.id}`, { effective_end: '2026-11-30' });
    expect(end.status).toBe(400);
    expect(errorPaths(end)).toEqual(['effective_end']);
    expect(end.body.input_errors[0].message).toContain('must end on 2026-12-31');
    const start = await t.admin.patch(`/plans/${next.id}`, { effective_start: '2027-02-01' });
    expect(errorPaths(start)).toEqual(['effective_start']);
    // The whole plan year moved with its neighbour kept in step is fine; so is a move with the link dropped.
    expect((await t.admin.patch(`/plans/${next.id}`, { effective_end: '2027-06-30' })).status).toBe(200);
    const moved = await t.admin.patch(`/plans/${current.id}`, { effective_end: '2026-11-30', next_plan: null });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ effective_end: '2026-11-30', next_plan: null });
    expect(await get(next.id)).toMatchObject({ previous_plan: null });
  });

  it('when the named plan belongs to another provider or another employer of an employer key, then 400 "No such plan" and nothing changes', async () => {
    const { current } = await twoYears();
    const other = await newProviderAdmin(t, 'plan-links');
    const theirs = await createPlan(other, { effective_start: '2027-01-01', effective_end: '2027-12-31' });
    const refused = await t.admin.patch(`/plans/${current.id}`, { next_plan: theirs.id });
    expect(errorPaths(refused)).toEqual(['next_plan']);
    expect(refused.body.input_errors[0].message).toBe('No such plan.');
    expect((await other.get(`/plans/${theirs.id}`)).body).toEqual(theirs);
    expect((await other.patch(`/plans/${current.id}`, { next_plan: theirs.id })).status).toBe(404);

    const { employer, client } = await createEmployerWithKey(t);
    const carrier = await createCarrier(t.admin);
    const mine = await twoYears(t.admin, { employer: employer.id, carrier: carrier.id });
    const foreign = await createPlan(t.admin, { effective_start: '2027-01-01', effective_end: '2027-12-31' });
    const hidden = await client.patch(`/plans/${mine.current.id}`, { next_plan: foreign.id });
    expect(errorPaths(hidden)).toEqual(['next_plan']);
    expect(hidden.body.input_errors[0].message).toBe('No such plan.');
    expect((await client.patch(`/plans/${mine.current.id}`, { next_plan: mine.next.id })).body.next_plan).toBe(mine.next.id);
  });
});

describe('POST /plans/{id}/renew', () => {
  /** A priced plan of a new employer with two configurations (one for a subclass), each with a contribution strategy. */
  async function pricedPlan(client: ApiClient = t.admin) {
    const employer = await createEmployer(t.admin);
    const group = await createGroup(t.admin, { employer: employer.id });
    const subclass = await createSubclass(t.admin, { employer: employer.id, name: 'Union' });
    const plan = await createPlan(client, {
      group: group.id,
      plan_name: 'Gold PPO',
      plan_type: 'ppo',
      premium_type: 'composite',
      composite_rates: compositeRates(),
      guaranteed_issue_volume: '50000.00',
      requires_primary_care_provider: true,
      metadata: { carrier_plan_code: 'GPPO', cycle: '2026' },
    });
    const open = await createPlanConfiguration(t.admin, { plan: plan.id, waiting_period_days: 30, dependent_age_limit: 26, metadata: { note: 'everyone' } });
    const union = await createPlanConfiguration(t.admin, {
      plan: plan.id,
      required_subclass: subclass.id,
      termination_policy: 'end_of_month',
      dependent_age_out_rule: 'end_of_year',
    });
    for (const [configuration, contribution] of [
      [open, '75'],
      [union, '90'],
    ] as const) {
      const strategy = contributionStrategy({ member: contributionRule(contribution, '0.00', '600.00') });
      expect((await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, strategy)).status).toBe(200);
    }
    return { employer, group, subclass, plan, configurations: [open, union] };
  }
  const configurationsOf = async (plan: string) => (await t.admin.get(`/plan_configurations?plan=${plan}&page_size=100`)).body.results as any[];
  const newRates = compositeRates({ member: '540.00', member_family: '1720.00' });

  it("when a plan is renewed with new dates and rates, then 201: next year's plan copies everything else, both are linked, and its configurations come with their contribution strategies", async () => {
    const { plan, configurations } = await pricedPlan();
    t.clock.advance(1000);
    const response = await t.admin.post(`/plans/${plan.id}/renew`, { effective_start: '2027-01-01', effective_end: '2027-12-31', composite_rates: newRates });
    expect(response.status).toBe(201);
    const renewed = response.body;
    expect(renewed).toEqual({
      ...plan,
      id: expect.stringMatching(/^plan_/),
      effective_start: '2027-01-01',
      effective_end: '2027-12-31',
      composite_rates: newRates,
      previous_plan: plan.id,
      next_plan: null,
      created_at: t.clock.now().toISOString(),
    });
    expect(renewed.id).not.toBe(plan.id);
    expect((await t.admin.get(`/plans/${renewed.id}`)).body).toEqual(renewed);
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual({ ...plan, next_plan: renewed.id });

    const copies = await configurationsOf(renewed.id);
    const strip = ({ id: _id, plan: _plan, created_at: _createdAt, ...rest }: any) => rest;
    const byWaitingPeriod = (a: any, b: any) => a.waiting_period_days - b.waiting_period_days;
    expect(copies.map(strip).sort(byWaitingPeriod)).toEqual((await configurationsOf(plan.id)).map(strip).sort(byWaitingPeriod));
    expect(copies.every((copy) => copy.plan === renewed.id && copy.created_at === renewed.created_at)).toBe(true);
    // Which configuration applies first among equals follows (created_at, id), as lists do: the copies keep the originals' order.
    expect(copies.map((copy) => copy.waiting_period_days)).toEqual((await configurationsOf(plan.id)).map((original) => original.waiting_period_days));
    expect(copies.map((copy) => copy.contribution_strategy.member.contribution).sort()).toEqual(['75', '90']);
    // The originals are untouched.
    expect((await configurationsOf(plan.id)).map((configuration) => configuration.id).sort()).toEqual(
      configurations.map((configuration) => configuration.id).sort(),
    );
  });

  it('when renewed, then plan.created for the new plan, plan.updated for the old one and plan_configuration.created for each copy are recorded together', async () => {
    const { plan } = await pricedPlan();
    const renewed = (await t.admin.post(`/plans/${plan.id}/renew`, { effective_end: '2027-12-31' })).body;
    const [created] = (await t.admin.get(`/events?object_id=${renewed.id}`)).body.results;
    expect(created).toMatchObject({
      event_type: 'plan.created',
      data: { employer: plan.employer, group: plan.group, line_of_coverage: 'medical', previous_plan: plan.id, next_plan: null },
    });
    const [updated] = (await t.admin.get(`/events?object_id=${plan.id}`)).body.results;
    expect(updated).toMatchObject({ event_type: 'plan.updated', data: { previous_plan: null, next_plan: renewed.id } });
    const copies = await configurationsOf(renewed.id);
    for (const copy of copies) {
      const [event] = (await t.admin.get(`/events?object_id=${copy.id}`)).body.results;
      expect(event).toMatchObject({ event_type: 'plan_configuration.created', data: { plan: renewed.id }, created_at: created.created_at });
    }
  });

  it('when only the end is given, then the renewal starts the day after the plan ends at the same rates; a name, guaranteed issue and metadata may change', async () => {
    const { plan } = await pricedPlan();
    const renewed = await t.admin.post(`/plans/${plan.id}/renew`, {
      effective_end: '2027-12-31',
      plan_name: 'Gold PPO 2027',
      guaranteed_issue_volume: '40000',
      metadata: { cycle: '2027', carrier_plan_code: '' },
    });
    expect(renewed.status).toBe(201);
    expect(renewed.body).toMatchObject({
      plan_name: 'Gold PPO 2027',
      effective_start: '2027-01-01',
      composite_rates: plan.composite_rates,
      guaranteed_issue_volume: '40000.00',
      metadata: { cycle: '2027' },
    });
    const banded = await t.admin.post(`/plans/${(await pricedPlan()).plan.id}/renew`, {
      effective_end: '2027-12-31',
      premium_type: 'age_banded',
      composite_rates: null,
      age_rates: ageRates(),
    });
    expect(banded.body).toMatchObject({ premium_type: 'age_banded', composite_rates: null, age_rates: ageRates() });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no effective_end', {}, ['effective_end']],
    ['a start that is not the day after the plan ends', { effective_start: '2027-02-01', effective_end: '2027-12-31' }, ['effective_start']],
    ['a start inside the plan year', { effective_start: '2026-07-01', effective_end: '2027-06-30' }, ['effective_start']],
    ['an end before the start', { effective_end: '2026-12-01' }, ['effective_end']],
    ['age_banded without age_rates', { effective_end: '2027-12-31', premium_type: 'age_banded' }, ['composite_rates', 'age_rates']],
    [
      'fields a renewal copies (group, line_of_coverage)',
      { effective_end: '2027-12-31', group: 'grp_x', line_of_coverage: 'dental' },
      ['group', 'line_of_coverage'],
    ],
    ['an effective_end that is no calendar date', { effective_end: '2027-02-30' }, ['effective_end']],
  ])('when renewed with %s, then 400 naming the fields and nothing is created', async (_case, body, fields) => {
    const { plan } = await pricedPlan();
    const response = await t.admin.post(`/plans/${plan.id}/renew`, body);
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual([...fields].sort());
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);
    expect(idsOf(await t.admin.get(`/plans?group=${plan.group}`))).toEqual([plan.id]);
  });

  it('when the plan is already renewed, then 409 invalid_state naming its successor, and nothing is created', async () => {
    const { plan } = await pricedPlan();
    const renewed = (await t.admin.post(`/plans/${plan.id}/renew`, { effective_end: '2027-12-31' })).body;
    const again = await t.admin.post(`/plans/${plan.id}/renew`, { effective_end: '2027-12-31' });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('invalid_state');
    expect(again.body.message).toContain(renewed.id);
    expect(idsOf(await t.admin.get(`/plans?group=${plan.group}`)).sort()).toEqual([plan.id, renewed.id].sort());
    // The renewal renews in turn.
    const third = await t.admin.post(`/plans/${renewed.id}/renew`, { effective_end: '2028-12-31' });
    expect(third.body).toMatchObject({ effective_start: '2028-01-01', previous_plan: renewed.id });
  });

  it("when another provider, another employer's key or a read-only key renews, then 404, 404 and 403; an unknown id is 404", async () => {
    const { plan } = await pricedPlan();
    const other = await newProviderAdmin(t, 'plan-renew');
    const body = { effective_end: '2027-12-31' };
    expect((await other.post(`/plans/${plan.id}/renew`, body)).status).toBe(404);
    const { client } = await createEmployerWithKey(t);
    const foreign = await client.post(`/plans/${plan.id}/renew`, body);
    expect(foreign.status).toBe(404);
    expect(foreign.body.type).toBe('not_found');
    expect((await (await t.client('read_only')).post(`/plans/${plan.id}/renew`, body)).status).toBe(403);
    expect((await t.admin.post('/plans/plan_doesnotexist/renew', body)).status).toBe(404);
    expect((await t.admin.get(`/plans/${plan.id}`)).body).toEqual(plan);

    const own = await createEmployerWithKey(t);
    const ownPlan = await createPlan(t.admin, { employer: own.employer.id });
    const renewed = await own.client.post(`/plans/${ownPlan.id}/renew`, body);
    expect(renewed.status).toBe(201);
    expect(renewed.body).toMatchObject({ employer: own.employer.id, previous_plan: ownPlan.id });
  });
});
