import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import { createCarrier, createEmployer, createGroup, createMember } from '../helpers/factories.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { ApiClient, createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02. Each world is a provider of its own with plan year 2026 and a member with a family.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The coverage the carrier already holds since 2026-01-01: medical for spouse and child, dental for the spouse, vision, life. */
async function familyCoverage(w: EnrollmentWorld, dependents: { medical?: string[]; dental?: string[] } = {}) {
  const { spouse, child } = w.family;
  const covering = (ids: string[]) => ids.map((dependent) => ({ dependent }));
  await ok(
    w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: covering(dependents.medical ?? [spouse.id, child.id]) },
        { plan: w.plans.dental.id, enrolled_dependents: covering(dependents.dental ?? [spouse.id]) },
        { plan: w.plans.vision.id },
        { plan: w.plans.life.id },
      ],
    }),
    201,
  );
}

/** A qle enrollment for `reason` (event on 2026-02-27, new coverage from 2026-03-01), submitted and approved. */
function qle(w: EnrollmentWorld, reason: string, body: Record<string, unknown>) {
  return approvedEnrollment(w, { category: 'qle', reason, change_date: '2026-02-27', effective_start: '2026-03-01', ...body });
}

const waive = (...lines: string[]) => lines.map((line_of_coverage) => ({ line_of_coverage, reason: 'other' }));

async function cobraEventsOf(client: ApiClient, member: string): Promise<any[]> {
  return (await ok(client.get(`/cobra_events?member=${member}&page_size=100`))).results;
}

/** What the member and family lose when all of familyCoverage (the world's coverage) ends: every group health line, not life. */
function familyLosses(w: EnrollmentWorld) {
  const { spouse, child } = w.family;
  return {
    lines_of_coverage: ['medical', 'dental', 'vision'],
    member_lost_coverage: true,
    dependents: [spouse.id, child.id],
    losses: [
      { line_of_coverage: 'medical', member_lost_coverage: true, dependents: [spouse.id, child.id] },
      { line_of_coverage: 'dental', member_lost_coverage: true, dependents: [spouse.id] },
      { line_of_coverage: 'vision', member_lost_coverage: true, dependents: [] },
    ],
  };
}

describe('recording qualifying events', () => {
  it("when the daily sweep ends a terminated member's coverage, then a termination is recorded with medical, dental and vision lost (not life), once, in the event log and to webhooks", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const endpoint = await ok(
      w.admin.post('/webhook_endpoints', { url: 'https://hooks.integrator.example/cobra', enabled_events: ['cobra_event.created'] }),
      201,
    );
    await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-10' }));

    const sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
    expect((await sweep.run('2026-03-10')).coverage_ended).toBe(0);
    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([]);
    await Promise.all([sweep.run('2026-03-11'), buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-03-11')]);
    await sweep.run('2026-03-11');
    await sweep.run('2026-03-12');

    const terminations = (await ok(w.admin.get(`/enrollments?member=${w.member.id}`))).results.filter((e: { reason: string }) => e.reason === 'terminated');
    expect(terminations).toHaveLength(1);
    const events = await cobraEventsOf(w.admin, w.member.id);
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^cobra_/),
        member: w.member.id,
        employer: w.employer.id,
        enrollment: terminations[0].id,
        event_type: 'termination',
        event_date: '2026-03-10',
        coverage_lost_date: '2026-03-11',
        ...familyLosses(w),
        qualified_beneficiaries: [w.member.id, w.family.spouse.id, w.family.child.id],
        // 29 U.S.C. 1162(2)(A)(i): 18 months after the qualifying event.
        maximum_coverage_months: 18,
        coverage_period_end: '2027-09-10',
        disability_determination: null,
        created_at: expect.any(String),
        withdrawn_at: null,
        withdrawn_by_enrollment: null,
      },
    ]);
    // Life ended too, through the same enrollment, and is no part of the record.
    const changes = await ok(w.admin.get(`/enrollments/${terminations[0].id}/benefit_changes`));
    expect(changes.map((change: { line_of_coverage: string }) => change.line_of_coverage).sort()).toEqual(['dental', 'life', 'medical', 'vision']);

    const logged = (await ok(w.admin.get('/events?type=cobra_event.created'))).results;
    expect(logged).toEqual([
      expect.objectContaining({
        event_type: 'cobra_event.created',
        object_type: 'cobra_event',
        object_id: events[0].id,
        employer: w.employer.id,
        data: { member: w.member.id, employer: w.employer.id, enrollment: terminations[0].id, event_type: 'termination' },
      }),
    ]);
    const deliveries = (await ok(w.admin.get(`/webhook_endpoints/${endpoint.id}/deliveries`))).results;
    expect(deliveries.map((delivery: { event: string; event_type: string }) => [delivery.event, delivery.event_type])).toEqual([
      [logged[0].id, 'cobra_event.created'],
    ]);
  });

  it('when a divorce enrollment drops the spouse, then a divorce is recorded with the spouse and the lines they lost; a retried approval records nothing more', async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const { spouse, child } = w.family;
    const divorce = await qle(w, 'divorce', {
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }, { plan: w.plans.dental.id }, { plan: w.plans.vision.id }],
    });
    expect((await w.admin.post(`/enrollments/${divorce.id}/approve`)).status).toBe(409);

    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([
      expect.objectContaining({
        enrollment: divorce.id,
        event_type: 'divorce_or_legal_separation',
        event_date: '2026-02-27',
        coverage_lost_date: '2026-03-01',
        lines_of_coverage: ['medical', 'dental'],
        member_lost_coverage: false,
        dependents: [spouse.id],
        losses: [
          { line_of_coverage: 'medical', member_lost_coverage: false, dependents: [spouse.id] },
          { line_of_coverage: 'dental', member_lost_coverage: false, dependents: [spouse.id] },
        ],
      }),
    ]);
  });

  it("when the same divorce is entered again after a correction put the spouse back, then the spouse's losses are not recorded twice", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const { spouse, child } = w.family;
    const withoutSpouse = { enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }, { plan: w.plans.dental.id }] };
    await qle(w, 'divorce', withoutSpouse);
    // A correction of the divorce entered by mistake: an admin puts the spouse back past the life event rules.
    await qle(w, 'dependent_court_order', {
      rules_override: { reason: 'The divorce was entered for the wrong member.' },
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }, { dependent: spouse.id }] },
        { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: spouse.id }] },
      ],
    });
    await qle(w, 'divorce', withoutSpouse);

    const events = await cobraEventsOf(w.admin, w.member.id);
    expect(events.map((event) => [event.event_type, event.dependents, event.lines_of_coverage])).toEqual([
      ['divorce_or_legal_separation', [spouse.id], ['medical', 'dental']],
    ]);
  });

  describe('a termination cancelling an election that would have continued the coverage (found by the plan-year simulation)', () => {
    /** The world's family coverage, elected again from 2026-04-01 (a correction HR enters), then a termination on 2026-03-31. */
    async function continuedThenTerminated(enteredOn: string) {
      const w = await createEnrollmentWorld(t);
      await familyCoverage(w);
      const { spouse, child } = w.family;
      await approvedEnrollment(w, {
        category: 'qle',
        reason: 'dependent_court_order',
        change_date: '2026-03-01',
        effective_start: '2026-04-01',
        rules_override: { reason: 'The court order continues the coverage as it is.' },
        enrolled_plans: [
          { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }] },
          { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: spouse.id }] },
          { plan: w.plans.vision.id },
          { plan: w.plans.life.id },
        ],
      });
      const today = t.clock.now().toISOString();
      t.clock.set(`${enteredOn}T15:00:00.000Z`);
      try {
        await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-31' }));
        await buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-04-01');
      } finally {
        t.clock.set(today);
      }
      return w;
    }

    it('when the termination is entered ahead and the sweep ends the coverage, then everyone covered on the last day is recorded as losing it', async () => {
      const w = await continuedThenTerminated('2026-03-20');
      const events = await cobraEventsOf(w.admin, w.member.id);
      expect(events).toEqual([expect.objectContaining({ event_type: 'termination', coverage_lost_date: '2026-04-01', ...familyLosses(w) })]);
    });

    it('when the termination is entered after its coverage end, then the loss is recorded at once, the same', async () => {
      const w = await continuedThenTerminated('2026-04-02');
      const events = await cobraEventsOf(w.admin, w.member.id);
      expect(events).toEqual([expect.objectContaining({ event_type: 'termination', coverage_lost_date: '2026-04-01', ...familyLosses(w) })]);
    });
  });

  it("when a death enrollment ends the member's coverage, then a death is recorded with every dependent who lost coverage", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const { spouse, child } = w.family;
    const death = await qle(w, 'death', { coverage_waivers: waive('medical', 'dental', 'vision', 'life') });

    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([
      expect.objectContaining({
        enrollment: death.id,
        event_type: 'death',
        event_date: '2026-02-27',
        coverage_lost_date: '2026-03-01',
        lines_of_coverage: ['medical', 'dental', 'vision'],
        member_lost_coverage: true,
        dependents: [spouse.id, child.id],
      }),
    ]);
  });

  // 29 U.S.C. 1163(2): the service records a reduction of hours from an employment_change enrollment, and from
  // a leave_of_absence one (26 CFR 54.4980B-4 Q&A-1(e)), when it ends coverage.
  it.each(['employment_change', 'leave_of_absence'])(
    "when a %s enrollment ends the member's coverage, then a reduction of hours is recorded with medical, dental and vision lost (not life) and every dependent who lost them",
    async (reason) => {
      const w = await createEnrollmentWorld(t);
      await familyCoverage(w);
      const reduced = await qle(w, reason, { coverage_waivers: waive('medical', 'dental', 'vision', 'life') });

      expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([
        expect.objectContaining({
          member: w.member.id,
          employer: w.employer.id,
          enrollment: reduced.id,
          event_type: 'reduction_of_hours',
          event_date: '2026-02-27',
          coverage_lost_date: '2026-03-01',
          ...familyLosses(w),
        }),
      ]);
    },
  );

  it("when a death enrollment only drops a dependent (a spouse's death), then nothing is recorded: 1163(1) is the employee's death", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    await qle(w, 'death', {
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.child.id }] }, { plan: w.plans.dental.id }],
    });
    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([]);
  });

  it("when a medicare_eligible enrollment ends the member's medical with the spouse on it, then a Medicare entitlement is recorded", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w, { medical: [w.family.spouse.id] });
    await qle(w, 'medicare_eligible', { coverage_waivers: waive('medical') });

    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([
      expect.objectContaining({
        event_type: 'medicare_entitlement',
        lines_of_coverage: ['medical'],
        member_lost_coverage: true,
        dependents: [w.family.spouse.id],
        losses: [{ line_of_coverage: 'medical', member_lost_coverage: true, dependents: [w.family.spouse.id] }],
      }),
    ]);
  });

  it("when a medicare_eligible enrollment drops the spouse for the spouse's own Medicare entitlement, then nothing is recorded: 1163(4) is the employee's entitlement", async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w, { medical: [w.family.spouse.id] });
    const dropped = await qle(w, 'medicare_eligible', {
      medicare_entitled_dependent: w.family.spouse.id,
      enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id }],
    });
    expect(dropped.medicare_entitled_dependent).toBe(w.family.spouse.id);
    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([]);
    // The same drop for the employee's own entitlement is the spouse's qualifying event.
    const v = await createEnrollmentWorld(t);
    await familyCoverage(v, { medical: [v.family.spouse.id] });
    await qle(v, 'medicare_eligible', { enrolled_plans: [{ plan: v.plans.medical.id }, { plan: v.plans.dental.id }] });
    expect(
      (await cobraEventsOf(v.admin, v.member.id)).map((event: { event_type: string; dependents: string[] }) => [event.event_type, event.dependents]),
    ).toEqual([['medicare_entitlement', [v.family.spouse.id]]]);
  });

  it("when a spouse's own Medicare entitlement also drops the child or the member's line, then a 400 names the drop rule; the spouse alone is accepted (26 CFR 1.125-4(e))", async () => {
    const w = await createEnrollmentWorld(t);
    const { spouse, child } = w.family;
    await familyCoverage(w, { medical: [spouse.id, child.id] });
    const body = {
      category: 'qle',
      reason: 'medicare_eligible',
      change_date: '2026-02-27',
      effective_start: '2026-03-01',
      medicare_entitled_dependent: spouse.id,
    };
    const submit = async (extra: Record<string, unknown>) => {
      const created = await ok(w.admin.post('/enrollments', { member: w.member.id, ...body, ...extra }), 201);
      return w.admin.post(`/enrollments/${created.id}/save_and_submit`);
    };
    const childToo = await submit({
      enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: spouse.id }] }],
    });
    expect(childToo.status).toBe(400);
    expect(childToo.body.input_errors.map((error: { message: string }) => error.message).join(' ')).toContain(
      `medicare_eligible/drop: only dependent ${spouse.id}`,
    );
    const memberToo = await submit({ coverage_waivers: waive('medical') });
    expect(memberToo.status).toBe(400);
    const spouseOnly = await submit({
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] },
        { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: spouse.id }] },
      ],
    });
    expect(spouseOnly.status).toBe(200);
  });

  it('when medicare_entitled_dependent names no dependent of the member, or goes with another reason, then a 400 names it', async () => {
    const w = await createEnrollmentWorld(t);
    const other = await createEnrollmentWorld(t);
    const body = { member: w.member.id, category: 'qle', change_date: '2026-02-27', effective_start: '2026-03-01' };
    const stranger = await w.admin.post('/enrollments', { ...body, reason: 'medicare_eligible', medicare_entitled_dependent: other.family.spouse.id });
    expect(stranger.status).toBe(400);
    expect(stranger.body.input_errors.map((error: { field_path: string[] }) => error.field_path.join('.'))).toEqual(['medicare_entitled_dependent']);
    const wrongReason = await w.admin.post('/enrollments', { ...body, reason: 'marriage', medicare_entitled_dependent: w.family.spouse.id });
    expect(wrongReason.status).toBe(400);
    expect(wrongReason.body.input_errors.map((error: { field_path: string[] }) => error.field_path.join('.'))).toEqual(['medicare_entitled_dependent']);
    const created = await ok(w.admin.post('/enrollments', { ...body, reason: 'medicare_eligible', medicare_entitled_dependent: w.family.spouse.id }), 201);
    const switched = await w.admin.patch(`/enrollments/${created.id}`, { reason: 'divorce' });
    expect(switched.status).toBe(400);
    expect((await ok(w.admin.patch(`/enrollments/${created.id}`, { medicare_entitled_dependent: null }))).medicare_entitled_dependent).toBeNull();
  });

  it("when a dependent_aged_out enrollment drops a child, then the child's ceasing to be a dependent is recorded with that child only", async () => {
    const w = await createEnrollmentWorld(t);
    const { child, grownChild } = w.family;
    await familyCoverage(w, { medical: [child.id, grownChild.id], dental: [] });
    await qle(w, 'dependent_aged_out', { enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }] });

    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([
      expect.objectContaining({
        event_type: 'dependent_ceased_to_be_dependent',
        lines_of_coverage: ['medical'],
        member_lost_coverage: false,
        dependents: [grownChild.id],
      }),
    ]);
  });

  it('when an employment change moves medical to another carrier with the same persons, then nothing is lost and nothing is recorded', async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    const otherCarrier = await createCarrier(w.admin, { legal_name: 'Other Health Co' });
    const otherGroup = await createGroup(w.admin, { employer: w.employer.id, carrier: otherCarrier.id, connection_method: 'manual', group_number: 'G-OTHER' });
    const otherMedical = await createPlan(w.admin, { group: otherGroup.id, plan_name: 'Other PPO', line_of_coverage: 'medical' });
    await createPlanConfiguration(w.admin, { plan: otherMedical.id });
    const { spouse, child } = w.family;

    const moved = await qle(w, 'employment_change', {
      enrolled_plans: [{ plan: otherMedical.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }] }],
    });
    expect((await ok(w.admin.get(`/enrollments/${moved.id}/benefit_changes`))).length).toBeGreaterThan(0);
    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([]);
  });

  it('when coverage is dropped for a reason that is no qualifying event (other coverage gained), then nothing is recorded', async () => {
    const w = await createEnrollmentWorld(t);
    await familyCoverage(w);
    await qle(w, 'gain_coverage', { coverage_waivers: waive('medical', 'dental', 'vision') });
    expect(await cobraEventsOf(w.admin, w.member.id)).toEqual([]);
  });
});

describe('reading COBRA events', () => {
  let w: EnrollmentWorld;
  let divorce: any;
  let agedOut: any;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
    const { spouse, child, grownChild } = w.family;
    await familyCoverage(w, { medical: [spouse.id, child.id, grownChild.id] });
    t.clock.advance(1000);
    await qle(w, 'dependent_aged_out', {
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }] }],
    });
    t.clock.advance(1000);
    await qle(w, 'divorce', { enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }, { plan: w.plans.dental.id }] });
    [divorce, agedOut] = await cobraEventsOf(w.admin, w.member.id);
  });

  it('when listed, then newest first in keyset pages; each is retrieved by id', async () => {
    expect([divorce.event_type, agedOut.event_type]).toEqual(['divorce_or_legal_separation', 'dependent_ceased_to_be_dependent']);
    expect(agedOut.dependents).toEqual([w.family.grownChild.id]);
    const first = await ok(w.admin.get('/cobra_events?page_size=1'));
    expect(first.results.map((event: { id: string }) => event.id)).toEqual([divorce.id]);
    expect(first.previous).toBeNull();
    const second = await ok(w.admin.get(first.next));
    expect(second.results.map((event: { id: string }) => event.id)).toEqual([agedOut.id]);
    expect(second.next).toBeNull();
    expect(await ok(w.admin.get(`/cobra_events/${agedOut.id}`))).toEqual(agedOut);
  });

  it('when filtered by employer, member and created_after (any offset), then only matching events are listed', async () => {
    const otherEmployer = await createEmployer(w.admin);
    const otherMember = await createMember(w.admin, { employer: w.employer.id });
    const ids = async (query: string) => (await ok(w.admin.get(`/cobra_events?${query}`))).results.map((event: { id: string }) => event.id);
    expect(await ids(`employer=${w.employer.id}`)).toEqual([divorce.id, agedOut.id]);
    expect(await ids(`member=${w.member.id}&employer=${w.employer.id}`)).toEqual([divorce.id, agedOut.id]);
    expect(await ids(`employer=${otherEmployer.id}`)).toEqual([]);
    expect(await ids(`member=${otherMember.id}`)).toEqual([]);
    expect(await ids(`created_after=${encodeURIComponent(agedOut.created_at)}`)).toEqual([divorce.id]);
    // The same instant two hours ahead of UTC.
    const shifted = new Date(Date.parse(agedOut.created_at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await ids(`created_after=${encodeURIComponent(shifted)}`)).toEqual([divorce.id]);
    expect(await ids(`created_after=${encodeURIComponent(new Date(Date.parse(agedOut.created_at) - 1).toISOString())}`)).toEqual([divorce.id, agedOut.id]);
    expect((await w.admin.get('/cobra_events?created_after=yesterday')).status).toBe(400);
    expect((await w.admin.get('/cobra_events?event_type=death')).status).toBe(400);
  });

  it('when another provider asks, then the events are 404 and its list is empty', async () => {
    expect((await t.admin.get(`/cobra_events/${divorce.id}`)).status).toBe(404);
    expect((await ok(t.admin.get('/cobra_events'))).results).toEqual([]);
    expect((await t.admin.get('/cobra_events/cobra_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/cobra_events/not%20an%20id')).status).toBe(404);
  });

  it("when employer and read-only keys read, then they see their employer's events only; the routes are read-only", async () => {
    const keyFor = async (body: Record<string, unknown>) => new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', body), 201)).key);
    const own = await keyFor({ role: 'employer', employer: w.employer.id });
    const otherEmployer = await createEmployer(w.admin);
    const other = await keyFor({ role: 'employer', employer: otherEmployer.id });
    const readOnly = await keyFor({ role: 'read_only' });

    expect((await ok(own.get('/cobra_events'))).results.map((event: { id: string }) => event.id)).toEqual([divorce.id, agedOut.id]);
    expect(await ok(own.get(`/cobra_events/${divorce.id}`))).toEqual(divorce);
    expect((await ok(other.get('/cobra_events'))).results).toEqual([]);
    expect((await other.get(`/cobra_events/${divorce.id}`)).status).toBe(404);
    expect((await ok(other.get('/events?type=cobra_event.created'))).results).toEqual([]);
    expect((await ok(readOnly.get('/cobra_events'))).results).toHaveLength(2);
    expect((await w.admin.post('/cobra_events', {})).status).toBe(405);
    expect((await w.admin.patch(`/cobra_events/${divorce.id}`, {})).status).toBe(405);
  });
});
