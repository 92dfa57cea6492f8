import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import { SweepScheduler } from '../../src/modules/daily-sweep/sweep-scheduler.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
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
  return (await ok(w.admin.get(`/notifications?notification_type=${type}${filter}&page_size=100`))).results as { owner: string; related_object_id: string; payload: Record<string, string> }[];
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
    expect(await notifications(w, 'newly_eligible', hired.id)).toEqual([expect.objectContaining({ owner: 'member', payload: { member: hired.id, employer: w.employer.id } })]);
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
    // A disabled child stays covered past the limit: never told.
    const disabled = await createDependent(w.admin, { member: w.member.id, member_relationship: 'child', first_name: 'Disabled', dob: '2000-05-10', has_disability: true });
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

  it('when every notice day has been swept, then each child was told once and the disabled child never', async () => {
    const told = await notifications(w, 'dependent_age_out');
    expect(told.map((n) => n.related_object_id).sort()).toEqual(Object.values(children).sort());
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
  it('when a member is past termination_date, then coverage ends per each plan configuration\'s policy with a removed change per line, once', async () => {
    const w = await createEnrollmentWorld(t);
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { termination_policy: 'end_of_month' }));
    await ok(
      w.admin.post('/enrollments', { member: w.member.id, category: 'carrier_sync', effective_start: '2026-01-01', enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id }] }),
      201,
    );
    await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-10' }));

    expect((await sweep.run('2026-03-10')).coverage_ended).toBe(0);
    await Promise.all([sweep.run('2026-03-11'), buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-03-11')]);
    await sweep.run('2026-03-12');

    const coverage = async (date: string) =>
      ((await ok(w.admin.get(`/members/${w.member.id}/coverage?date=${date}`))).coverage as { line_of_coverage: string; effective_end: string }[]).map((line) => [line.line_of_coverage, line.effective_end]);
    expect(await coverage('2026-03-10')).toEqual(expect.arrayContaining([['medical', '2026-03-31'], ['dental', '2026-03-10']]));
    expect(await coverage('2026-03-11')).toEqual([['medical', '2026-03-31']]);
    expect(await coverage('2026-04-01')).toEqual([]);

    const terminations = ((await ok(w.admin.get(`/enrollments?member=${w.member.id}`))).results as { id: string; reason: string; status: string }[]).filter((e) => e.reason === 'terminated');
    expect(terminations).toHaveLength(2);
    const changes = (await Promise.all(terminations.map(async (e) => ok(w.admin.get(`/enrollments/${e.id}/benefit_changes`))))).flat();
    // Each removed change carries the coverage's start and the termination's coverage end, for the carrier.
    type Change = { line_of_coverage: string; status: string; connection_method: string; coverage_start: string; coverage_end: string };
    expect(changes.map((change: Change) => [change.line_of_coverage, change.status, change.connection_method, change.coverage_start, change.coverage_end]).sort()).toEqual([
      ['dental', 'removed', 'api', '2026-01-01', '2026-03-10'],
      ['medical', 'removed', 'manual', '2026-01-01', '2026-03-31'],
    ]);
  });
});

describe('idempotence and scheduling', () => {
  it('when a day is swept twice, and twice at once, then nothing new is created', async () => {
    const w = await createEnrollmentWorld(t);
    const count = async () => (await t.database.db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
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
      new SweepScheduler({ db: t.database.db, clock, sweep: { run: async (day) => ({ ...(await sweep.run(day)), day: `${day}#${id}` }) }, time: '02:00', timeZone: 'America/Chicago', log });
    const [first, second] = [scheduler(1), scheduler(2)];
    expect(await first.tick()).toBeUndefined();
    clock.set('2027-01-05T08:00:00.000Z');
    const ran = await Promise.all([first.tick(), second.tick()]);
    expect(ran.filter((summary) => summary !== undefined).map((summary) => summary.day.slice(0, 10))).toEqual(['2027-01-05']);
    expect(await first.tick()).toBeUndefined();
    expect(await second.tick()).toBeUndefined();
  });
});
