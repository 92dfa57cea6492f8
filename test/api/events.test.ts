import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeCommit, buildDailySweep, buildEventLog, buildJobHandlers } from '../../src/app.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { CarrierService } from '../../src/modules/carriers/carrier.service.ts';
import { purgeExpiredEvents } from '../../src/modules/events/event.service.ts';
import { activeWindow, approvedEnrollment, createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { address, createCarrier, createEmployer, createGroup, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { createBeneficiary, createDependent, createPayRate } from '../helpers/people-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import type { ApiClient, ApiResponse } from '../helpers/test-app.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02T15:00:00Z and standing still unless a test moves it, so that many events share one
// created_at: their order then rests on the ordered event ids, as it does within one transaction.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Event {
  id: string;
  object: 'event';
  event_type: string;
  object_type: string;
  object_id: string;
  employer: string | null;
  data: Record<string, unknown>;
  created_at: string;
}

async function ok<T = any>(response: Promise<ApiResponse<T>>, status = 200): Promise<T> {
  const answered = await response;
  if (answered.status !== status) throw new Error(`expected ${status}, got ${answered.status}: ${answered.text}`);
  return answered.body;
}

/** Every event the client sees for `query`, newest first, following `next` to the end. */
async function listAll(client: ApiClient, query = ''): Promise<Event[]> {
  const events: Event[] = [];
  let url: string | null = `/events?page_size=100${query ? `&${query}` : ''}`;
  while (url) {
    const page: { next: string | null; results: Event[] } = await ok(client.get(url));
    events.push(...page.results);
    url = page.next;
  }
  return events;
}

/** The event types of one object, oldest first. */
async function typesOf(client: ApiClient, objectId: string): Promise<string[]> {
  return (await listAll(client, `object_id=${objectId}`)).reverse().map((event) => event.event_type);
}

/** The instant a millisecond before `timestamp`, for `created_after`. */
const justBefore = (timestamp: string) => new Date(Date.parse(timestamp) - 1).toISOString();

const documentBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'id-card-front.pdf',
  content_type: 'application/pdf',
  content_base64: Buffer.from('%PDF-1.7 card').toString('base64'),
  ...overrides,
});

describe('one event per create, update and delete', () => {
  let admin: ApiClient;
  beforeAll(async () => {
    admin = await newProviderAdmin(t, 'events-crud');
  });

  it('when a carrier is created and updated, then carrier.created and carrier.updated, provider-wide (no employer)', async () => {
    const carrier = await createCarrier(admin);
    await ok(admin.patch(`/carriers/${carrier.id}`, { trade_name: 'Renamed' }));
    const events = (await listAll(admin, `object_id=${carrier.id}`)).reverse();
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9A-Za-z]{20}$/),
        object: 'event',
        event_type: 'carrier.created',
        object_type: 'carrier',
        object_id: carrier.id,
        employer: null,
        data: {},
        created_at: t.clock.now().toISOString(),
      },
      {
        id: expect.stringMatching(/^evt_/),
        object: 'event',
        event_type: 'carrier.updated',
        object_type: 'carrier',
        object_id: carrier.id,
        employer: null,
        data: {},
        created_at: t.clock.now().toISOString(),
      },
    ]);
    expect(await ok(admin.get(`/events/${events[0]!.id}`))).toEqual(events[0]);
  });

  it('when employers, groups, business units and subclasses are created and updated, then each has its created and updated event', async () => {
    const employer = await createEmployer(admin);
    await ok(admin.patch(`/employers/${employer.id}`, { trade_name: 'Acme' }));
    expect(await typesOf(admin, employer.id)).toEqual(['employer.created', 'employer.updated']);
    expect((await listAll(admin, `object_id=${employer.id}`))[0]).toMatchObject({ employer: employer.id, data: {} });

    const group = await createGroup(admin, { employer: employer.id });
    await ok(admin.patch(`/groups/${group.id}`, { connection_method: 'edi' }));
    expect(await typesOf(admin, group.id)).toEqual(['group.created', 'group.updated']);
    expect((await listAll(admin, `object_id=${group.id}`))[0]).toMatchObject({
      employer: employer.id,
      data: { employer: employer.id, carrier: group.carrier, connection_method: 'edi' },
    });

    const first = await ok(admin.post('/business_units', { employer: employer.id, legal_name: 'East', is_primary: true }), 201);
    const second = await ok(admin.post('/business_units', { employer: employer.id, legal_name: 'West', is_primary: true }), 201);
    await ok(admin.patch(`/business_units/${second.id}`, { trade_name: 'W' }));
    // Making West primary cleared East's flag in the same transaction: that is an update of East.
    expect(await typesOf(admin, first.id)).toEqual(['business_unit.created', 'business_unit.updated']);
    expect((await listAll(admin, `object_id=${first.id}`))[0]!.data).toEqual({ employer: employer.id, is_primary: false });
    expect(await typesOf(admin, second.id)).toEqual(['business_unit.created', 'business_unit.updated']);

    const subclass = await ok(admin.post('/subclasses', { employer: employer.id, category: 'location', name: 'Chicago', is_default: true }), 201);
    await ok(admin.patch(`/subclasses/${subclass.id}`, { name: 'Chicago HQ' }));
    expect(await typesOf(admin, subclass.id)).toEqual(['subclass.created', 'subclass.updated']);
    expect((await listAll(admin, `object_id=${subclass.id}`))[0]!.data).toEqual({ employer: employer.id, category: 'location', is_default: true });
  });

  it('when members, dependents, beneficiaries and pay rates are created, updated and deleted, then each has exactly those three events', async () => {
    const employer = await createEmployer(admin);
    const member = await createMember(admin, { employer: employer.id, hire_date: '2020-01-01' });
    await ok(admin.patch(`/members/${member.id}`, { job_title: 'Nurse' }));
    const dependent = await createDependent(admin, { member: member.id });
    await ok(admin.patch(`/dependents/${dependent.id}`, { first_name: 'Samuel' }));
    await ok(admin.delete(`/dependents/${dependent.id}`));
    const beneficiary = await createBeneficiary(admin, { member: member.id });
    await ok(admin.patch(`/beneficiaries/${beneficiary.id}`, { full_name: 'Alexis Rivera' }));
    await ok(admin.delete(`/beneficiaries/${beneficiary.id}`));
    const payRate = await createPayRate(admin, { member: member.id });
    await ok(admin.patch(`/pay_rates/${payRate.id}`, { amount: '75000.00' }));
    await ok(admin.delete(`/pay_rates/${payRate.id}`));
    await ok(admin.delete(`/members/${member.id}`));

    expect(await typesOf(admin, member.id)).toEqual(['member.created', 'member.updated', 'member.deleted']);
    for (const [record, type] of [
      [dependent, 'dependent'],
      [beneficiary, 'beneficiary'],
      [payRate, 'pay_rate'],
    ] as const) {
      const events = (await listAll(admin, `object_id=${record.id}`)).reverse();
      expect(events.map((event) => event.event_type)).toEqual([`${type}.created`, `${type}.updated`, `${type}.deleted`]);
      for (const event of events) expect(event).toMatchObject({ object_type: type, employer: employer.id, data: { member: member.id, employer: employer.id } });
    }
  });

  it('when documents, plans, plan configurations (with a contribution strategy) and ID cards change, then each change has its event', async () => {
    const employer = await createEmployer(admin);
    const member = await createMember(admin, { employer: employer.id });
    const document = await ok(admin.post('/documents', documentBody({ member: member.id })), 201);
    expect(await typesOf(admin, document.id)).toEqual(['document.created']);

    const plan = await createPlan(admin, { employer: employer.id });
    await ok(admin.patch(`/plans/${plan.id}`, { plan_name: 'Gold PPO 2000' }));
    expect(await typesOf(admin, plan.id)).toEqual(['plan.created', 'plan.updated']);
    expect((await listAll(admin, `object_id=${plan.id}`))[0]!.data).toEqual({
      employer: employer.id,
      group: plan.group,
      line_of_coverage: 'medical',
      previous_plan: null,
      next_plan: null,
    });

    const configuration = await createPlanConfiguration(admin, { plan: plan.id });
    await ok(admin.patch(`/plan_configurations/${configuration.id}`, { waiting_period_days: 30 }));
    await ok(admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
    expect(await typesOf(admin, configuration.id)).toEqual(['plan_configuration.created', 'plan_configuration.updated', 'plan_configuration.updated']);

    const card = await ok(admin.post('/member_id_cards', { member: member.id, document: document.id, member_number: 'M-1' }), 201);
    await ok(admin.delete(`/member_id_cards/${card.id}`));
    expect(await typesOf(admin, card.id)).toEqual(['member_id_card.created', 'member_id_card.deleted']);
    expect((await listAll(admin, `object_id=${card.id}`))[0]!.data).toEqual({ member: member.id, employer: employer.id, carrier: null, document: document.id });
  });

  it('when an open enrollment window goes through its lifecycle, then created, updated, activated, closed and completed, each with its status', async () => {
    const employer = await createEmployer(admin);
    const plan = await createPlan(admin, { employer: employer.id });
    const window = await ok(admin.post('/open_enrollment_windows', { employer: employer.id }), 201);
    await ok(
      admin.patch(`/open_enrollment_windows/${window.id}`, { start_date: '2026-03-01', end_date: '2026-03-31', renewal_date: '2026-04-01', plans: [plan.id] }),
    );
    await ok(admin.post(`/open_enrollment_windows/${window.id}/activate`));
    await ok(admin.post(`/open_enrollment_windows/${window.id}/close`));
    await ok(admin.post(`/open_enrollment_windows/${window.id}/complete`));
    const events = (await listAll(admin, `object_id=${window.id}`)).reverse();
    expect(events.map((event) => [event.event_type, event.data.status])).toEqual([
      ['open_enrollment_window.created', 'setup_required'],
      ['open_enrollment_window.updated', 'build_in_progress'],
      ['open_enrollment_window.activated', 'active'],
      ['open_enrollment_window.closed', 'closed'],
      ['open_enrollment_window.completed', 'completed'],
    ]);
    expect(events[0]!.data).toEqual({ employer: employer.id, status: 'setup_required', enrollment_type: 'active' });
  });

  it('when API keys are created and revoked, then no event (keys are secrets, not records of the benefits data)', async () => {
    const before = (await listAll(admin)).length;
    const key = await ok(admin.post('/api_keys', { role: 'read_only' }), 201);
    await ok(admin.delete(`/api_keys/${key.id}`));
    expect(await listAll(admin)).toHaveLength(before);
  });
});

describe('enrollments', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });

  it('when an enrollment is created, edited, submitted, reopened, resubmitted, approved and its change completed, then its events come in that order', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    await ok(w.admin.patch(`/enrollments/${enrollment.id}`, { metadata: { batch: '7' } }));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/reopen`));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/approve`));
    const [change] = await ok(w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`));
    await ok(w.admin.patch(`/benefit_changes/${change.id}`, { memo: 'Called the carrier' }));
    await ok(w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: t.clock.now().toISOString() }));

    const events = (await listAll(w.admin, `object_id=${enrollment.id}`)).reverse();
    expect(events.map((event) => [event.event_type, event.data.status])).toEqual([
      ['enrollment.created', 'not_started'],
      ['enrollment.updated', 'not_started'],
      ['enrollment.submitted', 'pending'],
      ['enrollment.reopened', 'not_started'],
      ['enrollment.submitted', 'pending'],
      ['enrollment.approved', 'approved'],
      ['enrollment.synced', 'synced'],
    ]);
    expect(events[0]!.data).toEqual({
      member: w.member.id,
      employer: w.employer.id,
      status: 'not_started',
      category: 'open_enrollment',
      open_enrollment_window: w.window.id,
      rules_overridden: false,
    });
    const changeEvents = (await listAll(w.admin, `object_id=${change.id}`)).reverse();
    expect(changeEvents.map((event) => [event.event_type, event.data.delivery_state])).toEqual([
      ['benefit_change.created', 'manual'],
      ['benefit_change.updated', 'manual'],
      ['benefit_change.completed', 'completed'],
    ]);
    expect(changeEvents[0]!.data).toEqual({
      enrollment: enrollment.id,
      member: w.member.id,
      employer: w.employer.id,
      line_of_coverage: 'medical',
      status: 'new',
      delivery_state: 'manual',
    });

    // The whole flow in the order it happened, newest first, as one list answers it.
    const all = await listAll(w.admin, `type=enrollment.*,benefit_change.*,notification.created&created_after=${justBefore(events[0]!.created_at)}`);
    const approval = all
      .slice(0, 6)
      .reverse()
      .map((event) => event.event_type);
    expect(approval).toEqual([
      'enrollment.approved',
      'benefit_change.created',
      'notification.created',
      'benefit_change.updated',
      'benefit_change.completed',
      'enrollment.synced',
    ]);
  });

  it('when an enrollment is cancelled, then enrollment.cancelled; when an approval is refused (409), then no event', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.life.id }] });
    expect((await w.admin.post(`/enrollments/${enrollment.id}/approve`)).status).toBe(409);
    await ok(w.admin.post(`/enrollments/${enrollment.id}/cancel`));
    expect(await typesOf(w.admin, enrollment.id)).toEqual(['enrollment.created', 'enrollment.cancelled']);
  });

  it('when api changes go to the carrier, then sent and completed (or rejected, with the enrollment failed) come from the job, in order', async () => {
    const accepted = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.dental.id }] });
    const worker = new JobWorker({
      db: t.database.db,
      clock: t.clock,
      handlers: buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter() }),
      log: silent,
      batchSize: 50,
    });
    while ((await worker.runDueJobs()) > 0);
    const [change] = await ok(w.admin.get(`/enrollments/${accepted.id}/benefit_changes`));
    expect(await typesOf(w.admin, change.id)).toEqual(['benefit_change.created', 'benefit_change.sent', 'benefit_change.completed']);
    expect(await typesOf(w.admin, accepted.id)).toEqual(['enrollment.created', 'enrollment.submitted', 'enrollment.approved', 'enrollment.synced']);

    const other = await createMember(w.admin, { employer: w.employer.id, first_name: 'Rejected' });
    const rejected = await approvedEnrollment(w, { member: other.id, enrolled_plans: [{ plan: w.plans.dentalRejected.id }] });
    while ((await worker.runDueJobs()) > 0);
    const [refused] = await ok(w.admin.get(`/enrollments/${rejected.id}/benefit_changes`));
    expect(await typesOf(w.admin, refused.id)).toEqual(['benefit_change.created', 'benefit_change.sent', 'benefit_change.rejected']);
    expect((await typesOf(w.admin, rejected.id)).at(-1)).toBe('enrollment.failed');
  });

  it('when an approval replaces earlier coverage, then the replaced enrollment gets enrollment.updated (its coverage now ends)', async () => {
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Switcher' });
    const first = await approvedEnrollment(w, { member: member.id, enrolled_plans: [{ plan: w.plans.medical.id }] });
    const second = await approvedEnrollment(w, {
      member: member.id,
      category: 'qle',
      reason: 'employment_change',
      change_date: '2026-02-27',
      effective_start: '2026-06-01',
      enrolled_plans: [{ plan: w.plans.medicalSilver.id, primary_care_provider: { full_name: 'Dr. A' } }],
    });
    expect((await typesOf(w.admin, first.id)).at(-1)).toBe('enrollment.updated');
    expect(await typesOf(w.admin, second.id)).toEqual(['enrollment.created', 'enrollment.submitted', 'enrollment.approved']);
  });
});

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('notifications', () => {
  it('when notifications are recorded (requests and the daily sweep), then each has one notification.created event with its ids, and skipped repeats have none', async () => {
    const w = await createEnrollmentWorld(t);
    const sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
    await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    await createMember(w.admin, { employer: w.employer.id, first_name: 'Newcomer', hire_date: '2026-03-01' });
    await sweep.run('2026-03-24');
    await sweep.run('2026-03-24');
    await buildDailySweep({ db: t.database.db, clock: t.clock }).run('2026-03-24');

    const notifications: { id: string; notification_type: string; related_object_type: string; related_object_id: string; owner: string }[] = [];
    let url: string | null = '/notifications?page_size=100';
    while (url) {
      const page: { next: string | null; results: typeof notifications } = await ok(w.admin.get(url));
      notifications.push(...page.results);
      url = page.next;
    }
    expect(notifications.map((n) => n.notification_type)).toEqual(
      expect.arrayContaining(['welcome', 'open_enrollment_kickoff', 'enrollment_submitted', 'enrollment_approved', 'open_enrollment_reminder']),
    );
    const events = await listAll(w.admin, 'type=notification.created');
    expect(events.map((event) => event.object_id).sort()).toEqual(notifications.map((n) => n.id).sort());
    const byId = new Map(notifications.map((n) => [n.id, n]));
    for (const event of events) {
      const notification = byId.get(event.object_id)!;
      expect(event).toMatchObject({
        object_type: 'notification',
        employer: w.employer.id,
        data: {
          notification_type: notification.notification_type,
          related_object_type: notification.related_object_type,
          related_object_id: notification.related_object_id,
          owner: notification.owner,
        },
      });
    }
  });

  it("when the sweep ends a terminated member's coverage and closes a window past its end, then those changes have their events", async () => {
    const w = await createEnrollmentWorld(t);
    await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id }],
      }),
      201,
    );
    await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-03-10' }));
    const sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
    await sweep.run('2026-03-11');
    await sweep.run('2026-04-01');
    const terminated = (await ok(w.admin.get(`/enrollments?member=${w.member.id}`))).results.find((e: { reason: string }) => e.reason === 'terminated');
    expect(await typesOf(w.admin, terminated.id)).toEqual(['enrollment.created', 'enrollment.submitted', 'enrollment.approved']);
    expect((await typesOf(w.admin, w.window.id)).at(-1)).toBe('open_enrollment_window.closed');
  });
});

describe('background jobs', () => {
  it("when a passive window completes, then the carry-over job records each carried enrollment's events, and the replaced coverage's update", async () => {
    const w = await createEnrollmentWorld(t);
    const window = await activeWindow(w.admin, {
      employer: w.employer.id,
      start_date: '2026-04-01',
      end_date: '2026-04-15',
      renewal_date: '2026-05-01',
      plans: [w.plans.medical.id],
      enrollment_type: 'passive',
    });
    await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/close`));
    const covered = await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id }],
      }),
      201,
    );
    const start = t.clock.now();
    t.clock.set('2026-04-16T15:00:00.000Z');
    try {
      await ok(w.admin.post(`/open_enrollment_windows/${window.id}/close`));
      await ok(w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
      const worker = new JobWorker({
        db: t.database.db,
        clock: t.clock,
        handlers: buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter() }),
        log: silent,
        batchSize: 50,
      });
      while ((await worker.runDueJobs()) > 0);
      const carried = (await ok(w.admin.get(`/enrollments?member=${w.member.id}`))).results.find(
        (e: { reason: string }) => e.reason === 'passive_open_enrollment',
      );
      // The same plan carried on is a no_change: synced at once.
      expect(await typesOf(w.admin, carried.id)).toEqual(['enrollment.created', 'enrollment.submitted', 'enrollment.approved', 'enrollment.synced']);
      expect((await listAll(w.admin, `object_id=${carried.id}`))[0]!.data).toMatchObject({ open_enrollment_window: window.id, status: 'synced' });
      expect((await typesOf(w.admin, covered.id)).at(-1)).toBe('enrollment.updated');
    } finally {
      t.clock.set(start);
    }
  });
});

describe('member delete cascade', () => {
  it('when a member is deleted, then every record removed with them has its deleted event, the unlinked document an updated one, the member last', async () => {
    const w = await createEnrollmentWorld(t);
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Leaving' });
    const dependent = await createDependent(w.admin, { member: member.id });
    const beneficiary = await createBeneficiary(w.admin, { member: member.id });
    const payRate = await createPayRate(w.admin, { member: member.id });
    const document = await ok(w.admin.post('/documents', documentBody({ member: member.id })), 201);
    const card = await ok(w.admin.post('/member_id_cards', { member: member.id }), 201);
    const enrollment = await createEnrollment(w, {
      member: member.id,
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: dependent.id }] }],
    });
    const before = (await listAll(w.admin))[0]!;

    await ok(w.admin.delete(`/members/${member.id}`));
    const cascade = (await listAll(w.admin, `created_after=${justBefore(before.created_at)}`)).filter((event) => event.id > before.id).reverse();
    expect(cascade.map((event) => [event.event_type, event.object_id])).toEqual([
      ['enrollment.deleted', enrollment.id],
      ['member_id_card.deleted', card.id],
      ['pay_rate.deleted', payRate.id],
      ['beneficiary.deleted', beneficiary.id],
      ['dependent.deleted', dependent.id],
      ['document.updated', document.id],
      ['member.deleted', member.id],
    ]);
    expect(cascade.find((event) => event.object_type === 'document')!.data).toEqual({ member: null, employer: w.employer.id });
  });

  it('when a dependent on an unsent enrollment is deleted, then the enrollment they left gets enrollment.updated', async () => {
    const w = await createEnrollmentWorld(t);
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.child.id }] }] });
    await ok(w.admin.delete(`/dependents/${w.family.child.id}`));
    expect(await typesOf(w.admin, enrollment.id)).toEqual(['enrollment.created', 'enrollment.updated']);
    expect(await typesOf(w.admin, w.family.child.id)).toEqual(['dependent.created', 'dependent.deleted']);
  });
});

describe('GET /events filters and pagination', () => {
  let admin: ApiClient;
  let employers: { id: string }[];
  let members: { id: string }[];
  beforeAll(async () => {
    admin = await newProviderAdmin(t, 'events-filters');
    employers = [await createEmployer(admin), await createEmployer(admin)];
    t.clock.advance(1000);
    members = [
      await createMember(admin, { employer: employers[0]!.id, hire_date: '2020-01-01' }),
      await createMember(admin, { employer: employers[1]!.id, hire_date: '2020-01-01' }),
    ];
    t.clock.advance(1000);
    await ok(admin.patch(`/members/${members[0]!.id}`, { job_title: 'Welder' }));
  });

  it('when filtered by type (one, several, repeated, comma-separated, object.*), then only those types come back', async () => {
    expect((await listAll(admin, 'type=member.created')).map((event) => event.object_id)).toEqual([members[1]!.id, members[0]!.id]);
    expect((await listAll(admin, 'type=member.updated,employer.created')).map((event) => event.event_type)).toEqual([
      'member.updated',
      'employer.created',
      'employer.created',
    ]);
    expect((await listAll(admin, 'type=member.updated&type=employer.created')).map((event) => event.event_type)).toEqual([
      'member.updated',
      'employer.created',
      'employer.created',
    ]);
    expect((await listAll(admin, 'type=member.*')).map((event) => event.event_type)).toEqual(['member.updated', 'member.created', 'member.created']);
    expect((await listAll(admin, 'type=member.*,employer.updated')).map((event) => event.event_type)).toEqual([
      'member.updated',
      'member.created',
      'member.created',
    ]);
    expect(await listAll(admin, 'type=*')).toEqual(await listAll(admin));
  });

  it('when a type or object type is unknown, then 400 naming type', async () => {
    for (const type of ['member.exploded', 'spaceship.*', 'member', 'api_key.created']) {
      const response = await admin.get(`/events?type=${type}`);
      expect(response.status, type).toBe(400);
      expect(response.body.type).toBe('invalid_request');
      expect(errorFields(response)).toEqual(['type']);
    }
    expect((await admin.get('/events?object_type=spaceship')).status).toBe(400);
    expect((await admin.get('/events?unknown=1')).status).toBe(400);
  });

  it('when filtered by object_id, object_type, employer or time, then only matching events come back', async () => {
    expect((await listAll(admin, `object_id=${members[0]!.id}`)).map((event) => event.event_type)).toEqual(['member.updated', 'member.created']);
    expect((await listAll(admin, 'object_type=employer')).map((event) => event.object_id)).toEqual([employers[1]!.id, employers[0]!.id]);
    expect((await listAll(admin, `employer=${employers[1]!.id}`)).map((event) => event.object_id)).toEqual([members[1]!.id, employers[1]!.id]);
    const memberCreated = (await listAll(admin, 'type=member.created'))[0]!.created_at;
    expect((await listAll(admin, `created_after=${memberCreated}`)).map((event) => event.event_type)).toEqual(['member.updated']);
    expect((await listAll(admin, `created_before=${memberCreated}`)).map((event) => event.event_type)).toEqual(['employer.created', 'employer.created']);
    // Any ISO 8601 form of the instant compares the same.
    const offset = new Date(memberCreated).toISOString().replace('.000Z', '+00:00');
    expect((await listAll(admin, `created_after=${encodeURIComponent(offset)}`)).map((event) => event.event_type)).toEqual(['member.updated']);
  });

  it('when paged two at a time, then next walks every event once, newest first, and previous walks back', async () => {
    const all = await listAll(admin);
    const seen: string[] = [];
    let page = await ok(admin.get('/events?page_size=2'));
    expect(page.previous).toBeNull();
    const pages = [page];
    seen.push(...page.results.map((event: Event) => event.id));
    while (page.next) {
      page = await ok(admin.get(page.next));
      pages.push(page);
      seen.push(...page.results.map((event: Event) => event.id));
    }
    expect(seen).toEqual(all.map((event) => event.id));
    const back = await ok(admin.get(pages[2].previous));
    expect(back.results).toEqual(pages[1].results);
  });
});

describe('tenancy', () => {
  it('when another provider reads an event, then 404, and it never appears in their list', async () => {
    const carrier = await createCarrier(t.admin);
    const [event] = await listAll(t.admin, `object_id=${carrier.id}`);
    const other = await newProviderAdmin(t, 'events-other');
    expect((await other.get(`/events/${event!.id}`)).status).toBe(404);
    expect(await listAll(other, `object_id=${carrier.id}`)).toEqual([]);
    expect((await other.get('/events/evt_doesnotexist')).status).toBe(404);
    expect((await other.get('/events/not%20an%20id')).status).toBe(404);
  });

  it("when an employer key reads events, then it sees its employer's only: other employers' and provider-wide events are 404", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(client, { employer: employer.id });
    const foreign = await createMember(t.admin);
    const carrier = await createCarrier(t.admin);
    const visible = await listAll(client);
    expect(visible.length).toBeGreaterThan(0);
    expect(new Set(visible.map((event) => event.employer))).toEqual(new Set([employer.id]));
    expect(visible.map((event) => event.object_id)).toEqual(expect.arrayContaining([own.id, employer.id]));
    const [foreignEvent] = await listAll(t.admin, `object_id=${foreign.id}`);
    const [carrierEvent] = await listAll(t.admin, `object_id=${carrier.id}`);
    expect((await client.get(`/events/${foreignEvent!.id}`)).status).toBe(404);
    expect((await client.get(`/events/${carrierEvent!.id}`)).status).toBe(404);
    expect(await listAll(client, `employer=${foreign.employer}`)).toEqual([]);
    const [ownEvent] = await listAll(client, `object_id=${own.id}`);
    expect((await client.get(`/events/${ownEvent!.id}`)).status).toBe(200);
  });

  it('when a read-only key reads events, then it may (any role reads); without a key, 401', async () => {
    const reader = await t.client('read_only');
    expect((await reader.get('/events')).status).toBe(200);
    expect((await t.anonymous.get('/events')).status).toBe(401);
  });
});

describe('replay after downtime', () => {
  it('when a client keeps a cursor and changes happen while it is away, then following previous from it returns everything since, each once', async () => {
    const admin = await newProviderAdmin(t, 'events-replay');
    const employer = await createEmployer(admin);
    for (let index = 0; index < 3; index++) await createMember(admin, { employer: employer.id, first_name: `Before${index}` });
    // The client has read everything: it followed next from the first page and keeps the last page's previous.
    let page = await ok(admin.get('/events?page_size=2'));
    const read = [...page.results];
    while (page.next) {
      page = await ok(admin.get(page.next));
      read.push(...page.results);
    }
    const cursor = page.previous as string;

    // Downtime: more changes, some in the same millisecond as each other, some later.
    const during: string[] = [];
    for (let index = 0; index < 5; index++) {
      const member = await createMember(admin, { employer: employer.id, first_name: `During${index}` });
      await ok(admin.patch(`/members/${member.id}`, { job_title: 'Clerk' }));
      during.push(member.id);
      if (index % 2 === 0) t.clock.advance(1);
    }

    // Catching up: previous links walk toward the newest events, a page at a time.
    const caughtUp: Event[] = [];
    let url: string | null = cursor;
    while (url) {
      const newer: { previous: string | null; results: Event[] } = await ok(admin.get(url));
      caughtUp.unshift(...newer.results);
      url = newer.previous;
    }
    const readIds = new Set(read.map((event) => event.id));
    const missed = caughtUp.filter((event) => !readIds.has(event.id));
    const expected = (await listAll(admin)).filter((event) => !readIds.has(event.id));
    expect(missed.map((event) => event.id)).toEqual(expected.map((event) => event.id));
    expect(new Set(missed.map((event) => event.id)).size).toBe(missed.length);
    expect(new Set(missed.filter((event) => event.object_type === 'member').map((event) => event.object_id))).toEqual(new Set(during));
    expect(missed.filter((event) => event.object_type === 'member')).toHaveLength(10);
  });
});

describe('personal data', () => {
  it('when a member with SSN, date of birth, contact details and metadata goes through a whole flow, then no event carries any of it', async () => {
    const w = await createEnrollmentWorld(t);
    const secrets = {
      ssn: '587654321',
      dob: '1979-11-23',
      email: 'quintessa.private@example.com',
      phone_number: '5558675309',
      first_name: 'Quintessa',
      last_name: 'Zyxwvut',
      job_title: 'Undercover Auditor',
      address: address({ line1: '742 Evergreen Terrace', city: 'Shelbyvillex' }),
      metadata: { badge: 'secret-badge-value' },
    };
    const member = await createMember(w.admin, { employer: w.employer.id, hire_date: '2026-02-15', ...secrets });
    const spouse = await createDependent(w.admin, {
      member: member.id,
      member_relationship: 'spouse',
      first_name: 'Ophelia',
      last_name: 'Qwertyuiop',
      dob: '1981-07-14',
      ssn_last_four: '4321',
    });
    await createBeneficiary(w.admin, { member: member.id, full_name: 'Bartholomew Plimsoll', phone_number: '5551239876' });
    await createPayRate(w.admin, { member: member.id, amount: '123456.78' });
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-12-31', email: 'second.private@example.com' }));
    await approvedEnrollment(w, { member: member.id, enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }] }] });

    const events = JSON.stringify(await listAll(w.admin));
    const stored = JSON.stringify(await t.database.db.selectFrom('events').selectAll().execute());
    for (const value of [
      '587654321',
      '4321',
      '1979-11-23',
      '1981-07-14',
      'quintessa',
      'Quintessa',
      'Zyxwvut',
      'private@example.com',
      '5558675309',
      '5551239876',
      'Undercover',
      'Evergreen',
      'Shelbyvillex',
      'secret-badge-value',
      'Ophelia',
      'Qwertyuiop',
      'Bartholomew',
      '123456',
      '2026-12-31',
    ]) {
      expect(events, value).not.toContain(value);
      expect(stored, value).not.toContain(value);
    }
    expect(events).toContain(member.id);
  });
});

describe('an event exists if and only if its change committed', () => {
  it('when requests fail (400, 404, 409), then no event is recorded', async () => {
    const admin = await newProviderAdmin(t, 'events-failures');
    const employer = await createEmployer(admin);
    const count = async () => (await listAll(admin)).length;
    const before = await count();
    expect(
      (await admin.post('/members', { employer: employer.id, first_name: 'A', last_name: 'B', dob: '2999-01-01', address: address(), hire_date: '2020-01-01' }))
        .status,
    ).toBe(400);
    expect((await admin.patch('/members/mem_doesnotexist', { job_title: 'x' })).status).toBe(404);
    const window = await ok(admin.post('/open_enrollment_windows', { employer: employer.id }), 201);
    expect((await admin.post(`/open_enrollment_windows/${window.id}/activate`)).status).toBe(409);
    expect((await admin.patch(`/open_enrollment_windows/${window.id}`, { start_date: '2026-05-01', end_date: '2026-04-01' })).status).toBe(400);
    expect(await count()).toBe(before + 1);
    expect(await typesOf(admin, window.id)).toEqual(['open_enrollment_window.created']);
  });

  it('when recording the event fails inside the transaction, then the change is rolled back with it', async () => {
    const events = buildEventLog({ clock: t.clock });
    events.subscribe(async () => {
      throw new Error('subscriber down');
    });
    const carriers = new CarrierService(t.database.db, t.clock, buildChangeCommit({ clock: t.clock }, events));
    const countCarriers = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('carriers')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const countEvents = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const [carriersBefore, eventsBefore] = [await countCarriers(), await countEvents()];
    await expect(carriers.createCarrier({ providerId: t.providerId, employerId: null }, { legal_name: 'Never Inc' })).rejects.toThrow('subscriber down');
    expect([await countCarriers(), await countEvents()]).toEqual([carriersBefore, eventsBefore]);
  });
});

describe('retention', () => {
  it('when events are older than the retention, then the purge deletes them in batches and keeps the rest', async () => {
    const admin = await newProviderAdmin(t, 'events-retention');
    const start = t.clock.now();
    const employer = await createEmployer(admin);
    for (let index = 0; index < 4; index++) await createCarrier(admin, { legal_name: `Old ${index}` });
    t.clock.advance(20 * 24 * 60 * 60 * 1000);
    const recent = await createCarrier(admin, { legal_name: 'Recent' });
    t.clock.advance(11 * 24 * 60 * 60 * 1000);
    try {
      // 31 days after the first events: those are past a 30-day retention, the recent one (11 days) is not.
      const purged = await purgeExpiredEvents(t.database.db, t.clock, 30, 2);
      expect(purged).toBeGreaterThanOrEqual(5);
      const left = await listAll(admin);
      expect(left.map((event) => event.object_id)).toEqual([recent.id]);
      expect(await listAll(admin, `object_id=${employer.id}`)).toEqual([]);
      expect(await purgeExpiredEvents(t.database.db, t.clock, 30, 2)).toBe(0);
      // A longer retention keeps more: nothing of the last 40 days goes.
      await createCarrier(admin);
      expect(await purgeExpiredEvents(t.database.db, t.clock, 40)).toBe(0);
    } finally {
      t.clock.set(start);
    }
  });
});

describe('the window helpers of other tests', () => {
  it('when activeWindow runs, then its kickoff notifications have their events too', async () => {
    const admin = await newProviderAdmin(t, 'events-kickoff');
    const employer = await createEmployer(admin);
    const plan = await createPlan(admin, { employer: employer.id, premium_type: 'composite', composite_rates: compositeRates() });
    await createPlanConfiguration(admin, { plan: plan.id });
    await createMember(admin, { employer: employer.id, hire_date: '2020-01-01' });
    const window = await activeWindow(admin, { employer: employer.id, plans: [plan.id] });
    const kickoffs = await listAll(admin, 'type=notification.created');
    const windowNotifications = kickoffs.filter((event) => event.data.related_object_id === window.id);
    expect(windowNotifications.map((event) => event.data.owner).sort()).toEqual(['employer', 'member']);
    // The activation's own event comes first, then the employer's notification, then the members'.
    const ordered = (await listAll(admin, `created_after=${justBefore(t.clock.now().toISOString())}`)).reverse();
    const activated = ordered.findIndex((event) => event.event_type === 'open_enrollment_window.activated');
    expect(ordered.slice(activated).map((event) => event.event_type)).toEqual([
      'open_enrollment_window.activated',
      'notification.created',
      'notification.created',
    ]);
  });
});

describe('timestamps and dates the API accepts: one parser, one range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)', () => {
  // Each is a 400 naming its field, never a 500, on both databases.
  const badTimestamps = [
    ['2026-06-30T23:59:60Z', 'a leap second'],
    ['0000-01-01T00:00:00Z', 'year 0'],
    ['0000-12-31T23:59:59Z', 'the last second before the range'],
    ['9999-12-31T23:59:59-01:00', 'year 10000 in UTC'],
    ['+010000-01-01T00:00:00Z', 'an expanded year'],
    ['2026-02-29T00:00:00Z', 'February 29 in a common year'],
    ['2026-03-01T10:00:00+01', 'an offset without minutes'],
    ['2026-03-01 10:00:00Z', 'a space instead of T'],
  ] as const;

  /** `timestamp` written as local time at `hours` from UTC, e.g. '2026-03-03T05:00:00.000+14:00'. */
  const withOffset = (timestamp: string, hours: number) =>
    `${new Date(Date.parse(timestamp) + hours * 3_600_000).toISOString().slice(0, 23)}${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}:00`;

  let admin: ApiClient;
  beforeAll(async () => {
    admin = await newProviderAdmin(t, 'events-range');
    await createEmployer(admin);
    t.clock.advance(1000);
    await createEmployer(admin);
  });

  it.each(badTimestamps)('when created_after or created_before is %j (%s), then 400 naming the parameter', async (value) => {
    for (const parameter of ['created_after', 'created_before']) {
      const response = await admin.get(`/events?${parameter}=${encodeURIComponent(value)}`);
      expect(response.status, `${parameter} ${response.text}`).toBe(400);
      expect(response.body.type).toBe('invalid_request');
      expect(errorFields(response)).toEqual([parameter]);
      expect(response.body.input_errors[0].message).toMatch(/timestamp/);
    }
  });

  it('when created_after or created_before is at an edge of the range, then it filters by that instant', async () => {
    const all = await listAll(admin);
    expect(all).toHaveLength(2);
    expect(await listAll(admin, 'created_after=0001-01-01T00:00:00Z')).toEqual(all);
    expect(await listAll(admin, `created_after=${encodeURIComponent('0000-12-31T23:00:00-01:00')}`)).toEqual(all);
    expect(await listAll(admin, 'created_before=0001-01-01T00:00:00Z')).toEqual([]);
    expect(await listAll(admin, 'created_before=9999-12-31T23:59:59.999Z')).toEqual(all);
    expect(await listAll(admin, `created_before=${encodeURIComponent('9999-12-31T23:59:59.999+00:00')}`)).toEqual(all);
    expect(await listAll(admin, 'created_after=9999-12-31T23:59:59.999Z')).toEqual([]);
  });

  it('when a timestamp has lower-case t and z, an offset from -12:00 to +14:00 or fractional seconds, then it is the same instant', async () => {
    const [newest, oldest] = await listAll(admin);
    const after = justBefore(newest!.created_at);
    expect(await listAll(admin, `created_after=${after.replace('T', 't').replace('Z', 'z')}`)).toEqual([newest]);
    expect(await listAll(admin, `created_after=${encodeURIComponent(withOffset(after, 14))}`)).toEqual([newest]);
    expect(await listAll(admin, `created_after=${encodeURIComponent(withOffset(after, -12))}`)).toEqual([newest]);
    expect(await listAll(admin, `created_before=${newest!.created_at.replace('Z', '000001Z')}`)).toEqual([oldest]);
  });

  it('when completed_at of a benefit change is bad, then 400 naming it; at the edges of the range, the rules of completed_at answer', async () => {
    const w = await createEnrollmentWorld(t);
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    const [change] = await ok(w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`));
    for (const [value] of badTimestamps) {
      const response = await w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: value });
      expect(response.status, `${value} ${response.text}`).toBe(400);
      expect(response.body.type).toBe('validation_error');
      expect(errorFields(response)).toEqual(['completed_at']);
      expect(response.body.input_errors[0].message).toMatch(/timestamp/);
    }
    const first = await w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: '0001-01-01T00:00:00Z' });
    expect(first.status).toBe(400);
    expect(first.body.input_errors[0].message).toContain('before the benefit change was recorded');
    const last = await w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: '9999-12-31T23:59:59.999Z' });
    expect(last.status).toBe(400);
    expect(last.body.input_errors[0].message).toBe('Cannot be in the future.');
    const now = t.clock.now().toISOString();
    const completed = await w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: withOffset(now, -12).replace('T', 't') });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.completed_at).toBe(now);
  });

  it('when a date in a body or a query is out of range, then 400 naming it; the first and last dates are accepted', async () => {
    const employer = await createEmployer(admin);
    for (const dob of ['0000-12-31', '10000-01-01', '2026-02-29']) {
      const refused = await admin.post('/members', {
        employer: employer.id,
        first_name: 'Ada',
        last_name: 'Old',
        dob,
        hire_date: '2024-01-15',
        address: address(),
      });
      expect(refused.status, dob).toBe(400);
      expect(errorFields(refused)).toEqual(['dob']);
    }
    const member = await createMember(admin, { employer: employer.id, dob: '0001-01-01' });
    expect(member.dob).toBe('0001-01-01');
    for (const date of ['0000-12-31', '10000-01-01', '2026-02-29']) {
      const refused = await admin.get(`/members/${member.id}/coverage?date=${date}`);
      expect(refused.status, date).toBe(400);
      expect(errorFields(refused)).toEqual(['date']);
    }
    for (const date of ['0001-01-01', '9999-12-31']) expect((await admin.get(`/members/${member.id}/coverage?date=${date}`)).status, date).toBe(200);
  });
});
