import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeCommit, buildDailySweep } from '../../src/app.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { carrierJobHandlers } from '../../src/modules/carrier-connections/carrier-sync.job.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's). Each world's plans run 2026-01-01..2026-12-31; its window 2026-03-01..03-31.
let t: TestContext;
let sweep: DailySweep;
let worker: JobWorker;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  t = await createTestApp();
  sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
  const deps = { db: t.database.db, clock: t.clock, changes: buildChangeCommit({ clock: t.clock }), adapter: new SandboxCarrierAdapter() };
  worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers: jobHandlers([carrierJobHandlers(deps)]), log: silent, batchSize: 50 });
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

interface Coverage {
  line_of_coverage: string;
  plan: string;
  effective_start: string;
  effective_end: string | null;
  dependents: string[];
}
interface Enrollment {
  id: string;
  status: string;
  reason: string | null;
  change_date: string | null;
  effective_start: string | null;
  cancellation_reason: string | null;
}
interface Change {
  line_of_coverage: string;
  status: string;
  changes: string[];
  coverage_start: string | null;
  coverage_end: string | null;
  delivery_state: string;
  previous_enrollment_plan: string | null;
  next_enrollment_plan: string | null;
}

async function coverageOn(w: EnrollmentWorld, member: string, date: string): Promise<Coverage[]> {
  return (await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as Coverage[];
}

async function enrollmentsOf(w: EnrollmentWorld, member: string): Promise<Enrollment[]> {
  return (await ok(w.admin.get(`/enrollments?member=${member}&page_size=100`))).results as Enrollment[];
}

async function changesOf(w: EnrollmentWorld, enrollment: string): Promise<Change[]> {
  return (await ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`))) as Change[];
}

async function cobraEventsOf(w: EnrollmentWorld, member: string) {
  return (await ok(w.admin.get(`/cobra_events?member=${member}`))).results as {
    event_type: string;
    event_date: string;
    coverage_lost_date: string;
    lines_of_coverage: string[];
    dependents: string[];
  }[];
}

async function configurationOf(w: EnrollmentWorld, plan: string): Promise<string> {
  return (await ok(w.admin.get(`/plan_configurations?plan=${plan}`))).results[0].id as string;
}

/** A member of the world with medical (and a child on it) and dental held by the carriers since 2026-01-01. */
async function coveredMember(w: EnrollmentWorld, firstName: string) {
  const member = await createMember(w.admin, { employer: w.employer.id, first_name: firstName, dob: '1980-01-01', hire_date: '2020-01-01' });
  const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2015-01-01' });
  const synced = await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }, { plan: w.plans.dental.id }],
    }),
    201,
  );
  return { member, child, synced };
}

/** A marriage enrollment of vision starting on `effectiveStart`, not submitted. */
function visionQle(w: EnrollmentWorld, member: string, effectiveStart: string) {
  return ok(
    w.admin.post('/enrollments', {
      member,
      category: 'qle',
      reason: 'marriage',
      change_date: '2026-03-01',
      effective_start: effectiveStart,
      enrolled_plans: [{ plan: w.plans.vision.id }],
    }),
    201,
  );
}

const terminatedEnrollments = async (w: EnrollmentWorld, member: string) => (await enrollmentsOf(w, member)).filter((e) => e.reason === 'terminated');

describe('a termination ends all coverage, including coverage that has not started', () => {
  it("when next year's coverage was approved and enrollments are open, then the sweep after termination_date ends this year's, cancels next year's and the enrollments starting after the end, and tells the carrier each", async () => {
    const w = await createEnrollmentWorld(t);
    const { member, child } = await coveredMember(w, 'Leaver');
    const medical2027 = await ok(w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31' }), 201);
    // Next plan year's medical, already with the carrier.
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2027-01-01',
        enrolled_plans: [{ plan: medical2027.id, enrolled_dependents: [{ dependent: child.id }] }],
      }),
      201,
    );
    const lastDayIn = await visionQle(w, member.id, '2026-03-20');
    const firstDayOut = await visionQle(w, member.id, '2026-03-21');
    expect((await coverageOn(w, member.id, '2027-02-01')).map((c) => c.plan)).toEqual([medical2027.id]);

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20' }));
    // Not yet in effect: the sweep of the day after termination_date applies it.
    expect(await terminatedEnrollments(w, member.id)).toEqual([]);
    await sweep.run('2026-03-20');
    expect(await terminatedEnrollments(w, member.id)).toEqual([]);
    expect((await sweep.run('2026-03-21')).coverage_ended).toBe(1);
    expect((await sweep.run('2026-03-21')).coverage_ended).toBe(0);
    await sweep.run('2026-03-22');

    expect((await coverageOn(w, member.id, '2026-03-20')).map((c) => c.line_of_coverage).sort()).toEqual(['dental', 'medical']);
    expect(await coverageOn(w, member.id, '2026-03-21')).toEqual([]);
    expect(await coverageOn(w, member.id, '2027-02-01')).toEqual([]);

    const [terminated, ...others] = await terminatedEnrollments(w, member.id);
    expect(others).toEqual([]);
    expect(terminated).toMatchObject({ status: 'approved', change_date: '2026-03-20', effective_start: '2026-03-21' });
    const changes = await changesOf(w, terminated!.id);
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.coverage_start, c.coverage_end])).toEqual([
      ['medical', 'removed', '2026-01-01', '2026-03-20'],
      ['dental', 'removed', '2026-01-01', '2026-03-20'],
      // Cancelled: its last day is the day before its first.
      ['medical', 'removed', '2027-01-01', '2026-12-31'],
    ]);

    const byId = new Map((await enrollmentsOf(w, member.id)).map((e) => [e.id, e]));
    expect(byId.get(lastDayIn.id)).toMatchObject({ status: 'not_started', cancellation_reason: null });
    expect(byId.get(firstDayOut.id)).toMatchObject({ status: 'cancelled', cancellation_reason: 'member_terminated' });

    // 29 U.S.C. 1163(2): the coverage was lost on 2026-03-21, so the event is recorded by that sweep, once.
    expect(await cobraEventsOf(w, member.id)).toEqual([
      expect.objectContaining({
        event_type: 'termination',
        event_date: '2026-03-20',
        coverage_lost_date: '2026-03-21',
        lines_of_coverage: ['medical', 'dental'],
        dependents: [child.id],
      }),
    ]);
  });

  it("when termination_date is recorded after it, then the coverage ends at once (no sweep), the api carrier's change is queued, and the COBRA event recorded; clearing it later gives nothing back (a rehire)", async () => {
    const w = await createEnrollmentWorld(t);
    const { member } = await coveredMember(w, 'Late');
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-02-15' }));

    expect(await coverageOn(w, member.id, '2026-02-16')).toEqual([]);
    expect((await coverageOn(w, member.id, '2026-02-15')).length).toBe(2);
    const [terminated] = await terminatedEnrollments(w, member.id);
    const changes = await changesOf(w, terminated!.id);
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.coverage_end, c.delivery_state])).toEqual([
      ['medical', 'removed', '2026-02-15', 'manual'],
      ['dental', 'removed', '2026-02-15', 'queued'],
    ]);
    expect((await cobraEventsOf(w, member.id)).map((e) => e.coverage_lost_date)).toEqual(['2026-02-16']);

    // The sweep finds nothing left to do.
    expect((await sweep.run('2026-03-03')).coverage_ended).toBe(0);

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: null }));
    expect(await coverageOn(w, member.id, '2026-03-05')).toEqual([]);
    expect((await enrollmentsOf(w, member.id)).filter((e) => e.reason === 'employment_change')).toEqual([]);
  });

  it('when submitted enrollments await approval, then the termination cancels the one starting after the coverage end (member_terminated) and leaves the one starting on it pending', async () => {
    const w = await createEnrollmentWorld(t);
    const { member } = await coveredMember(w, 'Pending');
    const submittedQle = async (effectiveStart: string) =>
      ok(w.admin.post(`/enrollments/${(await visionQle(w, member.id, effectiveStart)).id}/save_and_submit`));
    const lastDayIn = await submittedQle('2026-03-20');
    const firstDayOut = await submittedQle('2026-03-21');
    expect([lastDayIn.status, firstDayOut.status]).toEqual(['pending', 'pending']);

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20' }));
    await sweep.run('2026-03-20');
    expect((await ok(w.admin.get(`/enrollments/${firstDayOut.id}`))).status).toBe('pending');
    await sweep.run('2026-03-21');

    expect(await ok(w.admin.get(`/enrollments/${lastDayIn.id}`))).toMatchObject({ status: 'pending', cancellation_reason: null });
    expect(await ok(w.admin.get(`/enrollments/${firstDayOut.id}`))).toMatchObject({ status: 'cancelled', cancellation_reason: 'member_terminated' });
    // Never coverage, so nothing to tell a carrier about it.
    expect(await changesOf(w, firstDayOut.id)).toEqual([]);
  });
});

describe('undoing a termination', () => {
  /** A covered member whose medical and dental end at the end of the month of termination. */
  async function endOfMonthWorld(firstName: string) {
    const w = await createEnrollmentWorld(t);
    for (const plan of [w.plans.medical, w.plans.dental]) {
      await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, plan.id)}`, { termination_policy: 'end_of_month' }));
    }
    return { w, ...(await coveredMember(w, firstName)) };
  }

  it('when it is cleared before the coverage end, then the coverage is given back with a date_change to each carrier, and no COBRA event is ever recorded', async () => {
    const { w, member, synced } = await endOfMonthWorld('Stays');
    // 2026-03-01 is past: applied at once; the coverage runs to 2026-03-31 (end_of_month), the last day in.
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-01' }));
    expect((await coverageOn(w, member.id, '2026-03-31')).map((c) => c.line_of_coverage)).toEqual(['dental', 'medical']);
    expect(await coverageOn(w, member.id, '2026-04-01')).toEqual([]);
    expect(await cobraEventsOf(w, member.id)).toEqual([]);

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: null }));
    const restored = await coverageOn(w, member.id, '2026-04-01');
    expect(restored.map((c) => [c.line_of_coverage, c.effective_end]).sort()).toEqual([
      ['dental', '2026-12-31'],
      ['medical', '2026-12-31'],
    ]);
    const [undo, ...more] = (await enrollmentsOf(w, member.id)).filter((e) => e.reason === 'employment_change');
    expect(more).toEqual([]);
    const medicalPlan = synced.enrolled_plans.find((p: { plan: string }) => p.plan === w.plans.medical.id).id as string;
    expect((await changesOf(w, undo!.id)).map((c) => [c.line_of_coverage, c.status, c.changes, c.coverage_end])).toEqual([
      ['medical', 'change', ['date_change'], '2026-12-31'],
      ['dental', 'change', ['date_change'], '2026-12-31'],
    ]);
    expect((await changesOf(w, undo!.id))[0]).toMatchObject({ previous_enrollment_plan: medicalPlan, next_enrollment_plan: medicalPlan });

    expect((await sweep.run('2026-04-01')).termination_cobra_events).toBe(0);
    expect(await cobraEventsOf(w, member.id)).toEqual([]);
  });

  it('when it is not undone, then the COBRA event is recorded by the sweep of the first day without coverage, not before, once', async () => {
    const { w, member } = await endOfMonthWorld('Goes');
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-01' }));
    await sweep.run('2026-03-31');
    expect(await cobraEventsOf(w, member.id)).toEqual([]);
    expect((await sweep.run('2026-04-01')).termination_cobra_events).toBe(1);
    expect((await sweep.run('2026-04-02')).termination_cobra_events).toBe(0);
    expect((await cobraEventsOf(w, member.id)).map((e) => [e.event_date, e.coverage_lost_date, e.lines_of_coverage])).toEqual([
      ['2026-03-01', '2026-04-01', ['medical', 'dental']],
    ]);
  });

  it('when it is moved earlier after it was applied, then the earlier one ends the coverage and only it becomes a COBRA event', async () => {
    const { w, member } = await endOfMonthWorld('Earlier');
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-01' }));
    // Moved to 2026-02-10: coverage ends 2026-02-28 (end_of_month), already past, so the loss is recorded now.
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-02-10' }));
    expect((await coverageOn(w, member.id, '2026-02-28')).map((c) => c.line_of_coverage)).toEqual(['dental', 'medical']);
    expect(await coverageOn(w, member.id, '2026-03-01')).toEqual([]);
    await sweep.run('2026-04-01');
    expect((await cobraEventsOf(w, member.id)).map((e) => [e.event_date, e.coverage_lost_date])).toEqual([['2026-02-10', '2026-03-01']]);
    // Clearing it now is a rehire: the 2026-02-28 end took effect.
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: null }));
    expect(await coverageOn(w, member.id, '2026-03-15')).toEqual([]);
  });

  it('when it is moved later before the coverage end, then the coverage is given back and the new date applies after it', async () => {
    const { w, member } = await endOfMonthWorld('Later');
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-01' }));
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-05-10' }));
    expect((await coverageOn(w, member.id, '2026-05-10')).map((c) => [c.line_of_coverage, c.effective_end]).sort()).toEqual([
      ['dental', '2026-12-31'],
      ['medical', '2026-12-31'],
    ]);
    await sweep.run('2026-05-11');
    expect((await coverageOn(w, member.id, '2026-05-31')).map((c) => [c.line_of_coverage, c.effective_end])).toEqual([
      ['dental', '2026-05-31'],
      ['medical', '2026-05-31'],
    ]);
    expect(await coverageOn(w, member.id, '2026-06-01')).toEqual([]);
  });
});

describe('coverage answered truthfully', () => {
  it("when a carrier rejected a line of an approved enrollment, then that line is not coverage; the enrollment's other lines are", async () => {
    const w = await createEnrollmentWorld(t);
    const approved = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dentalRejected.id }] });
    while ((await worker.runDueJobs()) > 0);
    expect((await ok(w.admin.get(`/enrollments/${approved.id}`))).status).toBe('failed');
    expect((await coverageOn(w, w.member.id, '2026-04-15')).map((c) => c.line_of_coverage)).toEqual(['medical']);
  });
});
