import { afterEach, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';
import { ok } from '../helpers/test-app.ts';

// Plans priced per unit of volume (life per $1,000, disability per $100 of monthly benefit), age-banded
// voluntary life on the plan's age date, guaranteed issue per person type, late entrants' EOI, and EOI
// decisions after approval. Clock: 2026-03-02; plan year 2026.

const world = enrollmentWorldPerFile();
const TODAY = '2026-03-02T15:00:00.000Z';
afterEach(() => world.t.clock.set(TODAY));

const tiers = (rate: string) => ({ member: rate, member_spouse: rate, member_child: rate, member_children: rate, member_family: rate });

async function plan(overrides: Record<string, unknown>) {
  const created = await createPlan(world.w.admin, {
    group: world.w.groups.manualGroup.id,
    plan_name: 'Voluntary Life',
    line_of_coverage: 'life',
    ...overrides,
  });
  await createPlanConfiguration(world.w.admin, { plan: created.id });
  return created as { id: string };
}

/** Basic life at $0.15 per $1,000; guaranteed issue 50,000 for the member, 25,000 for a spouse, 10,000 for a child. */
function lifePer1000(extra: Record<string, unknown> = {}) {
  return plan({
    premium_type: 'composite',
    composite_rates: tiers('0.15'),
    rate_basis: 'per_1000_volume',
    guaranteed_issue_volume: '50000',
    volume_rules: { spouse_guaranteed_issue: '25000', child_guaranteed_issue: '10000' },
    ...extra,
  });
}

/** A member of the world's employer with a spouse and a child. */
async function family(overrides: Record<string, unknown> = {}) {
  const { admin, employer } = world.w;
  const member = await createMember(admin, { employer: employer.id, dob: '1985-05-05', hire_date: '2025-01-01', ...overrides });
  const spouse = await createDependent(admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1990-06-01' });
  const child = await createDependent(admin, { member: member.id, member_relationship: 'child', first_name: 'Kim', dob: '2015-06-01' });
  return { member: member.id as string, spouse: spouse.id as string, child: child.id as string };
}

/** A qle enrollment (employment_change on 2026-02-27, coverage from 2026-04-01) of `member` electing `plans`. */
async function enroll(member: string, plans: Record<string, unknown>[], overrides: Record<string, unknown> = {}) {
  return ok(
    world.w.admin.post('/enrollments', {
      member,
      category: 'qle',
      reason: 'employment_change',
      change_date: '2026-02-27',
      effective_start: '2026-04-01',
      enrolled_plans: plans,
      ...overrides,
    }),
    201,
  );
}

async function approve(enrollment: { id: string }) {
  await ok(world.w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
  return ok(world.w.admin.post(`/enrollments/${enrollment.id}/approve`));
}

async function coverageOn(member: string, date: string) {
  const body = await ok(world.w.admin.get(`/members/${member}/coverage?date=${date}`));
  return body.coverage as { line_of_coverage: string; volume: string | null; premium: string | null; enrolled_plan: string; enrollment: string }[];
}

async function enrollmentsOf(member: string) {
  return (await ok(world.w.admin.get(`/enrollments?member=${member}&page_size=100`))).results as {
    id: string;
    status: string;
    category: string;
    reason: string | null;
    effective_start: string;
  }[];
}

describe('rate basis', () => {
  it.each([
    ['per_1000_volume', 'medical', 'composite', 'per_1000_volume rates apply to life, accidental_death, critical_illness plans; this plan is medical.'],
    [
      'per_100_monthly_benefit',
      'life',
      'composite',
      'per_100_monthly_benefit rates apply to short_term_disability, long_term_disability plans; this plan is life.',
    ],
    ['per_1000_volume', 'life', null, 'per_1000_volume needs rates to apply: premium_type composite or age_banded.'],
  ] as const)('when a plan rated %s on %s with premium type %s is created, then 400 at rate_basis', async (basis, line, premiumType, message) => {
    const response = await world.w.admin.post('/plans', {
      group: world.w.groups.manualGroup.id,
      plan_name: 'Rated',
      line_of_coverage: line,
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      rate_basis: basis,
      ...(premiumType ? { premium_type: premiumType, composite_rates: tiers('1.00') } : {}),
    });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toMatchObject([{ field_path: ['rate_basis'], message }]);
  });

  it('when a medical plan is patched to a per-unit basis, then 400; a life plan takes it', async () => {
    const medical = await world.w.admin.patch(`/plans/${world.w.plans.medical.id}`, { rate_basis: 'per_1000_volume' });
    expect(medical.status).toBe(400);
    const life = await plan({ premium_type: 'composite', composite_rates: tiers('0.20') });
    const patched = await ok(world.w.admin.patch(`/plans/${life.id}`, { rate_basis: 'per_1000_volume', age_rating_date: 'plan_year_start' }));
    expect(patched).toMatchObject({ rate_basis: 'per_1000_volume', age_rating_date: 'plan_year_start' });
  });

  it("when life is rated per $1,000, then the premium is the rate on every covered person's volume in force", async () => {
    const people = await family();
    const life = await lifePer1000();
    const alone = await enroll(people.member, [{ plan: life.id, requested_volume: '50000' }]);
    expect(alone.enrolled_plans[0]).toMatchObject({ volume: '50000.00', premium: '7.50', employer_contribution: '0.00', member_contribution: '7.50' });
    const withSpouse = await enroll(people.member, [
      { plan: life.id, requested_volume: '50000', enrolled_dependents: [{ dependent: people.spouse, requested_volume: '20000' }] },
    ]);
    expect(withSpouse.enrolled_plans[0]).toMatchObject({ premium: '10.50' });
  });

  it.each([
    ['50400', '0.50'],
    ['50500', '0.51'],
  ])('when 0.01 per 1,000 is charged on %s, then the premium is %s (half a cent rounds up, once)', async (volume, premium) => {
    const people = await family();
    const life = await plan({ premium_type: 'composite', composite_rates: tiers('0.01'), rate_basis: 'per_1000_volume' });
    const enrollment = await enroll(people.member, [{ plan: life.id, requested_volume: volume }]);
    expect(enrollment.enrolled_plans[0].premium).toBe(premium);
  });

  it('when long-term disability is rated per $100 of monthly benefit, then a 3,000 benefit at 0.45 costs 13.50', async () => {
    const people = await family();
    const ltd = await plan({
      plan_name: 'LTD',
      line_of_coverage: 'long_term_disability',
      premium_type: 'composite',
      composite_rates: tiers('0.45'),
      rate_basis: 'per_100_monthly_benefit',
    });
    const enrollment = await enroll(people.member, [{ plan: ltd.id, requested_volume: '3000' }]);
    expect(enrollment.enrolled_plans[0]).toMatchObject({ volume: '3000.00', premium: '13.50' });
  });

  it('when a per-unit plan is elected without a volume for a covered person, then submission is a 400 naming it', async () => {
    const people = await family();
    const life = await lifePer1000();
    const enrollment = await enroll(people.member, [{ plan: life.id, enrolled_dependents: [{ dependent: people.spouse }] }]);
    const submitted = await world.w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
    expect(submitted.status).toBe(400);
    expect(submitted.body.input_errors).toMatchObject([
      { field_path: ['enrolled_plans', '0', 'requested_volume'], message: 'Required: the plan is rated per $1,000 of volume.' },
      { field_path: ['enrolled_plans', '0', 'enrolled_dependents', '0', 'requested_volume'], message: 'Required: the plan is rated per $1,000 of volume.' },
    ]);
  });
});

describe("age-banded voluntary life on the plan's age date", () => {
  const bands = [
    { age: 0, amount: '0.05' },
    { age: 30, amount: '0.08' },
    { age: 40, amount: '0.12' },
  ];
  const voluntaryLife = (ageDate: string) => plan({ premium_type: 'age_banded', age_rates: bands, rate_basis: 'per_1000_volume', age_rating_date: ageDate });

  it.each([
    // 40 on the plan year's start (2026-01-01): the 40 band; one day younger: the 30 band, though 40 at the coverage start.
    ['plan_year_start', '1986-01-01', '12.00'],
    ['plan_year_start', '1986-01-02', '8.00'],
    // On the coverage start (2026-04-01): 40 that day, or still 39.
    ['coverage_start', '1986-04-01', '12.00'],
    ['coverage_start', '1986-04-02', '8.00'],
  ])('when the age date is %s and the member was born %s, then 100,000 costs %s', async (ageDate, dob, premium) => {
    const people = await family({ dob });
    const enrollment = await enroll(people.member, [{ plan: (await voluntaryLife(ageDate)).id, requested_volume: '100000' }]);
    expect(enrollment.enrolled_plans[0].premium).toBe(premium);
  });

  it("when a spouse is covered, then the spouse's volume is charged at the spouse's own band", async () => {
    const people = await family({ dob: '1986-01-01' });
    const enrollment = await enroll(people.member, [
      {
        plan: (await voluntaryLife('plan_year_start')).id,
        requested_volume: '100000',
        enrolled_dependents: [{ dependent: people.spouse, requested_volume: '20000' }],
      },
    ]);
    // 100 units at 0.12 (member, 40) + 20 units at 0.08 (spouse, 35).
    expect(enrollment.enrolled_plans[0].premium).toBe('13.60');
  });
});

describe('guaranteed issue per person type', () => {
  it.each([
    ['member', '50000', 'not_required', '50000.00'],
    ['member', '51000', 'pending', '50000.00'],
    ['spouse', '25000', 'not_required', '25000.00'],
    ['spouse', '26000', 'pending', '25000.00'],
    ['child', '10000', 'not_required', '10000.00'],
    ['child', '11000', 'pending', '10000.00'],
  ] as const)('when the %s asks %s, then EOI is %s and %s is in force', async (person, requested, eoi, volume) => {
    const people = await family();
    const life = await lifePer1000();
    const dependents = person === 'member' ? [] : [{ dependent: people[person], requested_volume: requested }];
    const enrollment = await enroll(people.member, [
      { plan: life.id, requested_volume: person === 'member' ? requested : '50000', enrolled_dependents: dependents },
    ]);
    const row = person === 'member' ? enrollment.enrolled_plans[0] : enrollment.enrolled_plans[0].enrolled_dependents[0];
    expect(row).toMatchObject({ eoi_status: eoi, volume, requested_volume: `${requested}.00` });
  });

  it('when EOI is pending, then the price is on the guaranteed amount; approving it before approval reprices on the requested one', async () => {
    const people = await family();
    const enrollment = await enroll(people.member, [{ plan: (await lifePer1000()).id, requested_volume: '100000' }]);
    expect(enrollment.enrolled_plans[0]).toMatchObject({ volume: '50000.00', premium: '7.50' });
    const decided = await ok(
      world.w.admin.patch(`/enrollments/${enrollment.id}`, { enrolled_plans: [{ id: enrollment.enrolled_plans[0].id, eoi_status: 'approved' }] }),
    );
    expect(decided.enrolled_plans[0]).toMatchObject({ eoi_status: 'approved', volume: '100000.00', premium: '15.00', member_contribution: '15.00' });
  });
});

describe('EOI decisions after approval', () => {
  it('when EOI is approved after approval, then the volume rises from the decision date, repriced, and the carrier gets a volume change', async () => {
    const people = await family();
    const life = await lifePer1000();
    const approved = await approve(await enroll(people.member, [{ plan: life.id, requested_volume: '100000' }]));
    expect(approved.enrolled_plans[0]).toMatchObject({ eoi_status: 'pending', volume: '50000.00', premium: '7.50' });

    world.t.clock.set('2026-05-15T12:00:00.000Z');
    const decided = await ok(
      world.w.admin.patch(`/enrollments/${approved.id}`, { enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'approved' }] }),
    );
    expect(decided.status).toBe('approved');
    // The record keeps the volume in force on its dates, now through the day before the decision.
    expect(decided.enrolled_plans[0]).toMatchObject({
      eoi_status: 'approved',
      volume: '50000.00',
      effective_end: '2026-05-14',
      volume_approved_at: '2026-05-15T12:00:00.000Z',
    });
    expect(await coverageOn(people.member, '2026-05-14')).toMatchObject([{ line_of_coverage: 'life', volume: '50000.00', premium: '7.50' }]);
    const [raised] = await coverageOn(people.member, '2026-05-15');
    expect(raised).toMatchObject({ line_of_coverage: 'life', volume: '100000.00', premium: '15.00' });

    const continuation = (await enrollmentsOf(people.member)).find((e) => e.id === raised!.enrollment)!;
    expect(continuation).toMatchObject({ status: 'approved', category: 'qle', reason: 'employment_change', effective_start: '2026-05-15' });
    const changes = await ok(world.w.admin.get(`/enrollments/${continuation.id}/benefit_changes`));
    expect(changes).toMatchObject([
      {
        status: 'change',
        changes: ['volume_change', 'contribution_change'],
        coverage_start: '2026-05-15',
        previous_enrollment_plan: approved.enrolled_plans[0].id,
      },
    ]);

    const again = await world.w.admin.patch(`/enrollments/${approved.id}`, { enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'approved' }] });
    expect(again.status).toBe(400);
  });

  it('when EOI is approved after approval but before the coverage starts, then the raised volume runs from the coverage start', async () => {
    const people = await family();
    const approved = await approve(await enroll(people.member, [{ plan: (await lifePer1000()).id, requested_volume: '100000' }]));
    const decided = await ok(
      world.w.admin.patch(`/enrollments/${approved.id}`, { enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'approved' }] }),
    );
    // Replaced before it began: its last day is the day before its first.
    expect(decided.enrolled_plans[0]).toMatchObject({ effective_start: '2026-04-01', effective_end: '2026-03-31' });
    expect(await coverageOn(people.member, '2026-04-01')).toMatchObject([{ volume: '100000.00', premium: '15.00' }]);
  });

  it('when EOI is denied after approval, then the decision is recorded in place and nothing else changes', async () => {
    const people = await family();
    const approved = await approve(await enroll(people.member, [{ plan: (await lifePer1000()).id, requested_volume: '100000' }]));
    world.t.clock.set('2026-05-15T12:00:00.000Z');
    const decided = await ok(
      world.w.admin.patch(`/enrollments/${approved.id}`, { enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'denied' }] }),
    );
    expect(decided.enrolled_plans[0]).toMatchObject({ eoi_status: 'denied', volume: '50000.00', effective_end: '2026-12-31' });
    expect(await enrollmentsOf(people.member)).toHaveLength(1);
    expect(await coverageOn(people.member, '2026-06-01')).toMatchObject([{ volume: '50000.00', premium: '7.50' }]);
  });

  it("when a dependent's EOI is approved after approval, then the dependent's volume rises and the change is a volume change", async () => {
    const people = await family();
    const approved = await approve(
      await enroll(people.member, [
        { plan: (await lifePer1000()).id, requested_volume: '50000', enrolled_dependents: [{ dependent: people.spouse, requested_volume: '40000' }] },
      ]),
    );
    const plan = approved.enrolled_plans[0];
    expect(plan).toMatchObject({ premium: '11.25' });
    world.t.clock.set('2026-06-01T12:00:00.000Z');
    await ok(
      world.w.admin.patch(`/enrollments/${approved.id}`, {
        enrolled_plans: [{ id: plan.id, enrolled_dependents: [{ id: plan.enrolled_dependents[0].id, eoi_status: 'approved' }] }],
      }),
    );
    const [raised] = await coverageOn(people.member, '2026-06-01');
    expect(raised).toMatchObject({ premium: '13.50' });
    const changes = await ok(world.w.admin.get(`/enrollments/${raised!.enrollment}/benefit_changes`));
    expect(changes).toMatchObject([{ status: 'change', changes: ['volume_change', 'contribution_change'] }]);
  });

  it('when the coverage ended before the decision date, then 400: the decision belongs on the coverage in force', async () => {
    const people = await family();
    const life = await lifePer1000();
    const approved = await approve(await enroll(people.member, [{ plan: life.id, requested_volume: '100000' }]));
    world.t.clock.set('2026-05-10T12:00:00.000Z');
    await approve(await enroll(people.member, [{ plan: life.id, requested_volume: '40000' }], { change_date: '2026-05-01', effective_start: '2026-05-01' }));
    const refused = await world.w.admin.patch(`/enrollments/${approved.id}`, {
      enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'approved' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.input_errors[0].field_path).toEqual(['enrolled_plans', '0', 'eoi_status']);
  });

  it('when the same EOI approval arrives twice at once, then one raises the volume and the other is refused', async () => {
    const people = await family();
    const approved = await approve(await enroll(people.member, [{ plan: (await lifePer1000()).id, requested_volume: '100000' }]));
    world.t.clock.set('2026-05-15T12:00:00.000Z');
    const body = { enrolled_plans: [{ id: approved.enrolled_plans[0].id, eoi_status: 'approved' }] };
    const answers = await Promise.all([world.w.admin.patch(`/enrollments/${approved.id}`, body), world.w.admin.patch(`/enrollments/${approved.id}`, body)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(await enrollmentsOf(people.member)).toHaveLength(2);
  });

  it('when the enrollment is cancelled, then an EOI decision is 409', async () => {
    const people = await family();
    const enrollment = await enroll(people.member, [{ plan: (await lifePer1000()).id, requested_volume: '100000' }]);
    await ok(world.w.admin.post(`/enrollments/${enrollment.id}/cancel`));
    const refused = await world.w.admin.patch(`/enrollments/${enrollment.id}`, {
      enrolled_plans: [{ id: enrollment.enrolled_plans[0].id, eoi_status: 'approved' }],
    });
    expect(refused.status).toBe(409);
  });
});

describe('late entrants', () => {
  const lateEntrantLife = () => lifePer1000({ volume_rules: { late_entrant_eoi: true } });

  it('when a member with no life coverage elects it outside the initial window, then any amount needs EOI and nothing is in force', async () => {
    const people = await family();
    const enrollment = await enroll(people.member, [{ plan: (await lateEntrantLife()).id, requested_volume: '20000' }]);
    expect(enrollment.enrolled_plans[0]).toMatchObject({ eoi_status: 'pending', volume: '0.00', requested_volume: '20000.00', premium: '0.00' });
  });

  it('when a new hire elects it in the initial window, then the guaranteed issue applies', async () => {
    const people = await family({ hire_date: '2026-02-20' });
    const enrollment = await enroll(people.member, [{ plan: (await lateEntrantLife()).id, requested_volume: '20000' }], {
      reason: 'new_hire',
      change_date: '2026-02-20',
      effective_start: '2026-02-20',
    });
    expect(enrollment.enrolled_plans[0]).toMatchObject({ eoi_status: 'not_required', volume: '20000.00' });
  });

  it.each([
    ['2026-03-31', 'not_required', '20000.00'],
    ['2026-03-30', 'pending', '0.00'],
  ])('when the member had life coverage through %s and elects it from 2026-04-01, then EOI is %s', async (lastDay, eoi, volume) => {
    const people = await family();
    const life = await lateEntrantLife();
    await enroll(people.member, [{ plan: life.id, requested_volume: '10000' }], {
      category: 'carrier_sync',
      reason: undefined,
      change_date: undefined,
      effective_start: '2026-01-01',
      effective_end: lastDay,
    });
    const enrollment = await enroll(people.member, [{ plan: life.id, requested_volume: '20000' }]);
    expect(enrollment.enrolled_plans[0]).toMatchObject({ eoi_status: eoi, volume });
  });
});
