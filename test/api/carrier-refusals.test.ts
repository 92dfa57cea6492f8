/**
 * A carrier's business refusal of a benefit change (docs/decisions.md "Benefit changes and carriers", Refusals):
 * recorded by an admin from the carrier's report or portal (POST /benefit_changes/{id}/refuse), or the carrier
 * API's final refusal. Only these make a change `rejected` and its enrollment `failed`; the member and the
 * employer are told with a `benefit_change_refused` alert each. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeCommit } from '../../src/app.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { carrierJobHandlers } from '../../src/modules/carrier-connections/carrier-sync.job.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { ApiClient, createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's). Each world's plans run 2026-01-01..2026-12-31; open enrollment coverage starts 2026-04-01.
let t: TestContext;
let worker: JobWorker;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  t = await createTestApp();
  const deps = { db: t.database.db, clock: t.clock, changes: buildChangeCommit({ clock: t.clock }), adapter: new SandboxCarrierAdapter() };
  worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers: jobHandlers([carrierJobHandlers(deps)]), log: silent, batchSize: 50 });
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

const REASON = 'Member not on the carrier roster: eligibility file shows no match for the subscriber id';

interface Change {
  id: string;
  line_of_coverage: string;
  delivery_state: string;
  memo: string | null;
  completed_at: string | null;
}

interface Alert {
  kind: string;
  audience: string;
  employer: string | null;
  member: string | null;
  related_object_type: string;
  related_object_id: string;
  message: string;
  payload: Record<string, unknown>;
}

/** A world whose edi group has a download profile, its member an SSN (REF*0F). */
async function ediWorld(): Promise<EnrollmentWorld> {
  const w = await createEnrollmentWorld(t);
  await ok(w.admin.patch(`/members/${w.member.id}`, { ssn: '521443817' }));
  await ok(
    w.admin.request('PUT', `/groups/${w.groups.ediGroup.id}/edi_profile`, {
      body: {
        interchange_sender: { qualifier: 'ZZ', id: 'BENEFITSCO' },
        interchange_receiver: { qualifier: 'ZZ', id: 'WORLDHEALTH' },
        application_sender_code: 'BENEFITSCO',
        application_receiver_code: 'WORLDHEALTH',
        sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
        payer: { name: 'World Health Co', id: '987654321' },
        delivery: { method: 'download' },
      },
    }),
  );
  return w;
}

const changesOf = async (w: EnrollmentWorld, enrollment: string) => (await ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`))) as Change[];
const changeOf = async (w: EnrollmentWorld, enrollment: string, line: string) =>
  (await changesOf(w, enrollment)).find((change) => change.line_of_coverage === line)!;
const statusOf = async (w: EnrollmentWorld, enrollment: string) => (await ok(w.admin.get(`/enrollments/${enrollment}`))).status as string;
const refuse = (client: ApiClient, change: string, body: unknown = { reason: REASON }) => client.post(`/benefit_changes/${change}/refuse`, body);
const linesCoveredOn = async (w: EnrollmentWorld, date: string) =>
  ((await ok(w.admin.get(`/members/${w.member.id}/coverage?date=${date}`))).coverage as { line_of_coverage: string }[])
    .map((item) => item.line_of_coverage)
    .sort();
const refusalAlerts = async (client: ApiClient) => (await ok(client.get('/alerts?kind=benefit_change_refused'))).results as Alert[];
const eventTypes = async (w: EnrollmentWorld, objectId: string) =>
  ((await ok(w.admin.get(`/events?object_id=${objectId}`))).results as { event_type: string }[]).map((event) => event.event_type).reverse();

async function ledgerOf(benefitChangeId: string): Promise<{ told: boolean; refused: boolean }> {
  const row = await t.database.db
    .selectFrom('carrier_ledger')
    .select(['told_at', 'refused_at'])
    .where('benefit_change_id', '=', benefitChangeId)
    .executeTakeFirstOrThrow();
  return { told: row.told_at !== null, refused: row.refused_at !== null };
}

/** The member and employer alerts of one refused change, as GET /alerts shows them. */
function expectRefusalAlerts(alerts: Alert[], w: EnrollmentWorld, change: { id: string; line_of_coverage: string }, enrollment: string) {
  expect(alerts.map((alert) => alert.audience).sort()).toEqual(['employer', 'member']);
  for (const alert of alerts) {
    expect(alert).toMatchObject({
      kind: 'benefit_change_refused',
      employer: w.employer.id,
      member: w.member.id,
      related_object_type: 'benefit_change',
      related_object_id: change.id,
      payload: { benefit_change: change.id, enrollment, line_of_coverage: change.line_of_coverage, delivery_state: 'rejected' },
    });
    expect(alert.message).toContain(change.id);
    // The carrier's reason is free text kept in the change's memo, never copied into what others read.
    expect(alert.message).not.toContain('roster');
  }
}

describe('an admin records a carrier refusal (POST /benefit_changes/{id}/refuse)', () => {
  it('when the carrier refuses a change it had accepted (completed, enrollment synced), then the change is rejected with the reason in memo, the enrollment failed, the line no longer coverage, the ledger refused, and the member and employer alerted once each', async () => {
    const w = await ediWorld();
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.vision.id }] });
    const [change] = await changesOf(w, enrollment.id);
    await ok(w.admin.patch(`/benefit_changes/${change!.id}`, { completed_at: t.clock.now().toISOString() }));
    expect(await statusOf(w, enrollment.id)).toBe('synced');
    expect(await linesCoveredOn(w, '2026-04-15')).toEqual(['vision']);
    expect(await ledgerOf(change!.id)).toEqual({ told: true, refused: false });

    t.clock.advance(60_000);
    const refused = await ok(refuse(w.admin, change!.id));
    expect(refused).toMatchObject({ id: change!.id, delivery_state: 'rejected', memo: REASON, completed_at: null });
    expect(await changesOf(w, enrollment.id)).toEqual([refused]);
    expect(await statusOf(w, enrollment.id)).toBe('failed');
    expect(await linesCoveredOn(w, '2026-04-15')).toEqual([]);
    expect(await ledgerOf(change!.id)).toMatchObject({ refused: true });
    expect((await eventTypes(w, change!.id)).slice(-1)).toEqual(['benefit_change.rejected']);
    expect((await eventTypes(w, enrollment.id)).slice(-1)).toEqual(['enrollment.failed']);
    const alerts = await refusalAlerts(w.admin);
    expectRefusalAlerts(alerts, w, change!, enrollment.id);
    expect((await ok(w.admin.get('/events?type=alert.created'))).results).toHaveLength(2);
    // The employer's own key sees both (alerts for admins only are not among them).
    const employerKey = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', { role: 'employer', employer: w.employer.id }), 201)).key);
    expect(await refusalAlerts(employerKey)).toHaveLength(2);

    // Once refused, it cannot be refused again; nothing more is recorded.
    const again = await refuse(w.admin, change!.id);
    expect(again.status, again.text).toBe(409);
    expect(again.body.type).toBe('invalid_state');
    expect(await refusalAlerts(w.admin)).toHaveLength(2);
  });

  it('when a change still waiting for its 834 file or for a person is refused, then it is rejected and no file carries it; a queued api change cannot be refused (409)', async () => {
    const w = await ediWorld();
    const enrollment = await approvedEnrollment(w, {
      enrolled_plans: [{ plan: w.plans.vision.id }, { plan: w.plans.medical.id }, { plan: w.plans.dental.id }],
    });
    const vision = await changeOf(w, enrollment.id, 'vision');
    const medical = await changeOf(w, enrollment.id, 'medical');
    const dental = await changeOf(w, enrollment.id, 'dental');
    expect([vision.delivery_state, medical.delivery_state, dental.delivery_state]).toEqual(['awaiting_file', 'manual', 'queued']);

    // The api change has not reached the carrier: it is the carrier API's to accept or refuse.
    const queued = await refuse(w.admin, dental.id);
    expect(queued.status, queued.text).toBe(409);
    expect(queued.body.message).toContain('queued');

    expect(await ok(refuse(w.admin, vision.id))).toMatchObject({ delivery_state: 'rejected', memo: REASON });
    expect(await statusOf(w, enrollment.id)).toBe('failed');
    const nothing = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' });
    expect(nothing.status, nothing.text).toBe(409);
    expect(await ok(refuse(w.admin, medical.id, { reason: 'Plan closed to new entrants' }))).toMatchObject({ delivery_state: 'rejected' });
    expect((await refusalAlerts(w.admin)).map((alert) => alert.related_object_id).sort()).toEqual([medical.id, medical.id, vision.id, vision.id].sort());
    // The failed enrollment keeps the line no carrier refused.
    await worker.runDueJobs();
    expect(await linesCoveredOn(w, '2026-04-15')).toEqual(['dental']);
  });

  it('when the reason is missing, blank, too long or not text, or the body has other fields, then 400 naming reason (or the body) and nothing changes', async () => {
    const w = await ediWorld();
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.vision.id }] });
    const [change] = await changesOf(w, enrollment.id);
    for (const [label, body, fields] of [
      ['missing', {}, ['reason']],
      ['empty', { reason: '' }, ['reason']],
      ['blank', { reason: '   ' }, ['reason']],
      ['too long', { reason: 'x'.repeat(2001) }, ['reason']],
      ['a number', { reason: 42 }, ['reason']],
      ['another field', { reason: REASON, completed_at: null }, ['completed_at']],
    ] as const) {
      const response = await refuse(w.admin, change!.id, body);
      expect(response.status, `${label}: ${response.text}`).toBe(400);
      expect(errorFields(response), label).toEqual(fields);
    }
    expect(await changesOf(w, enrollment.id)).toEqual([change]);
    expect(await ok(refuse(w.admin, change!.id, { reason: 'x'.repeat(2000) }))).toMatchObject({ delivery_state: 'rejected' });
  });

  it('when a non-admin key refuses, then 403 (even with a bad body); another provider gets 404, as does an unknown change', async () => {
    const w = await ediWorld();
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.vision.id }] });
    const [change] = await changesOf(w, enrollment.id);
    for (const body of [{ role: 'employer', employer: w.employer.id }, { role: 'read_only' }]) {
      const client = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', body), 201)).key);
      expect((await refuse(client, change!.id)).status).toBe(403);
      expect((await refuse(client, change!.id, { nonsense: true })).status).toBe(403);
    }
    const otherAdmin = await newProviderAdmin(t, 'refusals-other');
    expect((await refuse(otherAdmin, change!.id)).status).toBe(404);
    expect((await refuse(w.admin, 'bc_000000000000000000000000')).status).toBe(404);
    expect(await changesOf(w, enrollment.id)).toEqual([change]);
    expect(await refusalAlerts(w.admin)).toEqual([]);
  });
});

describe('the carrier API refuses a change (carrier_reject)', () => {
  it('when the sandbox carrier refuses the change, then it is rejected with its reason and the member and the employer get the same alerts', async () => {
    const w = await createEnrollmentWorld(t);
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.dentalRejected.id }] });
    while ((await worker.runDueJobs()) > 0);
    const [change] = await changesOf(w, enrollment.id);
    expect(change).toMatchObject({ delivery_state: 'rejected', memo: 'Member not found in carrier roster' });
    expect(await statusOf(w, enrollment.id)).toBe('failed');
    expectRefusalAlerts(await refusalAlerts(w.admin), w, change!, enrollment.id);
    // The job running again changes nothing and alerts no one twice.
    while ((await worker.runDueJobs()) > 0);
    expect(await refusalAlerts(w.admin)).toHaveLength(2);
  });
});
