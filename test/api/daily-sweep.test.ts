import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import { SweepScheduler } from '../../src/modules/daily-sweep/sweep-scheduler.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02. Each world's employer has an active window 2026-03-01..2026-03-31 renewing 2026-04-01.
let t: TestContext;
let sweep: DailySweep;
beforeAll(async () => {
  t = await createTestApp();
  sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
});
afterAll(async () => {
  await t.close();
});

async function notifications(w: EnrollmentWorld, type: string, relatedObjectId?: string) {
  const filter = relatedObjectId ? `&related_object_id=${relatedObjectId}` : '';
  return (await ok(w.admin.get(`/notifications?notification_type=${type}${filter}&page_size=100`))).results as {
    owner: string;
    related_object_id: string;
    payload: Record<string, string>;
  }[];
}

async function configurationOf(w: EnrollmentWorld, plan: string): Promise<string> {
  return (await ok(w.admin.get(`/plan_configurations?plan=${plan}`))).results[0].id as string;
}

describe('newly_eligible', () => {
  it('when a waiting period ends on the day swept, then the member is told once; the day before and a rerun tell nobody', async () => {
    const w = await createEnrollmentWorld(t, { waitingPeriodDays: 30 });
    // Hired 2026-02-01 with a 30-day wait: eligible from 2026-03-03, after creation.
    const hired = await createMember(w.admin, { employer: w.employer.id, hire_date: '2026-02-01' });
    expect(await notifications(w, 'newly_eligible', hired.id)).toHaveLength(0);
    expect((await sweep.run('2026-03-02')).newly_eligible).toBe(0);
    expect(await notifications(w, 'newly_eligible', hired.id)).toHaveLength(0);
    expect((await sweep.run('2026-03-03')).newly_eligible).toBe(1);
    expect((await sweep.run('2026-03-03')).newly_eligible).toBe(0);
    expect(await notifications(w, 'newly_eligible', hired.id)).toEqual([
      expect.objectContaining({ owner: 'member', payload: { member: hired.id, employer: w.employer.id } }),
    ]);
  });
});

describe('dependent_age_out', () => {
  let w: EnrollmentWorld;
  const children: Record<string, string> = {};
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
    const rules = { medical: 'date_of_birth', dental: 'end_of_month', vision: 'end_of_year' } as const;
    for (const [line, rule] of Object.entries(rules) as [keyof typeof rules, string][]) {
      await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans[line].id)}`, { dependent_age_out_rule: rule }));
      children[line] = (await createDependent(w.admin, { member: w.member.id, member_relationship: 'child', first_name: line, dob: '2000-05-10' })).id;
    }
    // A disabled child with a current certification (through 2027-02-28) stays covered past the limit: not told in 2026.
    const disabled = await createDependent(w.admin, {
      member: w.member.id,
      member_relationship: 'child',
      first_name: 'Disabled',
      dob: '2000-05-10',
      has_disability: true,
      disability_certified_on: '2026-03-01',
    });
    await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [
          { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: children.medical }, { dependent: disabled.id }] },
          { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: children.dental }] },
          { plan: w.plans.vision.id, enrolled_dependents: [{ dependent: children.vision }] },
        ],
      }),
      201,
    );
  });

  // Born 2000-05-10, age limit 26: coverage ends before 2026-05-10 (date_of_birth), 2026-06-01 (end_of_month),
  // 2027-01-01 (end_of_year); the notice goes 30 days before each.
  it.each([
    ['date_of_birth', 'medical', '2026-04-10', '2026-05-10'],
    ['end_of_month', 'dental', '2026-05-02', '2026-06-01'],
    ['end_of_year', 'vision', '2026-12-02', '2027-01-01'],
  ] as const)('when the rule is %s, then the member is told exactly 30 days before the child ages out', async (_rule, line, noticeDay, agedOut) => {
    const dependent = children[line]!;
    const dayBefore = new Date(Date.parse(noticeDay) - 86_400_000).toISOString().slice(0, 10);
    const dayAfter = new Date(Date.parse(noticeDay) + 86_400_000).toISOString().slice(0, 10);
    await sweep.run(dayBefore);
    expect(await notifications(w, 'dependent_age_out', dependent)).toHaveLength(0);
    await sweep.run(noticeDay);
    await sweep.run(noticeDay);
    await sweep.run(dayAfter);
    expect(await notifications(w, 'dependent_age_out', dependent)).toEqual([
      expect.objectContaining({ owner: 'member', payload: { dependent, member: w.member.id, employer: w.employer.id, coverage_ends_before: agedOut } }),
    ]);
  });

  it('when every notice day has been swept, then each child was told once and the certified disabled child not in 2026', async () => {
    const told = await notifications(w, 'dependent_age_out');
    expect(told.map((n) => n.related_object_id).sort()).toEqual(Object.values(children).sort());
  });
});

describe('age-outs end coverage, and the carrier is told', () => {
  interface Change {
    line_of_coverage: string;
    status: string;
    changes: string[];
    coverage_start: string | null;
    coverage_end: string | null;
  }
  const coverageOn = async (w: EnrollmentWorld, member: string, date: string) =>
    (await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as {
      line_of_coverage: string;
      dependents: string[];
      premium: string | null;
      member_contribution: string | null;
      effective_end: string | null;
    }[];
  const agedOutEnrollments = async (w: EnrollmentWorld, member: string) =>
    (
      (await ok(w.admin.get(`/enrollments?member=${member}&page_size=100`))).results as {
        id: string;
        reason: string;
        status: string;
        effective_start: string;
      }[]
    ).filter((e) => e.reason === 'dependent_aged_out');
  const dependentsOn = async (w: EnrollmentWorld, member: string, date: string) =>
    Object.fromEntries((await coverageOn(w, member, date)).map((c) => [c.line_of_coverage, c.dependents]));

  // A child born 2000-05-10, age limit 26: last covered day 2026-05-09 (date_of_birth), 2026-05-31 (end_of_month).
  async function ageOutWorld() {
    const w = await createEnrollmentWorld(t);
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { dependent_age_out_rule: 'date_of_birth' }));
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.dental.id)}`, { dependent_age_out_rule: 'end_of_month' }));
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Parent', dob: '1975-01-01', hire_date: '2020-01-01' });
    const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Grown', dob: '2000-05-10' });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [
          { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] },
          { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: child.id }] },
        ],
      }),
      201,
    );
    return { w, member, child };
  }

  it("when the last covered day is swept, then the child's coverage ends that day on that line only, the member is re-priced alone from the next day, the carrier gets a change, and COBRA records the loss", async () => {
    const { w, member, child } = await ageOutWorld();
    expect((await sweep.run('2026-05-08')).dependent_coverage_ended).toBe(0);
    expect((await dependentsOn(w, member.id, '2026-05-10')).medical).toEqual([child.id]);

    expect((await sweep.run('2026-05-09')).dependent_coverage_ended).toBe(1);
    expect((await sweep.run('2026-05-09')).dependent_coverage_ended).toBe(0);
    await sweep.run('2026-05-10');
    expect(await dependentsOn(w, member.id, '2026-05-09')).toEqual({ dental: [child.id], medical: [child.id] });
    expect(await dependentsOn(w, member.id, '2026-05-10')).toEqual({ dental: [child.id], medical: [] });
    const before = (await coverageOn(w, member.id, '2026-05-09')).find((c) => c.line_of_coverage === 'medical')!;
    const after = (await coverageOn(w, member.id, '2026-05-10')).find((c) => c.line_of_coverage === 'medical')!;
    expect([before.premium, after.premium]).toEqual(['905.15', '512.40']);
    expect(after.effective_end).toBe('2026-12-31');

    const [agedOut, ...others] = await agedOutEnrollments(w, member.id);
    expect(others).toEqual([]);
    expect(agedOut).toMatchObject({ status: 'approved', effective_start: '2026-05-10' });
    const changes = (await ok(w.admin.get(`/enrollments/${agedOut!.id}/benefit_changes`))) as Change[];
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.changes, c.coverage_start, c.coverage_end])).toEqual([
      ['medical', 'change', ['dependent_change', 'contribution_change'], '2026-05-10', '2026-12-31'],
    ]);
    // 29 U.S.C. 1163(5): a dependent child ceasing to be a dependent child.
    const cobra = (await ok(w.admin.get(`/cobra_events?member=${member.id}`))).results;
    expect(cobra).toEqual([
      expect.objectContaining({
        event_type: 'dependent_ceased_to_be_dependent',
        coverage_lost_date: '2026-05-10',
        lines_of_coverage: ['medical'],
        dependents: [child.id],
        member_lost_coverage: false,
      }),
    ]);
  });

  describe('a death recorded after the sweep recorded an age-out (docs/decisions.md "COBRA events", withdrawn events)', () => {
    type CobraEvent = {
      id: string;
      event_type: string;
      coverage_lost_date: string;
      dependents: string[];
      withdrawn_at: string | null;
      withdrawn_by_enrollment: string | null;
    };
    const cobraOf = async (w: EnrollmentWorld, member: string) => (await ok(w.admin.get(`/cobra_events?member=${member}`))).results as CobraEvent[];
    async function deathAfterAgeOut(dateOfDeath: string) {
      const { w, member, child } = await ageOutWorld();
      await sweep.run('2026-05-09');
      const [agedOut] = await cobraOf(w, member.id);
      expect(agedOut).toMatchObject({ event_type: 'dependent_ceased_to_be_dependent', coverage_lost_date: '2026-05-10', withdrawn_at: null });
      const today = t.clock.now().toISOString();
      t.clock.set('2026-05-12T15:00:00.000Z');
      try {
        await ok(w.admin.patch(`/members/${member.id}`, { date_of_death: dateOfDeath }));
      } finally {
        t.clock.set(today);
      }
      return { w, member, child, agedOut: agedOut! };
    }

    it("when the member died before the age-out began (last day in: the day before it), then the age-out event is withdrawn and the death event records the child's loss", async () => {
      const { w, member, child, agedOut } = await deathAfterAgeOut('2026-05-09');
      const events = await cobraOf(w, member.id);
      const withdrawn = events.find((event) => event.id === agedOut.id)!;
      expect(withdrawn).toMatchObject({ withdrawn_at: '2026-05-12T15:00:00.000Z', dependents: [child.id] });
      const death = events.find((event) => event.event_type === 'death')!;
      expect(death).toMatchObject({ coverage_lost_date: '2026-05-10', dependents: [child.id], withdrawn_at: null });
      expect(withdrawn.withdrawn_by_enrollment).toBe(
        ((await ok(w.admin.get(`/enrollments?member=${member.id}&page_size=100`))).results as { id: string; reason: string }[]).find(
          (e) => e.reason === 'death',
        )!.id,
      );
      const updated = (await ok(w.admin.get(`/events?type=cobra_event.updated&object_id=${agedOut.id}`))).results as unknown[];
      expect(updated).toHaveLength(1);
    });

    it('when the member died on the first day of the age-out (first day out: the age-out had begun), then the age-out event stands', async () => {
      const { w, member, child, agedOut } = await deathAfterAgeOut('2026-05-10');
      const events = await cobraOf(w, member.id);
      expect(events.find((event) => event.id === agedOut.id)).toMatchObject({ withdrawn_at: null, withdrawn_by_enrollment: null });
      expect(events.find((event) => event.event_type === 'death')).toMatchObject({
        coverage_lost_date: '2026-05-11',
        // Dental still covered the child (its age-out is the end of the month).
        lines_of_coverage: ['medical', 'dental'],
        dependents: [child.id],
      });
    });
  });

  it('when the last covered day was not swept, then the next sweep ends the coverage on that day', async () => {
    const { w, member, child } = await ageOutWorld();
    await sweep.run('2026-05-30');
    expect((await dependentsOn(w, member.id, '2026-06-01')).dental).toEqual([child.id]);
    // 2026-05-31 (the dental last day under end_of_month) is skipped.
    await sweep.run('2026-06-02');
    expect(await dependentsOn(w, member.id, '2026-05-31')).toEqual({ dental: [child.id], medical: [] });
    expect(await dependentsOn(w, member.id, '2026-06-01')).toEqual({ dental: [], medical: [] });
    const dental = (await agedOutEnrollments(w, member.id)).find((e) => e.effective_start === '2026-06-01');
    const changes = (await ok(w.admin.get(`/enrollments/${dental!.id}/benefit_changes`))) as Change[];
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.coverage_start])).toEqual([['dental', 'change', '2026-06-01']]);
  });

  it('when a child over the limit is disabled, then only a current certification keeps the coverage: certified through the day stays, uncertified and lapsed end', async () => {
    const w = await createEnrollmentWorld(t);
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Carer', dob: '1960-01-01', hire_date: '2020-01-01' });
    const child = (first_name: string, extra: Record<string, unknown>) =>
      createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name, dob: '1990-01-01', has_disability: true, ...extra });
    const certified = await child('Certified', { disability_certified_on: '2025-09-01' });
    const uncertified = await child('Uncertified', {});
    const lapsed = await child('Lapsed', { disability_certified_on: '2025-03-01' });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [certified, uncertified, lapsed].map((d) => ({ dependent: d.id })) }],
      }),
      201,
    );
    expect((await ok(w.admin.get(`/dependents/${certified.id}`))).disability_certification_expires_on).toBe('2026-08-31');
    await sweep.run('2026-03-03');
    // Uncertified: aged out in 2016, before the coverage began, so taken off it from its first day.
    // Lapsed: certified through 2026-02-28, the last covered day.
    expect((await dependentsOn(w, member.id, '2026-01-01')).medical).toEqual([certified.id, lapsed.id]);
    expect((await dependentsOn(w, member.id, '2026-02-28')).medical).toEqual([certified.id, lapsed.id]);
    expect((await dependentsOn(w, member.id, '2026-03-03')).medical).toEqual([certified.id]);
    // The certified child is told 30 days before the certification stops counting, and without a new one
    // the coverage ends on its last day.
    await sweep.run('2026-08-02');
    const told = await notifications(w, 'dependent_age_out', certified.id);
    expect(told).toEqual([
      expect.objectContaining({
        payload: {
          dependent: certified.id,
          member: member.id,
          employer: w.employer.id,
          coverage_ends_before: '2026-09-01',
          disability_certified_through: '2026-08-31',
        },
      }),
    ]);
    await sweep.run('2026-08-31');
    expect((await dependentsOn(w, member.id, '2026-08-31')).medical).toEqual([certified.id]);
    expect((await dependentsOn(w, member.id, '2026-09-01')).medical).toEqual([]);
  });

  /**
   * A member of a new world with a child (`child`: its fields) on a medical plan whose plan year runs July to
   * June (so that 2026-12-31 falls inside it), held by the carrier since 2026-07-01; the plan configuration ages
   * children out under `rule`.
   */
  async function fiscalYearWorld(rule: string, child: Record<string, unknown>) {
    const w = await createEnrollmentWorld(t);
    const plan = await createPlan(w.admin, {
      group: w.groups.manualGroup.id,
      plan_name: 'Fiscal PPO',
      line_of_coverage: 'medical',
      effective_start: '2026-07-01',
      effective_end: '2027-06-30',
      premium_type: 'composite',
      composite_rates: compositeRates(),
    });
    const configuration = await createPlanConfiguration(w.admin, { plan: plan.id, dependent_age_out_rule: rule });
    await ok(w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Fiscal', dob: '1970-01-01', hire_date: '2020-01-01' });
    const dependent = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Grown', ...child });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-07-01',
        enrolled_plans: [{ plan: plan.id, enrolled_dependents: [{ dependent: dependent.id }] }],
      }),
      201,
    );
    return { w, member, child: dependent };
  }

  it("when the rule is end_of_year, then the child is covered through December 31 of the year they reach the limit, and that day's sweep ends the coverage from January 1", async () => {
    // Born 2000-05-10, age limit 26: reaches it in 2026, last covered day 2026-12-31.
    const { w, member, child } = await fiscalYearWorld('end_of_year', { dob: '2000-05-10' });
    await sweep.run('2026-12-30');
    expect(await agedOutEnrollments(w, member.id)).toEqual([]);
    expect((await dependentsOn(w, member.id, '2027-01-01')).medical).toEqual([child.id]);

    await sweep.run('2026-12-31');
    await sweep.run('2026-12-31');
    await sweep.run('2027-01-01');
    expect((await dependentsOn(w, member.id, '2026-12-31')).medical).toEqual([child.id]);
    expect((await dependentsOn(w, member.id, '2027-01-01')).medical).toEqual([]);
    const [agedOut, ...others] = await agedOutEnrollments(w, member.id);
    expect(others).toEqual([]);
    expect(agedOut).toMatchObject({ status: 'approved', effective_start: '2027-01-01' });
    const changes = (await ok(w.admin.get(`/enrollments/${agedOut!.id}/benefit_changes`))) as Change[];
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.changes, c.coverage_start, c.coverage_end])).toEqual([
      ['medical', 'change', ['dependent_change', 'contribution_change'], '2027-01-01', '2027-06-30'],
    ]);
  });

  it('when two lines end the same child on the same day, then one sweep ends the child on both, with one change to each carrier', async () => {
    // Medical too ends children at the end of the month they turn 26: the child (born 2000-05-10) is last
    // covered on 2026-05-31 on both lines.
    const { w, member, child } = await ageOutWorld();
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { dependent_age_out_rule: 'end_of_month' }));
    await sweep.run('2026-05-30');
    expect(await agedOutEnrollments(w, member.id)).toEqual([]);

    await sweep.run('2026-05-31');
    await sweep.run('2026-05-31');
    await sweep.run('2026-06-01');
    expect(await dependentsOn(w, member.id, '2026-05-31')).toEqual({ dental: [child.id], medical: [child.id] });
    expect(await dependentsOn(w, member.id, '2026-06-01')).toEqual({ dental: [], medical: [] });
    const [agedOut, ...others] = await agedOutEnrollments(w, member.id);
    expect(others).toEqual([]);
    expect(agedOut).toMatchObject({ status: 'approved', effective_start: '2026-06-01' });
    const changes = (await ok(w.admin.get(`/enrollments/${agedOut!.id}/benefit_changes`))) as Change[];
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.changes, c.coverage_start, c.coverage_end])).toEqual([
      ['medical', 'change', ['dependent_change', 'contribution_change'], '2026-06-01', '2026-12-31'],
      ['dental', 'change', ['dependent_change', 'contribution_change'], '2026-06-01', '2026-12-31'],
    ]);
  });

  it("when a disabled child's certification is renewed before it lapses, then the child stays covered past the old one's end and is ended when the new one lapses", async () => {
    // Over the limit (born 1990); certified on 2025-09-01, which counts through 2026-08-31.
    const { w, member, child } = await fiscalYearWorld('date_of_birth', { dob: '1990-01-01', has_disability: true, disability_certified_on: '2025-09-01' });
    expect((await ok(w.admin.get(`/dependents/${child.id}`))).disability_certification_expires_on).toBe('2026-08-31');
    const renewed = await ok(w.admin.patch(`/dependents/${child.id}`, { disability_certified_on: '2026-03-02' }));
    expect(renewed.disability_certification_expires_on).toBe('2027-03-01');

    await sweep.run('2026-08-31');
    await sweep.run('2026-09-01');
    expect(await agedOutEnrollments(w, member.id)).toEqual([]);
    expect((await dependentsOn(w, member.id, '2026-09-01')).medical).toEqual([child.id]);
    expect((await dependentsOn(w, member.id, '2027-03-02')).medical).toEqual([child.id]);

    await sweep.run('2027-02-28');
    expect(await agedOutEnrollments(w, member.id)).toEqual([]);
    await sweep.run('2027-03-01');
    expect((await dependentsOn(w, member.id, '2027-03-01')).medical).toEqual([child.id]);
    expect((await dependentsOn(w, member.id, '2027-03-02')).medical).toEqual([]);
    expect((await agedOutEnrollments(w, member.id)).map((e) => e.effective_start)).toEqual(['2027-03-02']);
  });

  it('when a disability certification is sent without has_disability, in the future, or before birth, then it is a 400 naming the field', async () => {
    const w = await createEnrollmentWorld(t);
    const base = { member: w.member.id, member_relationship: 'child', first_name: 'X', last_name: 'Y', dob: '2010-01-01' };
    for (const body of [
      { ...base, disability_certified_on: '2026-01-01' },
      { ...base, has_disability: true, disability_certified_on: '2026-03-03' },
      { ...base, has_disability: true, disability_certified_on: '2009-12-31' },
    ]) {
      const response = await w.admin.post('/dependents', body);
      expect(response.status).toBe(400);
      expect(response.body.input_errors[0].field).toBe('disability_certified_on');
    }
    expect((await w.admin.post('/dependents', { ...base, has_disability: true, disability_certified_on: '2026-03-02' })).status).toBe(201);
  });
});

describe('open enrollment reminders and closing', () => {
  it('when 7 days and 1 day remain, then each incomplete member is reminded once; members who submitted are not; past end_date the window closes', async () => {
    const w = await createEnrollmentWorld(t);
    const acted = await createMember(w.admin, { employer: w.employer.id, first_name: 'Acted' });
    const enrollment = await createEnrollment(w, { member: acted.id, enrolled_plans: [{ plan: w.plans.medical.id }] });
    await ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));

    expect((await sweep.run('2026-03-23')).open_enrollment_reminder).toBe(0);
    await sweep.run('2026-03-24');
    await sweep.run('2026-03-24');
    await sweep.run('2026-03-25');
    await sweep.run('2026-03-30');
    await sweep.run('2026-03-31');
    const reminders = await notifications(w, 'open_enrollment_reminder', w.window.id);
    expect(reminders.map((n) => [n.payload.member, n.payload.days_left]).sort()).toEqual([
      [w.member.id, '1'],
      [w.member.id, '7'],
    ]);
    expect((await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}`))).status).toBe('active');
    await sweep.run('2026-04-01');
    expect((await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}`))).status).toBe('closed');
  });
});

describe('coverage of terminated members', () => {
  it("when a member is past termination_date, then coverage ends per each plan configuration's policy with a removed change per line, once", async () => {
    const w = await createEnrollmentWorld(t);
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { termination_policy: 'end_of_month' }));
    await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id }],
      }),
      201,
    );
    await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-10' }));

    expect((await sweep.run('2026-03-10')).coverage_ended).toBe(0);
    await Promise.all([sweep.run('2026-03-11'), buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-03-11')]);
    await sweep.run('2026-03-12');

    const coverage = async (date: string) =>
      ((await ok(w.admin.get(`/members/${w.member.id}/coverage?date=${date}`))).coverage as { line_of_coverage: string; effective_end: string }[]).map(
        (line) => [line.line_of_coverage, line.effective_end],
      );
    expect(await coverage('2026-03-10')).toEqual(
      expect.arrayContaining([
        ['medical', '2026-03-31'],
        ['dental', '2026-03-10'],
      ]),
    );
    expect(await coverage('2026-03-11')).toEqual([['medical', '2026-03-31']]);
    expect(await coverage('2026-04-01')).toEqual([]);

    const terminations = ((await ok(w.admin.get(`/enrollments?member=${w.member.id}`))).results as { id: string; reason: string; status: string }[]).filter(
      (e) => e.reason === 'terminated',
    );
    expect(terminations).toHaveLength(2);
    const changes = (await Promise.all(terminations.map(async (e) => ok(w.admin.get(`/enrollments/${e.id}/benefit_changes`))))).flat();
    // Each removed change carries the coverage's start and the termination's coverage end, for the carrier.
    type Change = { line_of_coverage: string; status: string; connection_method: string; coverage_start: string; coverage_end: string };
    expect(
      changes.map((change: Change) => [change.line_of_coverage, change.status, change.connection_method, change.coverage_start, change.coverage_end]).sort(),
    ).toEqual([
      ['dental', 'removed', 'api', '2026-01-01', '2026-03-10'],
      ['medical', 'removed', 'manual', '2026-01-01', '2026-03-31'],
    ]);
  });
});

describe('batches at once', () => {
  it('when two sweeps cut the members into batches of 2, 3 at once, then every termination and age-out is done once, a member with two age-outs in one batch', async () => {
    const w = await createEnrollmentWorld(t);
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { dependent_age_out_rule: 'date_of_birth' }));
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.dental.id)}`, { dependent_age_out_rule: 'end_of_month' }));
    const enroll = async (member: string, medical: string[], dental: string[]) =>
      ok(
        w.admin.post('/enrollments', {
          member,
          category: 'carrier_sync',
          effective_start: '2026-01-01',
          enrolled_plans: [
            { plan: w.plans.medical.id, enrolled_dependents: medical.map((dependent) => ({ dependent })) },
            { plan: w.plans.dental.id, enrolled_dependents: dental.map((dependent) => ({ dependent })) },
          ],
        }),
        201,
      );
    // Five members terminated on 2026-05-08, three parents of a child last covered on medical on 2026-05-09
    // (born 2000-05-10), the last of them also of a child last covered on 2026-05-02 (born 2000-05-03), a day
    // the sweep missed: that parent has two age-outs, which must stay in one batch.
    const terminated: string[] = [];
    for (let i = 0; i < 5; i++) {
      const member = await createMember(w.admin, { employer: w.employer.id, first_name: `Leaving${i}`, hire_date: '2020-01-01' });
      await enroll(member.id, [], []);
      await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-05-08' }));
      terminated.push(member.id);
    }
    const parents: { member: string; child: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const member = await createMember(w.admin, { employer: w.employer.id, first_name: `Parent${i}`, dob: '1975-01-01', hire_date: '2020-01-01' });
      const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Grown', dob: '2000-05-10' });
      parents.push({ member: member.id, child: child.id });
    }
    const last = parents.at(-1)!;
    const older = await createDependent(w.admin, { member: last.member, member_relationship: 'child', first_name: 'Older', dob: '2000-05-03' });
    for (const { member, child } of parents) await enroll(member, member === last.member ? [child, older.id] : [child], [child]);

    const options = { batchSize: 2, batchesAtOnce: 3 };
    const runs = await Promise.all([
      buildDailySweep({ db: t.database.db, clock: t.clock }, options).run('2026-05-09'),
      buildDailySweep({ db: t.database.db, clock: t.clock }, options).run('2026-05-09'),
    ]);
    expect(runs[0].coverage_ended + runs[1].coverage_ended).toBe(5);
    expect(runs[0].dependent_coverage_ended + runs[1].dependent_coverage_ended).toBe(4);
    expect(await buildDailySweep({ db: t.database.db, clock: t.clock }, options).run('2026-05-09')).toMatchObject({
      coverage_ended: 0,
      dependent_coverage_ended: 0,
    });

    const coverage = async (member: string, date: string) =>
      (await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as { line_of_coverage: string; dependents: string[] }[];
    const cobraTypes = async (member: string) =>
      ((await ok(w.admin.get(`/cobra_events?member=${member}`))).results as { event_type: string; coverage_lost_date: string }[])
        .map((event) => `${event.event_type} ${event.coverage_lost_date}`)
        .sort();
    for (const member of terminated) {
      expect(await coverage(member, '2026-05-08')).toHaveLength(2);
      expect(await coverage(member, '2026-05-09')).toEqual([]);
      expect(await cobraTypes(member)).toEqual(['termination 2026-05-09']);
    }
    for (const { member, child } of parents) {
      const medical = async (date: string) => (await coverage(member, date)).find((line) => line.line_of_coverage === 'medical')!.dependents;
      if (member === last.member) {
        expect((await medical('2026-05-02')).sort()).toEqual([child, older.id].sort());
        expect(await medical('2026-05-03')).toEqual([child]);
        expect(await cobraTypes(member)).toEqual(['dependent_ceased_to_be_dependent 2026-05-03', 'dependent_ceased_to_be_dependent 2026-05-10']);
      } else {
        expect(await cobraTypes(member)).toEqual(['dependent_ceased_to_be_dependent 2026-05-10']);
      }
      expect(await medical('2026-05-09')).toEqual([child]);
      expect(await medical('2026-05-10')).toEqual([]);
    }
  });
});

describe('idempotence and scheduling', () => {
  it('when a day is swept twice, and twice at once, then nothing new is created', async () => {
    const w = await createEnrollmentWorld(t);
    const count = async () =>
      (
        await t.database.db
          .selectFrom('notifications')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    await sweep.run('2026-03-24');
    const after = Number(await count());
    const again = await sweep.run('2026-03-24');
    expect(again).toMatchObject({ newly_eligible: 0, dependent_age_out: 0, open_enrollment_reminder: 0, windows_closed: 0, coverage_ended: 0 });
    const concurrent = await Promise.all([sweep.run('2026-03-30'), buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-03-30')]);
    expect(concurrent[0].open_enrollment_reminder + concurrent[1].open_enrollment_reminder).toBeGreaterThanOrEqual(1);
    const reminders = await notifications(w, 'open_enrollment_reminder', w.window.id);
    expect(reminders.filter((n) => n.payload.days_left === '1')).toHaveLength(1);
    expect(Number(await count())).toBe(after + concurrent[0].open_enrollment_reminder + concurrent[1].open_enrollment_reminder);
  });

  it('when server processes check the schedule, then the day runs once, at its time in its zone', async () => {
    const clock = new FixedClock('2027-01-05T07:59:00.000Z');
    const log = { info: () => undefined, error: () => undefined };
    const scheduler = (id: number) =>
      new SweepScheduler({
        db: t.database.db,
        clock,
        sweep: { run: async (day) => ({ ...(await sweep.run(day)), day: `${day}#${id}` }) },
        time: '02:00',
        timeZone: 'America/Chicago',
        log,
      });
    const [first, second] = [scheduler(1), scheduler(2)];
    expect(await first.tick()).toBeUndefined();
    clock.set('2027-01-05T08:00:00.000Z');
    const ran = await Promise.all([first.tick(), second.tick()]);
    expect(ran.filter((summary) => summary !== undefined).map((summary) => summary.day.slice(0, 10))).toEqual(['2027-01-05']);
    expect(await first.tick()).toBeUndefined();
    expect(await second.tick()).toBeUndefined();
  });
});
