import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { ApiClient, createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02. A termination recorded with a past date ends the coverage at once (the world's plans end
// coverage on the termination date), so its COBRA event is recorded by the PATCH itself.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The family's coverage since 2026-01-01: medical for spouse and child, dental for the spouse, vision, life. */
async function familyCoverage(w: EnrollmentWorld) {
  const { spouse, child } = w.family;
  await ok(
    w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }] },
        { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: spouse.id }] },
        { plan: w.plans.vision.id },
        { plan: w.plans.life.id },
      ],
    }),
    201,
  );
}

async function cobraEventsOf(w: EnrollmentWorld): Promise<any[]> {
  return (await ok(w.admin.get(`/cobra_events?member=${w.member.id}&page_size=100`))).results;
}

async function serviceEnrollmentsOf(w: EnrollmentWorld): Promise<any[]> {
  return (await ok(w.admin.get(`/enrollments?member=${w.member.id}&page_size=100`))).results.filter((e: { category: string; reason: string }) =>
    ['terminated', 'death'].includes(e.reason),
  );
}

/** A family world whose member is terminated on 2026-02-15 with this reason; returns the world and its COBRA events. */
async function terminatedFor(reason: string) {
  const w = await createEnrollmentWorld(t);
  await familyCoverage(w);
  await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-02-15', termination_reason: reason }));
  return { w, events: await cobraEventsOf(w) };
}

describe('the event type and length follow from the termination reason (29 U.S.C. 1163, 1162(2)(A))', () => {
  it('when the member dies, then the termination is a death: a `death` enrollment and event for the spouse and child, 36 months from the death, the member no qualified beneficiary', async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const { spouse, child } = w.family;
    await ok(w.admin.patch(`/members/${w.member.id}`, { date_of_death: '2026-02-20' }));

    const [enrollment, ...others] = await serviceEnrollmentsOf(w);
    expect(others).toEqual([]);
    expect(enrollment).toMatchObject({ reason: 'death', change_date: '2026-02-20', status: expect.stringMatching(/approved|synced/) });
    const events = await cobraEventsOf(w);
    expect(events).toEqual([
      expect.objectContaining({
        enrollment: enrollment.id,
        event_type: 'death',
        event_date: '2026-02-20',
        coverage_lost_date: '2026-02-21',
        member_lost_coverage: true,
        dependents: [spouse.id, child.id],
        qualified_beneficiaries: [spouse.id, child.id],
        maximum_coverage_months: 36,
        coverage_period_end: '2029-02-20',
        disability_determination: null,
      }),
    ]);
    const logged = (await ok(w.admin.get(`/events?type=cobra_event.created&object_id=${events[0].id}`))).results;
    expect(logged.map((event: { data: unknown }) => event.data)).toEqual([
      { member: w.member.id, employer: w.employer.id, enrollment: enrollment.id, event_type: 'death' },
    ]);
  });

  it('when the termination is for gross misconduct, then the coverage ends but no COBRA event is recorded (1163(2))', async () => {
    const { w, events } = await terminatedFor('gross_misconduct');
    expect(events).toEqual([]);
    const [enrollment] = await serviceEnrollmentsOf(w);
    expect(enrollment).toMatchObject({ reason: 'terminated', change_date: '2026-02-15' });
    expect((await ok(w.admin.get(`/members/${w.member.id}/coverage?date=2026-02-16`))).coverage).toEqual([]);
    expect((await ok(w.admin.get(`/members/${w.member.id}/coverage?date=2026-02-15`))).coverage).not.toEqual([]);
  });

  it('when the termination is a reduction in hours, then a reduction_of_hours event of the member and family, 18 months (1162(2)(A)(i))', async () => {
    const { w, events } = await terminatedFor('reduction_in_hours');
    expect(events).toEqual([
      expect.objectContaining({
        event_type: 'reduction_of_hours',
        event_date: '2026-02-15',
        qualified_beneficiaries: [w.member.id, w.family.spouse.id, w.family.child.id],
        maximum_coverage_months: 18,
        coverage_period_end: '2027-08-15',
      }),
    ]);
  });

  it.each([
    ['gross_misconduct', []],
    ['reduction_in_hours', [['reduction_of_hours', 18, '2027-09-01']]],
  ])(
    'when the reason is corrected to %s after the termination applied and before the coverage is lost, then the sweep of the first day without coverage records %j: the reason on record then decides',
    async (corrected, expected) => {
      const w = await createEnrollmentWorld(t);
      for (const plan of [w.plans.medical, w.plans.dental, w.plans.vision]) {
        const configuration = (await ok(w.admin.get(`/plan_configurations?plan=${plan.id}`))).results[0].id as string;
        await ok(w.admin.patch(`/plan_configurations/${configuration}`, { termination_policy: 'end_of_month' }));
      }
      await familyCoverage(w);
      // Applied at once (past); the group health coverage runs to 2026-03-31, lost from 2026-04-01.
      await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-01', termination_reason: 'voluntary' }));
      expect(await cobraEventsOf(w)).toEqual([]);
      await ok(w.admin.patch(`/members/${w.member.id}`, { termination_reason: corrected }));
      const sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
      await sweep.run('2026-04-01');
      await sweep.run('2026-04-02');
      // One per coverage end: life ends on the termination date, the group health lines at the end of the month.
      expect((await serviceEnrollmentsOf(w)).map((e) => e.reason)).toEqual(['terminated', 'terminated']);
      expect((await cobraEventsOf(w)).map((e) => [e.event_type, e.maximum_coverage_months, e.coverage_period_end])).toEqual(expected);
    },
  );

  it.each(['voluntary', 'involuntary', 'layoff', 'retirement', 'leave', 'other'])(
    'when the termination reason is %s, then a termination of 18 months',
    async (reason) => {
      const { events } = await terminatedFor(reason);
      expect(events.map((e) => [e.event_type, e.maximum_coverage_months, e.coverage_period_end])).toEqual([['termination', 18, '2027-08-15']]);
    },
  );
});

describe('POST /cobra_events/{id}/disability_determination (29 U.S.C. 1162(2)(A)(viii))', () => {
  let w: EnrollmentWorld;
  let event: any;
  beforeAll(async () => {
    ({
      w,
      events: [event],
    } = await terminatedFor('voluntary'));
  });

  it('when a qualifying determination is notified, then the event lasts 29 months, `cobra_event.updated` is recorded; the same again changes nothing, another is a 409', async () => {
    const body = { person: w.family.child.id, disabled_on: '2026-03-01', determined_on: '2026-03-01' };
    const extended = await ok(w.admin.post(`/cobra_events/${event.id}/disability_determination`, body));
    expect(extended).toEqual({
      ...event,
      maximum_coverage_months: 29,
      coverage_period_end: '2028-07-15',
      disability_determination: { person: w.family.child.id, disabled_on: '2026-03-01', determined_on: '2026-03-01', recorded_at: expect.any(String) },
    });
    expect(await ok(w.admin.get(`/cobra_events/${event.id}`))).toEqual(extended);
    const updates = async () => (await ok(w.admin.get(`/events?type=cobra_event.updated&object_id=${event.id}`))).results;
    expect((await updates()).map((e: { data: unknown }) => e.data)).toEqual([
      { member: w.member.id, employer: w.employer.id, enrollment: event.enrollment, event_type: 'termination' },
    ]);

    expect(await ok(w.admin.post(`/cobra_events/${event.id}/disability_determination`, body))).toEqual(extended);
    expect(await updates()).toHaveLength(1);
    const another = await w.admin.post(`/cobra_events/${event.id}/disability_determination`, { ...body, person: w.member.id });
    expect(another.status).toBe(409);
    expect(await updates()).toHaveLength(1);
  });

  it('when the determination is outside the statutory windows or names someone else, then a 400 on the field, and nothing changes', async () => {
    const { w: other, events } = await terminatedFor('involuntary');
    const [termination] = events;
    const post = (body: Record<string, unknown>) => other.admin.post(`/cobra_events/${termination.id}/disability_determination`, body);
    const fieldsOf = async (body: Record<string, unknown>) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      return response.body.input_errors?.map((e: { field_path: string[] }) => e.field_path.join('.'));
    };
    // Coverage lost on 2026-02-16: the first 60 days of continuation coverage end on 2026-04-16.
    expect(await fieldsOf({ person: other.family.spouse.id, disabled_on: '2026-04-17', determined_on: '2026-03-01' })).toEqual(['disabled_on']);
    expect(await fieldsOf({ person: other.family.spouse.id, disabled_on: '2026-02-01', determined_on: '2026-03-03' })).toEqual(['determined_on']);
    expect(await fieldsOf({ person: 'dep_notinthisevent', disabled_on: '2026-02-01', determined_on: '2026-03-01' })).toEqual(['person']);
    expect(await fieldsOf({ person: other.family.spouse.id, disabled_on: 'yesterday', determined_on: '2026-03-01' })).toEqual(['disabled_on']);
    expect((await ok(other.admin.get(`/cobra_events/${termination.id}`))).maximum_coverage_months).toBe(18);
    expect((await ok(other.admin.get(`/events?type=cobra_event.updated&object_id=${termination.id}`))).results).toEqual([]);
  });

  it('when the event is a death (36 months), then a 409; another provider gets a 404, a read-only key a 403', async () => {
    const dead = await createEnrollmentWorld(t);
    await familyCoverage(dead);
    await ok(dead.admin.patch(`/members/${dead.member.id}`, { date_of_death: '2026-02-20' }));
    const [death] = await cobraEventsOf(dead);
    const body = { person: dead.family.spouse.id, disabled_on: '2026-02-01', determined_on: '2026-03-01' };
    expect((await dead.admin.post(`/cobra_events/${death.id}/disability_determination`, body)).status).toBe(409);

    expect((await t.admin.post(`/cobra_events/${event.id}/disability_determination`, body)).status).toBe(404);
    const readOnly = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', { role: 'read_only' }), 201)).key);
    expect((await readOnly.post(`/cobra_events/${event.id}/disability_determination`, body)).status).toBe(403);
  });
});
