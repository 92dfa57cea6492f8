import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { address, createEmployer, createMember } from '../helpers/factories.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// A member's hours or employment status no longer meeting a plan configuration ends their coverage on it
// (docs/decisions.md "Loss of eligibility"). Clock: 2026-03-02 (the test app's). Each world's plans run
// 2026-01-01..2026-12-31.
let t: TestContext;
let sweep: DailySweep;

beforeAll(async () => {
  t = await createTestApp();
  sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
});
afterAll(async () => {
  await t.close();
});

interface Coverage {
  line_of_coverage: string;
  plan: string;
}
interface Enrollment {
  id: string;
  status: string;
  reason: string | null;
  change_date: string | null;
  effective_start: string | null;
}
interface Change {
  line_of_coverage: string;
  status: string;
  changes: string[];
  coverage_start: string | null;
  coverage_end: string | null;
}

const linesOn = async (w: EnrollmentWorld, member: string, date: string) =>
  ((await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as Coverage[]).map((c) => c.line_of_coverage).sort();
const enrollmentsOf = async (w: EnrollmentWorld, member: string) =>
  (await ok(w.admin.get(`/enrollments?member=${member}&page_size=100`))).results as Enrollment[];
const changesOf = async (w: EnrollmentWorld, enrollment: string) => (await ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`))) as Change[];
const cobraEventsOf = async (w: EnrollmentWorld, member: string) =>
  (await ok(w.admin.get(`/cobra_events?member=${member}`))).results as { event_type: string; coverage_lost_date: string; lines_of_coverage: string[] }[];
const alertsOf = async (w: EnrollmentWorld, member: string) =>
  (await ok(w.admin.get(`/alerts?kind=eligibility_lost&member=${member}`))).results as { audience: string; payload: Record<string, string>; message: string }[];
const employmentChanges = async (w: EnrollmentWorld, member: string) => (await enrollmentsOf(w, member)).filter((e) => e.reason === 'employment_change');

async function configurationOf(w: EnrollmentWorld, plan: string): Promise<string> {
  return (await ok(w.admin.get(`/plan_configurations?plan=${plan}`))).results[0].id as string;
}

/**
 * A world whose medical requires `medical` (dental has no requirement), and a member with medical and dental held
 * by the carriers since 2026-01-01.
 */
async function coveredWorld(medical: Record<string, unknown>, member: Record<string, unknown> = { hours_worked: 40, employment_status: 'full_time' }) {
  const w = await createEnrollmentWorld(t);
  await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, medical));
  const covered = await createMember(w.admin, { employer: w.employer.id, dob: '1980-01-01', hire_date: '2020-01-01', ...member });
  await ok(
    w.admin.post('/enrollments', {
      member: covered.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id }],
    }),
    201,
  );
  return { w, member: covered };
}

describe('hours drop below the minimum (monthly measurement, 26 CFR 54.4980H-3(c))', () => {
  it('when hours go 40 -> 20 against a 30-hour minimum, then medical ends on the last day of the month of the change, the carrier is told, the employer alerted, the member notified, and COBRA reduction_of_hours is recorded once the coverage is lost', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: 30 });

    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 20 }));

    // Last day covered 2026-03-31 (the month of the change, 2026-03-02); first day without 2026-04-01. Dental stays.
    expect(await linesOn(w, member.id, '2026-03-31')).toEqual(['dental', 'medical']);
    expect(await linesOn(w, member.id, '2026-04-01')).toEqual(['dental']);
    const [loss] = await employmentChanges(w, member.id);
    expect(loss).toMatchObject({ status: expect.stringMatching(/^(approved|synced)$/), change_date: '2026-03-02', effective_start: '2026-04-01' });
    expect(await changesOf(w, loss!.id)).toEqual([
      expect.objectContaining({ line_of_coverage: 'medical', status: 'removed', coverage_start: '2026-01-01', coverage_end: '2026-03-31' }),
    ]);
    const [alert] = await alertsOf(w, member.id);
    expect(alert).toMatchObject({
      audience: 'employer',
      payload: { member: member.id, enrollment: loss!.id, coverage_end: '2026-03-31', change_date: '2026-03-02' },
    });
    expect(alert!.message).toContain('at least 30 scheduled hours');
    const notified = (await ok(w.admin.get(`/notifications?related_object_id=${loss!.id}`))).results as { notification_type: string; owner: string }[];
    expect(notified).toEqual([expect.objectContaining({ notification_type: 'enrollment_approved', owner: 'member' })]);

    // COBRA: not while the coverage lasts; on the first day without it, once.
    expect((await sweep.run('2026-03-31')).termination_cobra_events).toBe(0);
    expect(await cobraEventsOf(w, member.id)).toEqual([]);
    expect((await sweep.run('2026-04-01')).termination_cobra_events).toBe(1);
    expect((await sweep.run('2026-04-02')).termination_cobra_events).toBe(0);
    expect(await cobraEventsOf(w, member.id)).toEqual([
      expect.objectContaining({ event_type: 'reduction_of_hours', coverage_lost_date: '2026-04-01', lines_of_coverage: ['medical'] }),
    ]);
    // Hours dropping further start nothing new.
    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 10 }));
    expect(await employmentChanges(w, member.id)).toHaveLength(1);
  });

  it('when hours go back up before the coverage end, then the loss is undone: the coverage is given back, the carrier told, and no COBRA event follows', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: 30 });
    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 20 }));
    expect(await linesOn(w, member.id, '2026-04-01')).toEqual(['dental']);

    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 32 }));

    expect(await linesOn(w, member.id, '2026-04-01')).toEqual(['dental', 'medical']);
    const enrollments = await employmentChanges(w, member.id);
    expect(enrollments).toHaveLength(2);
    const changes = (await Promise.all(enrollments.map((e) => changesOf(w, e.id)))).flat();
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line_of_coverage: 'medical', status: 'removed', coverage_end: '2026-03-31' }),
        // Given back to the end it had: the plan year's.
        expect.objectContaining({ line_of_coverage: 'medical', status: 'change', changes: ['date_change'], coverage_end: '2026-12-31' }),
      ]),
    );
    await sweep.run('2026-04-01');
    expect(await cobraEventsOf(w, member.id)).toEqual([]);
  });

  it('when hours come back enough for one of two plans the loss ended, then that plan is given back and the other still ends on the same day', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: 30 });
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.dental.id)}`, { minimum_hours_per_week: 20 }));
    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 10 }));
    expect(await linesOn(w, member.id, '2026-04-01')).toEqual([]);

    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 25 }));

    expect(await linesOn(w, member.id, '2026-03-31')).toEqual(['dental', 'medical']);
    expect(await linesOn(w, member.id, '2026-04-01')).toEqual(['dental']);
    await sweep.run('2026-04-01');
    expect(await cobraEventsOf(w, member.id)).toEqual([expect.objectContaining({ event_type: 'reduction_of_hours', lines_of_coverage: ['medical'] })]);
  });

  it('when a member losing eligibility is terminated sooner, then the termination ends the coverage and is the only qualifying event', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: 30, termination_policy: 'termination_date' });
    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 20 }));
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-10' }));

    await sweep.run('2026-03-11');
    expect(await linesOn(w, member.id, '2026-03-10')).toContain('medical');
    expect(await linesOn(w, member.id, '2026-03-11')).not.toContain('medical');
    await sweep.run('2026-04-01');
    const events = await cobraEventsOf(w, member.id);
    expect(events.map((e) => e.event_type)).not.toContain('reduction_of_hours');
    expect(events).toContainEqual(
      expect.objectContaining({ event_type: 'termination', coverage_lost_date: '2026-03-11', lines_of_coverage: expect.arrayContaining(['medical']) }),
    );
  });

  it('when the member has no coverage the change affects, then the update does nothing else', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: null });
    const uncovered = await createMember(w.admin, { employer: w.employer.id, hire_date: '2020-01-01', hours_worked: 40 });

    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 5 }));
    await ok(w.admin.patch(`/members/${uncovered.id}`, { hours_worked: 5 }));

    expect(await employmentChanges(w, member.id)).toEqual([]);
    expect(await enrollmentsOf(w, uncovered.id)).toEqual([]);
    expect(await alertsOf(w, member.id)).toEqual([]);
    expect(await linesOn(w, member.id, '2026-12-31')).toEqual(['dental', 'medical']);
  });
});

describe('employment status no longer eligible', () => {
  it('when a full_time member becomes seasonal against a full_time-only configuration, then medical ends on the last day of the month', async () => {
    const { w, member } = await coveredWorld({ eligible_employment_statuses: ['full_time'] });

    await ok(w.admin.patch(`/members/${member.id}`, { employment_status: 'seasonal' }));

    expect(await linesOn(w, member.id, '2026-03-31')).toEqual(['dental', 'medical']);
    expect(await linesOn(w, member.id, '2026-04-01')).toEqual(['dental']);
    expect((await alertsOf(w, member.id))[0]!.message).toContain('offered to full_time employees');
  });
});

describe('look-back measurement (26 CFR 54.4980H-3(d))', () => {
  it('when the employer measures by look-back with 12-month stability periods from 07-01, then coverage ends on the last day of the stability period containing the change', async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: 30 });
    await ok(
      w.admin.patch(`/employers/${w.employer.id}`, { hours_measurement_method: 'look_back', stability_period_start: '07-01', stability_period_months: 12 }),
    );

    await ok(w.admin.patch(`/members/${member.id}`, { hours_worked: 20 }));

    // The change on 2026-03-02 is in the period 2025-07-01..2026-06-30.
    expect(await linesOn(w, member.id, '2026-06-30')).toEqual(['dental', 'medical']);
    expect(await linesOn(w, member.id, '2026-07-01')).toEqual(['dental']);
    // (The sweep's counters count every world of this file's database: the member's own events are what matter.)
    await sweep.run('2026-06-30');
    expect(await cobraEventsOf(w, member.id)).toEqual([]);
    await sweep.run('2026-07-01');
    expect(await cobraEventsOf(w, member.id)).toEqual([expect.objectContaining({ event_type: 'reduction_of_hours', coverage_lost_date: '2026-07-01' })]);
  });

  it('when the employer setting is incomplete or impossible, then 400 on the field, and nothing is written', async () => {
    const w = await createEnrollmentWorld(t);
    const lookBack = await w.admin.patch(`/employers/${w.employer.id}`, { hours_measurement_method: 'look_back' });
    expect(lookBack.status).toBe(400);
    expect(lookBack.body.input_errors.map((e: { field_path: string[] }) => e.field_path.join('.')).sort()).toEqual([
      'stability_period_months',
      'stability_period_start',
    ]);
    const leap = await w.admin.patch(`/employers/${w.employer.id}`, {
      hours_measurement_method: 'look_back',
      stability_period_start: '02-29',
      stability_period_months: 9,
    });
    expect(leap.status).toBe(400);
    expect(leap.body.input_errors.map((e: { field_path: string[] }) => e.field_path.join('.')).sort()).toEqual([
      'stability_period_months',
      'stability_period_start',
    ]);
    const created = await w.admin.post('/employers', {
      legal_name: 'Look Back LLC',
      address: address(),
      hours_measurement_method: 'look_back',
      stability_period_months: 12,
    });
    expect(created.status).toBe(400);
    expect(created.body.input_errors.map((e: { field_path: string[] }) => e.field_path.join('.'))).toEqual(['stability_period_start']);
    expect((await ok(w.admin.get(`/employers/${w.employer.id}`))).hours_measurement_method).toBe('monthly');
    const employer = await createEmployer(w.admin, {
      legal_name: 'Look Back LLC',
      hours_measurement_method: 'look_back',
      stability_period_start: '01-01',
      stability_period_months: 6,
    });
    expect(employer).toMatchObject({ hours_measurement_method: 'look_back', stability_period_start: '01-01', stability_period_months: 6 });
  });
});

describe('the daily sweep catches members who fall out of eligibility by date', () => {
  it('when a configuration comes to admit full_time employees only, then the sweep starts the loss of the seasonal member and leaves the full_time one', async () => {
    const { w, member: seasonal } = await coveredWorld({ minimum_hours_per_week: null }, { employment_status: 'seasonal' });
    const fullTime = await createMember(w.admin, { employer: w.employer.id, hire_date: '2020-01-01', employment_status: 'full_time' });
    await ok(
      w.admin.post('/enrollments', {
        member: fullTime.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id }],
      }),
      201,
    );
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.medical.id)}`, { eligible_employment_statuses: ['full_time'] }));

    await sweep.run('2026-05-10');

    expect(await linesOn(w, seasonal.id, '2026-05-31')).toEqual(['dental', 'medical']);
    expect(await linesOn(w, seasonal.id, '2026-06-01')).toEqual(['dental']);
    expect(await linesOn(w, fullTime.id, '2026-06-01')).toEqual(['medical']);
    expect(await employmentChanges(w, fullTime.id)).toEqual([]);
  });

  it("when next plan year's medical requires 30 hours and a 20-hour member holds it, then the sweep of its first day starts the loss (once), ending it at the end of that month", async () => {
    const { w, member } = await coveredWorld({ minimum_hours_per_week: null }, { hours_worked: 20 });
    const medical2027 = await ok(w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31' }), 201);
    await ok(
      w.admin.post('/enrollments', { member: member.id, category: 'carrier_sync', effective_start: '2027-01-01', enrolled_plans: [{ plan: medical2027.id }] }),
      201,
    );
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, medical2027.id)}`, { minimum_hours_per_week: 30 }));

    expect((await sweep.run('2026-12-31')).eligibility_lost).toBe(0);
    expect((await sweep.run('2027-01-01')).eligibility_lost).toBe(1);
    expect((await sweep.run('2027-01-01')).eligibility_lost).toBe(0);
    expect((await sweep.run('2027-01-02')).eligibility_lost).toBe(0);

    expect(await linesOn(w, member.id, '2027-01-31')).toEqual(['medical']);
    expect(await linesOn(w, member.id, '2027-02-01')).toEqual([]);
    const [loss] = await employmentChanges(w, member.id);
    expect(loss).toMatchObject({ change_date: '2027-01-01', effective_start: '2027-02-01' });
    expect(await alertsOf(w, member.id)).toHaveLength(1);
  });
});
