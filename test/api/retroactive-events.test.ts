import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { activeWindow, createEnrollmentWorld, type EnrollmentWorld, giveEdiProfile } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant, type EdiFileRecord } from '../helpers/x12.ts';

// Retroactive events reach forward (docs/decisions.md "Life events", "Enrollments"): an enrollment whose start is
// before the member's later elections on a line puts the people it adds on every one of them, priced again. Worlds
// are made at 2026-03-02 (the world's open enrollment runs in March); each test then sets the clock where its story
// needs it.

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type Body = Record<string, unknown>;

interface Change {
  line_of_coverage: string;
  status: string;
  changes: string[];
  previous_enrollment_plan: string | null;
  next_enrollment_plan: string | null;
  coverage_start: string | null;
  coverage_end: string | null;
}

interface CoverageLine {
  line_of_coverage: string;
  plan: string;
  enrollment: string;
  enrolled_plan: string;
  effective_start: string | null;
  effective_end: string | null;
  dependents: string[];
  premium: string | null;
  employer_contribution: string | null;
  member_contribution: string | null;
}

const at = (date: string) => t.clock.set(`${date}T15:00:00.000Z`);

/** Creates, submits and approves an enrollment of `member`; the approved record. */
async function approved(w: EnrollmentWorld, member: string, body: Body) {
  const created = await ok(w.admin.post('/enrollments', { member, ...body }), 201);
  await ok(w.admin.post(`/enrollments/${created.id}/save_and_submit`));
  return ok(w.admin.post(`/enrollments/${created.id}/approve`));
}

async function medicalOn(w: EnrollmentWorld, member: string, date: string): Promise<CoverageLine | undefined> {
  const coverage = await ok(w.admin.get(`/members/${member}/coverage?date=${date}`));
  return (coverage.coverage as CoverageLine[]).find((line) => line.line_of_coverage === 'medical');
}

const changesOf = async (w: EnrollmentWorld, enrollment: string): Promise<Change[]> => ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`));

async function eventsOf(w: EnrollmentWorld, objectId: string, type: string): Promise<unknown[]> {
  return (await ok(w.admin.get(`/events?object_id=${objectId}&type=${type}`))).results as unknown[];
}

/**
 * The world's employer with a 2026 medical plan whose new hires are covered from the first of the month after
 * the hire date (composite rates: member 512.40, member_child 905.15), in the world's manual group (or `group`).
 */
async function newHireWorld(group?: (w: EnrollmentWorld) => string) {
  at('2026-03-02');
  const w = await createEnrollmentWorld(t);
  const plan = await createPlan(w.admin, {
    group: group?.(w) ?? w.groups.manualGroup.id,
    plan_name: 'Gold PPO (new hires)',
    line_of_coverage: 'medical',
    premium_type: 'composite',
    composite_rates: compositeRates(),
  });
  const configuration = await createPlanConfiguration(w.admin, {
    plan: plan.id,
    waiting_period_days: 0,
    coverage_start_rule: 'first_of_month_following_hire',
  });
  await ok(w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
  return { w, plan };
}

describe('a birth before a new hire’s coverage starts (finding: the later member-only election won again)', () => {
  it('when new_child is back-dated to 11-24 before a member-only new-hire election from 12-01, then the baby is covered from birth through the year at the member_child price, the later enrollment is amended once and the carrier hears one story', async () => {
    const { w, plan } = await newHireWorld();
    at('2026-11-20');
    const member = await createMember(w.admin, { employer: w.employer.id, dob: '1990-04-04', hire_date: '2026-11-10' });
    const newHire = await approved(w, member.id, { category: 'qle', reason: 'new_hire', change_date: '2026-11-10', enrolled_plans: [{ plan: plan.id }] });
    expect(newHire.enrolled_plans[0]).toMatchObject({ effective_start: '2026-12-01', premium: '512.40' });

    at('2026-12-05');
    const baby = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Nell', dob: '2026-11-24' });
    const birth = await approved(w, member.id, {
      category: 'qle',
      reason: 'new_child',
      change_date: '2026-11-24',
      effective_start: '2026-11-24',
      enrolled_plans: [{ plan: plan.id, enrolled_dependents: [{ dependent: baby.id }] }],
    });

    // 29 U.S.C. 1181(f)(2)(C): the child is covered from birth on, on every later election of the line.
    for (const date of ['2026-11-24', '2026-11-30', '2026-12-01', '2026-12-31']) {
      const medical = await medicalOn(w, member.id, date);
      expect(medical, date).toMatchObject({
        plan: plan.id,
        dependents: [baby.id],
        premium: '905.15',
        employer_contribution: '678.86',
        member_contribution: '226.29',
      });
    }
    // One entry per line on every date: the birth's coverage runs until the later election starts.
    expect(await medicalOn(w, member.id, '2026-11-30')).toMatchObject({ enrollment: birth.id, effective_start: '2026-11-24', effective_end: '2026-11-30' });
    const fromDecember = (await medicalOn(w, member.id, '2026-12-01'))!;
    expect(fromDecember).toMatchObject({ effective_start: '2026-12-01', effective_end: '2026-12-31' });
    expect((await ok(w.admin.get(`/enrollments/${birth.id}`))).enrolled_plans[0]).toMatchObject({ effective_end: '2026-11-30' });

    // The new-hire enrollment was amended: one updated event, one alert for the member.
    expect(await eventsOf(w, newHire.id, 'enrollment.updated')).toHaveLength(1);
    const alerts = (await ok(w.admin.get(`/alerts?member=${member.id}&kind=enrollment_amended`))).results;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ audience: 'member', related_object_type: 'enrollment', related_object_id: newHire.id });
    expect(alerts[0].payload).toMatchObject({ enrollment: newHire.id, amended_by: birth.id, continued_by: fromDecember.enrollment });

    // One consistent story for the carrier: the add from 12-01, then a change from the birth with the baby; the
    // amendment from 12-01 holds nothing the carrier was not told (no second add).
    expect(await changesOf(w, newHire.id)).toMatchObject([{ status: 'new', coverage_start: '2026-12-01' }]);
    expect(await changesOf(w, birth.id)).toMatchObject([
      {
        status: 'change',
        changes: ['date_change', 'dependent_change', 'contribution_change'],
        previous_enrollment_plan: newHire.enrolled_plans[0].id,
        coverage_start: '2026-11-24',
        coverage_end: '2026-12-31',
      },
    ]);
    expect(await changesOf(w, fromDecember.enrollment)).toMatchObject([{ status: 'no_change', coverage_start: '2026-12-01' }]);
  });

  it("when the plan's carrier takes 834 files, then a full file as of 12-15 carries the baby with the member (employee and child)", async () => {
    const { w, plan } = await newHireWorld((world) => world.groups.ediGroup.id);
    await giveEdiProfile(w, 'ssn');
    at('2026-11-20');
    const member = await createMember(w.admin, { employer: w.employer.id, dob: '1990-04-04', hire_date: '2026-11-10', ssn: '123456789' });
    await approved(w, member.id, { category: 'qle', reason: 'new_hire', change_date: '2026-11-10', enrolled_plans: [{ plan: plan.id }] });
    at('2026-12-05');
    const baby = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Nell', dob: '2026-11-24' });
    await approved(w, member.id, {
      category: 'qle',
      reason: 'new_child',
      change_date: '2026-11-24',
      effective_start: '2026-11-24',
      enrolled_plans: [{ plan: plan.id, enrolled_dependents: [{ dependent: baby.id }] }],
    });

    const record = (await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'full', as_of: '2026-12-15' }), 201)) as EdiFileRecord;
    const content = (await w.admin.get(`/edi_files/${record.id}/content`)).text;
    const segments = await expectGuideConformant(record, content);
    expect(segments.filter((segment) => segment.name === 'INS').map((ins) => [ins['1'], ins['2']])).toEqual([
      ['Y', '18'],
      ['N', '19'],
    ]);
    expect(segments.filter((segment) => segment.name === 'HD').map((hd) => hd['5'])).toEqual(['ECH', 'ECH']);
  });
});

/**
 * The world's 2026 medical plan renewed into 2027 at new rates (member 540.00, member_child 950.00), a member
 * covered on it all 2026 (coverage the carrier holds: carrier_sync), and the 2027 open enrollment window
 * (2026-11-01 to 11-30, renewing 2027-01-01), the clock in it.
 */
async function planYearWorld(options: { openEnrollment?: boolean } = {}) {
  at('2026-03-02');
  const w = await createEnrollmentWorld(t);
  const medical2027 = await ok(
    w.admin.post(`/plans/${w.plans.medical.id}/renew`, {
      plan_name: 'Gold PPO 2027',
      effective_end: '2027-12-31',
      composite_rates: compositeRates({ member: '540.00', member_child: '950.00' }),
    }),
    201,
  );
  const member = await createMember(w.admin, { employer: w.employer.id, dob: '1988-08-08', hire_date: '2020-01-01' });
  await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.medical.id }],
    }),
    201,
  );
  at('2026-11-02');
  await activeWindow(w.admin, {
    employer: w.employer.id,
    start_date: '2026-11-01',
    end_date: '2026-11-30',
    renewal_date: '2027-01-01',
    plans: [medical2027.id],
  });
  if (options.openEnrollment === false) return { w, medical2027, member, openEnrollment: undefined };
  const openEnrollment = await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'open_enrollment',
      reason: 'open_enrollment',
      effective_start: '2027-01-01',
      enrolled_plans: [{ plan: medical2027.id }],
    }),
    201,
  );
  await ok(w.admin.post(`/enrollments/${openEnrollment.id}/save_and_submit`));
  return { w, medical2027, member, openEnrollment };
}

type PlanYearWorld = Awaited<ReturnType<typeof planYearWorld>>;

/** A December birth's new_child enrollment on the 2026 plan, approved on 2026-12-20. */
async function decemberBirth(y: PlanYearWorld, enrolledPlans?: (babyId: string) => Body[]) {
  at('2026-12-20');
  const baby = await createDependent(y.w.admin, { member: y.member.id, member_relationship: 'child', first_name: 'Dee', dob: '2026-12-10' });
  const birth = await approved(y.w, y.member.id, {
    category: 'qle',
    reason: 'new_child',
    change_date: '2026-12-10',
    effective_start: '2026-12-10',
    enrolled_plans: enrolledPlans?.(baby.id) ?? [{ plan: y.w.plans.medical.id, enrolled_dependents: [{ dependent: baby.id }] }],
  });
  return { baby, birth };
}

describe('a December birth after open enrollment (finding: covered on the current plan year only)', () => {
  it('when the 2027 election was approved at open enrollment, then the child is covered on 2026 and 2027 without a gap on 1 January, the 2027 election amended at the 2027 price', async () => {
    const y = await planYearWorld();
    await ok(y.w.admin.post(`/enrollments/${y.openEnrollment!.id}/approve`));
    const { baby, birth } = await decemberBirth(y);

    for (const date of ['2026-12-10', '2026-12-31']) {
      expect(await medicalOn(y.w, y.member.id, date), date).toMatchObject({
        plan: y.w.plans.medical.id,
        enrollment: birth.id,
        dependents: [baby.id],
        premium: '905.15',
      });
    }
    for (const date of ['2027-01-01', '2027-12-31']) {
      expect(await medicalOn(y.w, y.member.id, date), date).toMatchObject({ plan: y.medical2027.id, dependents: [baby.id], premium: '950.00' });
    }
    const next = (await medicalOn(y.w, y.member.id, '2027-01-01'))!;
    expect(next.enrollment).not.toBe(y.openEnrollment!.id);
    expect(await eventsOf(y.w, y.openEnrollment!.id, 'enrollment.updated')).toHaveLength(1);
    const alerts = (await ok(y.w.admin.get(`/alerts?member=${y.member.id}&kind=enrollment_amended`))).results;
    expect(alerts).toMatchObject([{ related_object_id: y.openEnrollment!.id, payload: { amended_by: birth.id, continued_by: next.enrollment } }]);

    // The carrier hears the child from birth on the 2026 plan, then on the 2027 plan: changes, never a second add.
    const birthChanges = await changesOf(y.w, birth.id);
    expect(birthChanges).toHaveLength(1);
    expect(birthChanges[0]).toMatchObject({ status: 'change', next_enrollment_plan: birth.enrolled_plans[0].id, coverage_start: '2026-12-10' });
    expect(birthChanges[0]!.changes).toContain('dependent_change');
    // Measured against what the carrier holds on the birth date (the 2026 plan), not next year's election told since.
    expect(birthChanges[0]!.changes).not.toContain('plan_change');
    expect(birthChanges[0]!.previous_enrollment_plan).not.toBe(y.openEnrollment!.enrolled_plans[0].id);
    const continued = await changesOf(y.w, next.enrollment);
    expect(continued).toHaveLength(1);
    expect(continued[0]).toMatchObject({
      status: 'change',
      next_enrollment_plan: next.enrolled_plan,
      coverage_start: '2027-01-01',
      coverage_end: '2027-12-31',
    });
    expect(continued[0]!.changes).not.toContain('dependent_change');
  });

  it('when the 2027 election is still pending, then it is amended in place (the child added, priced again) and its approval covers the child from 1 January', async () => {
    const y = await planYearWorld();
    const before = await ok(y.w.admin.get(`/enrollments/${y.openEnrollment!.id}`));
    const { baby, birth } = await decemberBirth(y);

    const amended = await ok(y.w.admin.get(`/enrollments/${y.openEnrollment!.id}`));
    expect(amended.status).toBe('pending');
    expect(amended.enrolled_plans).toHaveLength(1);
    expect(amended.enrolled_plans[0]).toMatchObject({ id: before.enrolled_plans[0].id, plan: y.medical2027.id, premium: '950.00' });
    expect(amended.enrolled_plans[0].enrolled_dependents.map((d: { dependent: string }) => d.dependent)).toEqual([baby.id]);
    expect(await eventsOf(y.w, y.openEnrollment!.id, 'enrollment.updated')).toHaveLength(1);
    expect((await ok(y.w.admin.get(`/alerts?member=${y.member.id}&kind=enrollment_amended`))).results).toMatchObject([
      { related_object_id: y.openEnrollment!.id, payload: { amended_by: birth.id, continued_by: null } },
    ]);

    await ok(y.w.admin.post(`/enrollments/${y.openEnrollment!.id}/approve`));
    expect(await medicalOn(y.w, y.member.id, '2026-12-31')).toMatchObject({ enrollment: birth.id, dependents: [baby.id], effective_end: '2026-12-31' });
    expect(await medicalOn(y.w, y.member.id, '2027-01-01')).toMatchObject({ enrollment: y.openEnrollment!.id, dependents: [baby.id], premium: '950.00' });
  });
});

describe('a birth or an adoption naming the plan of each plan year it spans (29 U.S.C. 1181(f)(2)(C))', () => {
  const bothYears = (y: PlanYearWorld) => (babyId: string) => [
    { plan: y.w.plans.medical.id, enrolled_dependents: [{ dependent: babyId }] },
    { plan: y.medical2027.id, enrolled_dependents: [{ dependent: babyId }] },
  ];

  it('when a December birth names the 2026 plan and the 2027 plan (no start given), then the child is covered in both plan years, the 2027 plan from its first day, and the carrier hears two changes, never an add', async () => {
    const y = await planYearWorld({ openEnrollment: false });
    const { baby, birth } = await decemberBirth(y, bothYears(y));
    expect(
      birth.enrolled_plans.map((plan: { plan: string; effective_start: string; effective_end: string }) => [
        plan.plan,
        plan.effective_start,
        plan.effective_end,
      ]),
    ).toEqual([
      [y.w.plans.medical.id, '2026-12-10', '2026-12-31'],
      [y.medical2027.id, '2027-01-01', '2027-12-31'],
    ]);
    expect(await medicalOn(y.w, y.member.id, '2026-12-31')).toMatchObject({
      plan: y.w.plans.medical.id,
      enrollment: birth.id,
      dependents: [baby.id],
      premium: '905.15',
    });
    expect(await medicalOn(y.w, y.member.id, '2027-01-01')).toMatchObject({
      plan: y.medical2027.id,
      enrollment: birth.id,
      dependents: [baby.id],
      premium: '950.00',
    });
    const changes = await changesOf(y.w, birth.id);
    expect(changes.map((change) => [change.status, change.coverage_start, change.coverage_end])).toEqual([
      ['change', '2026-12-10', '2026-12-31'],
      ['change', '2027-01-01', '2027-12-31'],
    ]);
    expect(changes.every((change) => change.changes.includes('dependent_change') && !change.changes.includes('plan_change'))).toBe(true);
  });

  it("when the 2027 election was approved at open enrollment and the birth names the 2027 plan too, then the birth's 2027 plan replaces it from 1 January (its coverage cancelled, one updated event, one alert)", async () => {
    const y = await planYearWorld();
    await ok(y.w.admin.post(`/enrollments/${y.openEnrollment!.id}/approve`));
    const { baby, birth } = await decemberBirth(y, bothYears(y));
    expect(await medicalOn(y.w, y.member.id, '2027-01-01')).toMatchObject({ plan: y.medical2027.id, enrollment: birth.id, dependents: [baby.id] });
    expect((await ok(y.w.admin.get(`/enrollments/${y.openEnrollment!.id}`))).enrolled_plans[0]).toMatchObject({
      effective_start: '2027-01-01',
      effective_end: '2026-12-31',
    });
    expect(await eventsOf(y.w, y.openEnrollment!.id, 'enrollment.updated')).toHaveLength(1);
    const [alert] = (await ok(y.w.admin.get(`/alerts?member=${y.member.id}&kind=enrollment_amended`))).results;
    expect(alert).toMatchObject({ related_object_id: y.openEnrollment!.id, payload: { amended_by: birth.id, continued_by: null } });
    expect(alert.message).toContain('replaced');
    expect((await changesOf(y.w, birth.id)).map((change) => change.status)).toEqual(['change', 'change']);
  });

  /** The field paths a 400 names, each with its life event rule (reason/part) or the start of its message. */
  function refusals(response: { status: number; body: { input_errors?: { message: string; field_path: (string | number)[] }[] } }): string[] {
    expect(response.status).toBe(400);
    return (response.body.input_errors ?? []).map(
      (error) => `${error.field_path.join('.')}: ${/Life event rule ([a-z_]+\/[a-z_]+)/.exec(error.message)?.[1] ?? error.message}`,
    );
  }

  /** Creates and submits a qle enrollment of the plan year world's member on 2026-12-20 for a child born 2026-12-10. */
  async function submitted(y: PlanYearWorld, reason: string, enrolledPlans: (babyId: string) => Body[]) {
    at('2026-12-20');
    const baby = await createDependent(y.w.admin, { member: y.member.id, member_relationship: 'child', first_name: 'Ivy', dob: '2026-12-10' });
    const created = await ok(
      y.w.admin.post('/enrollments', {
        member: y.member.id,
        category: 'qle',
        reason,
        change_date: '2026-12-10',
        effective_start: '2026-12-10',
        enrolled_plans: enrolledPlans(baby.id),
      }),
      201,
    );
    return y.w.admin.post(`/enrollments/${created.id}/save_and_submit`);
  }

  const SOURCE = '(29 U.S.C. 1181(f)(2)(C); 26 CFR 54.9801-6(b))';

  it('when an adoption names the 2026 plan to its end and the 2027 plan from 2027-01-01 (given), then it is accepted; from 2027-01-02 (a day late) it is refused at that start', async () => {
    const y = await planYearWorld({ openEnrollment: false });
    const covering = (plan: string, babyId: string, more: Body = {}) => ({ plan, enrolled_dependents: [{ dependent: babyId }], ...more });
    const accepted = await submitted(y, 'adopted_child', (baby) => [
      covering(y.w.plans.medical.id, baby, { effective_end: '2026-12-31' }),
      covering(y.medical2027.id, baby, { effective_start: '2027-01-01' }),
    ]);
    expect(accepted.status, accepted.text).toBe(200);
    expect(
      refusals(
        await submitted(y, 'adopted_child', (baby) => [
          covering(y.w.plans.medical.id, baby),
          covering(y.medical2027.id, baby, { effective_start: '2027-01-02' }),
        ]),
      ),
    ).toEqual([
      `enrolled_plans.1.effective_start: The next plan year's plan covers from its first day, the day after enrolled_plans.0 ends: expected 2027-01-01 ${SOURCE}.`,
    ]);
  });

  it('when the 2026 plan ends the day before its plan year does (a gap before 2027), then it is refused at that end', async () => {
    const y = await planYearWorld({ openEnrollment: false });
    expect(
      refusals(
        await submitted(y, 'new_child', (baby) => [
          { plan: y.w.plans.medical.id, effective_end: '2026-12-30', enrolled_dependents: [{ dependent: baby }] },
          { plan: y.medical2027.id, enrolled_dependents: [{ dependent: baby }] },
        ]),
      ),
    ).toEqual([
      `enrolled_plans.0.effective_end: Coverage runs to the end of its plan year, 2026-12-31, when the next plan year's plan (enrolled_plans.1) follows ${SOURCE}.`,
    ]);
  });

  it("when another life event (a marriage) names two plans on a line, a birth names two plans of one plan year, next year's plan of another carrier group, or next year's plan without the child, then each is refused by name", async () => {
    const y = await planYearWorld({ openEnrollment: false });
    const otherCarrier2027 = await createPlan(y.w.admin, {
      group: y.w.groups.apiGroup.id,
      plan_name: 'Other carrier 2027',
      line_of_coverage: 'medical',
      effective_start: '2027-01-01',
      effective_end: '2027-12-31',
      premium_type: 'composite',
      composite_rates: compositeRates(),
    });
    await createPlanConfiguration(y.w.admin, { plan: otherCarrier2027.id, waiting_period_days: 0 });
    const covering = (plan: string, babyId: string, more: Body = {}) => ({ plan, enrolled_dependents: [{ dependent: babyId }], ...more });

    expect(refusals(await submitted(y, 'marriage', (baby) => [covering(y.w.plans.medical.id, baby), covering(y.medical2027.id, baby)]))).toContain(
      `enrolled_plans.1.plan: Only one plan per line of coverage: enrolled_plans.0 is already medical. Only a new_child or adopted_child enrollment names the plan of each plan year it spans ${SOURCE}.`,
    );
    expect(
      refusals(
        await submitted(y, 'new_child', (baby) => [
          covering(y.w.plans.medical.id, baby),
          covering(y.w.plans.medicalSilver.id, baby, { primary_care_provider: { full_name: 'Dr. B' } }),
        ]),
      ),
    ).toEqual([
      `enrolled_plans.1.plan: A new_child enrollment names one medical plan per plan year it spans: this plan's year starts on 2026-01-01, not on 2027-01-01, the day after the plan year of enrolled_plans.0 ends ${SOURCE}.`,
    ]);
    expect(refusals(await submitted(y, 'new_child', (baby) => [covering(y.w.plans.medical.id, baby), covering(otherCarrier2027.id, baby)]))).toEqual([
      "enrolled_plans.1.plan: The plans of the plan years a new_child enrollment spans are of one carrier group, that of enrolled_plans.0: a move to another carrier is an election of the new plan year's open enrollment.",
    ]);
    expect(refusals(await submitted(y, 'new_child', (baby) => [covering(y.w.plans.medical.id, baby), { plan: y.medical2027.id }]))).toEqual([
      'enrolled_plans.1: new_child/plan_years',
    ]);
  });
});
