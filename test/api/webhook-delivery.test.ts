import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhookSignature } from '../../src/index.ts';
import { purgeSettledWebhookDeliveries } from '../../src/modules/webhooks/webhook-endpoint.service.ts';
import { WEBHOOK_MAX_ATTEMPTS } from '../../src/modules/webhooks/webhook-schedule.ts';
import { WebhookSender } from '../../src/modules/webhooks/webhook-sender.ts';
import { buildJobHandlers } from '../../src/app.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { address, createCarrier, createEmployer, createMember } from '../helpers/factories.ts';
import { newProviderAdmin } from '../helpers/more-factories.ts';
import type { ApiClient } from '../helpers/test-app.ts';
import { answerWith, createEndpoint, createWebhookTestApp, deliveriesOf, startReceiver, type Receiver, type WebhookTestContext } from '../helpers/webhooks.ts';

/** Whether the `standardwebhooks` package (the Standard Webhooks reference library) accepts a received delivery, at the test clock's time. */
function standardLibraryVerifies(request: { body: string; headers: Record<string, string | string[] | undefined> }, secret: string): boolean {
  vi.setSystemTime(t.clock.now());
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
const TIMEOUT_MS = 500;

let t: WebhookTestContext;
let receiver: Receiver;
/** An admin of a provider of this test's own: its events go to this test's endpoints only. */
let admin: ApiClient;

beforeAll(async () => {
  t = await createWebhookTestApp({ timeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  receiver = await startReceiver();
  admin = await newProviderAdmin(t, 'webhooks');
});
afterEach(async () => {
  await receiver.close();
});

const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

async function eventRow(id: string) {
  return t.database.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('delivery', () => {
  it('when an event happens, then the endpoint receives it once, as JSON, signed, with its ids in the headers', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    const carrier = await createCarrier(admin);

    expect(await t.runJobs()).toBe(1);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const body = JSON.parse(request!.body);
    const event = await eventRow(body.id);
    expect(body).toEqual({
      id: event.id,
      object: 'event',
      event_type: 'carrier.created',
      object_type: 'carrier',
      object_id: carrier.id,
      employer: null,
      data: {},
      created_at: t.clock.now().toISOString(),
    });
    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks');
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringContaining('benefits-webhooks'),
      'webhook-id': event.id,
      'webhook-delivery': delivery!.id,
      'webhook-timestamp': String(nowSeconds()),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(verifyWebhookSignature({ payload: request!.body, headers: request!.headers, secret: endpoint.secret, now: nowSeconds() })).toBe(true);
    expect(standardLibraryVerifies(request!, endpoint.secret)).toBe(true);
    expect(standardLibraryVerifies(request!, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toBe(false);
    expect(verifyWebhookSignature({ payload: request!.body, headers: request!.headers, secret: 'whsec_not_the_secret', now: nowSeconds() })).toBe(false);
    expect(
      verifyWebhookSignature({
        payload: request!.body.replace(carrier.id, 'carr_forged'),
        headers: request!.headers,
        secret: endpoint.secret,
        now: nowSeconds(),
      }),
    ).toBe(false);

    // The body is the event as GET /events shows it.
    expect(body).toEqual((await admin.get(`/events/${event.id}`)).body);

    expect(delivery).toMatchObject({
      event: event.id,
      event_type: 'carrier.created',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      completed_at: t.clock.now().toISOString(),
      attempts: [{ attempt: 1, status_code: 200, duration_ms: expect.any(Number), error: null, succeeded: true, created_at: t.clock.now().toISOString() }],
    });
    expect(await t.runJobs()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it('when endpoints filter events, then each receives exactly the types it enabled', async () => {
    const exact = await startReceiver();
    const byObject = await startReceiver();
    try {
      await createEndpoint(admin, { url: exact.url(), enabled_events: ['carrier.created'] });
      await createEndpoint(admin, { url: byObject.url(), enabled_events: ['employer.*'] });
      await createEndpoint(admin, { url: receiver.url(), enabled_events: ['*'] });
      const carrier = await createCarrier(admin);
      await admin.patch(`/carriers/${carrier.id}`, { trade_name: 'Renamed' });
      const employer = await createEmployer(admin);
      await admin.patch(`/employers/${employer.id}`, { trade_name: 'Renamed' });

      await t.runJobs();

      expect(exact.events().map((event) => event.event_type)).toEqual(['carrier.created']);
      expect(byObject.events().map((event) => event.event_type)).toEqual(['employer.created', 'employer.updated']);
      // Deliveries about different objects go side by side: only each object's own order holds.
      expect(
        receiver
          .events()
          .map((event) => event.event_type)
          .sort(),
      ).toEqual(['carrier.created', 'carrier.updated', 'employer.created', 'employer.updated']);
    } finally {
      await exact.close();
      await byObject.close();
    }
  });

  it('when a member with an SSN, a date of birth and contact details is created and changed, then no payload carries any of them', async () => {
    await createEndpoint(admin, { url: receiver.url() });
    const employer = await createEmployer(admin, { email: 'benefits@acme.example', phone_number: '3125550100', federal_ein: '12-3456789' });
    const member = await createMember(admin, {
      employer: employer.id,
      first_name: 'Evangelina',
      last_name: 'Quarterman',
      ssn: '123456789',
      dob: '1984-07-19',
      email: 'evangelina.q@mail.example',
      phone_number: '2175550123',
      address: address({ line1: '742 Evergreen Terrace' }),
      hire_date: t.clock.now().toISOString().slice(0, 10),
    });
    await admin.patch(`/members/${member.id}`, { ssn: '587654321', job_title: 'Controller' });
    const dependent = await admin.post('/dependents', {
      member: member.id,
      first_name: 'Rosalind',
      last_name: 'Quarterman',
      dob: '2015-02-03',
      member_relationship: 'child',
      ssn_last_four: '3333',
    });
    expect(dependent.status).toBe(201);

    await t.runJobs();

    const bodies = receiver.requests.map((request) => request.body);
    expect(receiver.events().map((event) => event.event_type)).toEqual(
      expect.arrayContaining(['member.created', 'member.updated', 'dependent.created', 'notification.created']),
    );
    for (const secret of [
      '123456789',
      '587654321',
      '6789',
      '4321',
      '3333',
      '1984-07-19',
      '2015-02-03',
      'Evangelina',
      'Quarterman',
      'Rosalind',
      'evangelina.q@mail.example',
      'benefits@acme.example',
      '2175550123',
      '3125550100',
      '742 Evergreen',
      'Controller',
      '12-3456789',
      '123456789',
    ]) {
      for (const body of bodies) expect(body).not.toContain(secret);
    }
  });
});

describe('retries', () => {
  it('when the receiver answers 500, then the attempt is recorded and retried on schedule until it answers 2xx', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(answerWith(500, 'database   is\n down'));
    await createCarrier(admin);

    await t.runJobs();

    let [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1, completed_at: null });
    expect(delivery!.attempts).toEqual([
      {
        attempt: 1,
        status_code: 500,
        duration_ms: expect.any(Number),
        error: 'HTTP 500: database is down',
        succeeded: false,
        created_at: t.clock.now().toISOString(),
      },
    ]);
    const wait = Date.parse(delivery!.next_attempt_at!) - t.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(9 * SECOND);
    expect(wait).toBeLessThanOrEqual(11 * SECOND);
    expect((await admin.get(`/webhook_endpoints/${endpoint.id}`)).body.failing_since).toBe(t.clock.now().toISOString());

    // Not before its time.
    expect(await t.runJobs()).toBe(0);
    receiver.answer(answerWith(204));
    t.clock.advance(11 * SECOND);
    await t.runJobs();

    [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2, next_attempt_at: null, completed_at: t.clock.now().toISOString() });
    expect(delivery!.attempts.map((attempt) => [attempt.status_code, attempt.succeeded])).toEqual([
      [500, false],
      [204, true],
    ]);
    expect(receiver.requests).toHaveLength(2);
    // Each attempt sends the same event and delivery; the signature is made afresh with the attempt's time.
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
    expect(
      verifyWebhookSignature({ payload: receiver.requests[1]!.body, headers: receiver.requests[1]!.headers, secret: endpoint.secret, now: nowSeconds() }),
    ).toBe(true);
    expect((await admin.get(`/webhook_endpoints/${endpoint.id}`)).body.failing_since).toBeNull();
  });

  it('when the receiver does not answer in time, then the attempt fails as a timeout and is retried', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(() => undefined);
    await createCarrier(admin);

    await t.runJobs();

    let [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: `No response within ${TIMEOUT_MS / 1000} s.`, succeeded: false }),
    ]);
    expect(delivery!.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);

    receiver.answer(answerWith(200));
    t.clock.advance(11 * SECOND);
    await t.runJobs();
    [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('when the receiver is down, then the connection error is recorded and retried', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    await receiver.close();
    await createCarrier(admin);

    await t.runJobs();

    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(delivery!.attempts[0]!.error).toContain('ECONNREFUSED');
    expect(delivery!.attempts[0]!.error).not.toContain('127.0.0.1');
    receiver = await startReceiver();
  });

  it('when every attempt fails, then it is tried 12 times over more than 24 hours and then marked failed', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(answerWith(503));
    await createCarrier(admin);
    const start = t.clock.now().getTime();

    // Travel from each attempt to the next, as the schedule sets them.
    for (let step = 0; step < 20; step++) {
      await t.runJobs();
      const [pending] = await deliveriesOf(admin, endpoint.id);
      if (pending!.next_attempt_at === null) break;
      t.clock.set(pending!.next_attempt_at);
    }

    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: WEBHOOK_MAX_ATTEMPTS, next_attempt_at: null });
    expect(delivery!.attempts).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(receiver.requests).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    const last = Date.parse(delivery!.attempts.at(-1)!.created_at);
    expect(last - start).toBeGreaterThan(24 * HOUR);
    // Its job is done for good: nothing more goes out.
    t.clock.advance(7 * DAY);
    await t.runJobs();
    expect(receiver.requests).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
  });
});

describe('several workers', () => {
  it('when two workers (as two server processes would) run the deliveries side by side, then each event is sent once', async () => {
    await createEndpoint(admin, { url: receiver.url(), enabled_events: ['carrier.created'] });
    for (let index = 0; index < 30; index++) await createCarrier(admin, { legal_name: `Parallel ${index}` });
    const sender = new WebhookSender({ allowLoopback: true, timeoutMs: TIMEOUT_MS });
    const handlers = buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter(), webhooks: sender });
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const other = new JobWorker({ db: t.database.db, clock: t.clock, handlers, log: silent, batchSize: 5 });
    try {
      const drain = async (worker: { runDueJobs(): Promise<number> }) => {
        while ((await worker.runDueJobs()) > 0);
      };
      await Promise.all([drain(other), t.runJobs(), drain(other)]);
    } finally {
      await other.stop();
      await sender.close();
    }
    const ids = receiver.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});

describe('order', () => {
  it('when an earlier delivery about the same object is failing, then later ones about it wait and then follow in order; other objects go on', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    const carrier = await createCarrier(admin);
    receiver.answer((request, response) => {
      const event = JSON.parse(request.body) as { object_id: string };
      response.writeHead(event.object_id === carrier.id ? 500 : 200).end();
    });
    await admin.patch(`/carriers/${carrier.id}`, { trade_name: 'First' });
    await admin.patch(`/carriers/${carrier.id}`, { trade_name: 'Second' });
    const other = await createCarrier(admin);

    await t.runJobs();

    // The first about the carrier failed once; the two after it were not attempted; the other carrier's went out.
    expect(receiver.events().map((event) => [event.object_id, event.event_type])).toEqual(
      expect.arrayContaining([
        [carrier.id, 'carrier.created'],
        [other.id, 'carrier.created'],
      ]),
    );
    expect(receiver.requests).toHaveLength(2);
    const waiting = (await deliveriesOf(admin, endpoint.id)).filter((delivery) => delivery.event_type === 'carrier.updated');
    expect(waiting.map((delivery) => [delivery.status, delivery.attempt_count])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);

    receiver.answer(answerWith(200));
    t.clock.advance(11 * SECOND);
    await t.runJobs();

    const aboutCarrier = receiver.events().filter((event) => event.object_id === carrier.id);
    expect(aboutCarrier.map((event) => event.event_type)).toEqual(['carrier.created', 'carrier.created', 'carrier.updated', 'carrier.updated']);
    expect(aboutCarrier.map((event) => event.id).slice(1)).toEqual(
      (await t.database.db.selectFrom('events').select('id').where('object_id', '=', carrier.id).orderBy('created_at').orderBy('id').execute()).map(
        (row) => row.id,
      ),
    );
    expect((await deliveriesOf(admin, endpoint.id)).every((delivery) => delivery.status === 'succeeded')).toBe(true);
  });

  it('when many changes of one object happen at once, then they arrive in the order they were made', async () => {
    await createEndpoint(admin, { url: receiver.url(), enabled_events: ['carrier.*'] });
    const carrier = await createCarrier(admin);
    for (let index = 0; index < 8; index++) await admin.patch(`/carriers/${carrier.id}`, { trade_name: `Name ${index}` });

    await t.runJobs();

    const received = receiver.events().map((event) => event.id);
    const recorded = (
      await t.database.db.selectFrom('events').select('id').where('object_id', '=', carrier.id).orderBy('created_at').orderBy('id').execute()
    ).map((row) => row.id);
    expect(received).toEqual(recorded);
    expect(received).toHaveLength(9);
  });
});

describe('disabled endpoints', () => {
  it('when an endpoint is disabled, then it gets nothing; enabled again, it gets what happens from then on', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    await admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: true });
    await createCarrier(admin);
    await t.runJobs();
    expect(receiver.requests).toHaveLength(0);
    expect(await deliveriesOf(admin, endpoint.id)).toEqual([]);

    await admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: false });
    const carrier = await createCarrier(admin);
    await t.runJobs();
    expect(receiver.events().map((event) => event.object_id)).toEqual([carrier.id]);
  });

  it('when an endpoint is disabled with deliveries pending, then they fail without being sent, saying why', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(answerWith(500));
    await createCarrier(admin);
    await t.runJobs();
    await admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: true });

    t.clock.advance(11 * SECOND);
    await t.runJobs();

    expect(receiver.requests).toHaveLength(1);
    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 2 });
    expect(delivery!.attempts[1]).toMatchObject({ status_code: null, error: 'Not sent: the endpoint is disabled.', succeeded: false });
    expect((await admin.post(`/webhook_endpoints/${endpoint.id}/deliveries/${delivery!.id}/retry`)).status).toBe(409);
  });

  it('when the receiver answers 410 Gone, then the endpoint is disabled at once (disabled_reason gone) and nothing is retried', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url(), enabled_events: ['carrier.*'] });
    receiver.answer(answerWith(410));
    await createCarrier(admin);
    await t.runJobs();
    const disabled = (await admin.get(`/webhook_endpoints/${endpoint.id}`)).body;
    expect(disabled).toMatchObject({ disabled: true, disabled_reason: 'gone', disabled_at: t.clock.now().toISOString() });
    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(delivery!.attempts[0]).toMatchObject({ status_code: 410, succeeded: false });
    const events = await admin.get(`/events?type=webhook_endpoint.disabled&object_id=${endpoint.id}`);
    expect(events.body.results).toEqual([expect.objectContaining({ data: { disabled: true, disabled_reason: 'gone' } })]);
    t.clock.advance(DAY);
    await createCarrier(admin);
    await t.runJobs();
    expect(receiver.requests).toHaveLength(1);
  });

  it('when an endpoint has failed for 3 days, then the next failure disables it, visibly, and that is an event other endpoints receive', async () => {
    const watcher = await startReceiver();
    try {
      await createEndpoint(admin, { url: watcher.url(), enabled_events: ['webhook_endpoint.disabled'] });
      const endpoint = await createEndpoint(admin, { url: receiver.url(), enabled_events: ['carrier.*'] });
      receiver.answer(answerWith(500));
      const carrier = await createCarrier(admin);
      await t.runJobs();
      const failingSince = t.clock.now().toISOString();

      // Failures for just under 3 days leave it enabled.
      t.clock.advance(3 * DAY - HOUR);
      await admin.patch(`/carriers/${carrier.id}`, { trade_name: 'Later' });
      await createCarrier(admin);
      await t.runJobs();
      expect((await admin.get(`/webhook_endpoints/${endpoint.id}`)).body).toMatchObject({ disabled: false, failing_since: failingSince });

      t.clock.advance(2 * HOUR);
      await t.runJobs();

      const disabled = (await admin.get(`/webhook_endpoints/${endpoint.id}`)).body;
      expect(disabled).toMatchObject({ disabled: true, disabled_reason: 'failing', disabled_at: t.clock.now().toISOString(), failing_since: failingSince });
      const listed = await admin.get(`/events?type=webhook_endpoint.disabled&object_id=${endpoint.id}`);
      expect(listed.body.results).toEqual([
        expect.objectContaining({
          event_type: 'webhook_endpoint.disabled',
          object_type: 'webhook_endpoint',
          object_id: endpoint.id,
          data: { disabled: true, disabled_reason: 'failing' },
        }),
      ]);
      expect(watcher.events()).toEqual(listed.body.results);
      // Nothing more is attempted: what was pending fails unsent, and new events make no deliveries.
      const attemptsBefore = receiver.requests.length;
      t.clock.advance(DAY);
      await createCarrier(admin);
      await t.runJobs();
      expect(receiver.requests).toHaveLength(attemptsBefore);
      const deliveries = await deliveriesOf(admin, endpoint.id);
      expect(deliveries.every((delivery) => delivery.status === 'failed')).toBe(true);
      expect(deliveries).toHaveLength(3);
    } finally {
      await watcher.close();
    }
  });
});

describe('GET /webhook_endpoints/{id}/deliveries and retry', () => {
  it('when listed, then deliveries come newest first with their attempts, filtered by status, paginated', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer((request, response) => response.writeHead(JSON.parse(request.body).event_type === 'employer.created' ? 500 : 200).end());
    await createCarrier(admin);
    t.clock.advance(SECOND);
    await createEmployer(admin);
    t.clock.advance(SECOND);
    await createCarrier(admin);
    await t.runJobs();

    const all = await deliveriesOf(admin, endpoint.id);
    expect(all.map((delivery) => [delivery.event_type, delivery.status])).toEqual([
      ['carrier.created', 'succeeded'],
      ['employer.created', 'pending'],
      ['carrier.created', 'succeeded'],
    ]);
    expect((await deliveriesOf(admin, endpoint.id, '&status=pending')).map((delivery) => delivery.event_type)).toEqual(['employer.created']);
    const page = await admin.get(`/webhook_endpoints/${endpoint.id}/deliveries?page_size=2`);
    expect(page.body.results).toHaveLength(2);
    expect(page.body.results[0]).toMatchObject({ object: 'webhook_delivery', endpoint: endpoint.id });
    const next = await admin.get(page.body.next);
    expect(next.body.results.map((delivery: { id: string }) => delivery.id)).toEqual([all[2]!.id]);
    expect((await admin.get(`/webhook_endpoints/${endpoint.id}/deliveries?status=lost`)).status).toBe(400);
  });

  it('when a delivery is retried, then it is sent again at once with the same event, and counted as another attempt', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    await createCarrier(admin);
    await t.runJobs();
    const [delivery] = await deliveriesOf(admin, endpoint.id);

    const response = await admin.post(`/webhook_endpoints/${endpoint.id}/deliveries/${delivery!.id}/retry`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: delivery!.id,
      status: 'pending',
      completed_at: null,
      attempt_count: 1,
      next_attempt_at: t.clock.now().toISOString(),
    });
    await t.runJobs();

    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    expect(receiver.requests[1]!.headers['webhook-delivery']).toBe(delivery!.id);
    const [after] = await deliveriesOf(admin, endpoint.id);
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('when a failed delivery is retried, then it gets one more attempt; one waiting for its next attempt goes now', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(answerWith(500));
    await createCarrier(admin);
    await t.runJobs();
    const [pending] = await deliveriesOf(admin, endpoint.id);

    receiver.answer(answerWith(200));
    expect((await admin.post(`/webhook_endpoints/${endpoint.id}/deliveries/${pending!.id}/retry`)).status).toBe(200);
    await t.runJobs();
    expect((await deliveriesOf(admin, endpoint.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it("when the delivery is unknown or another endpoint's, then 404", async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    const other = await createEndpoint(admin, { url: receiver.url('/other'), enabled_events: ['employer.*'] });
    await createCarrier(admin);
    await t.runJobs();
    const [delivery] = await deliveriesOf(admin, endpoint.id);
    expect((await admin.post(`/webhook_endpoints/${other.id}/deliveries/${delivery!.id}/retry`)).status).toBe(404);
    expect((await admin.post(`/webhook_endpoints/${endpoint.id}/deliveries/whd_unknown/retry`)).status).toBe(404);
    const stranger = await newProviderAdmin(t, 'webhooks-stranger');
    expect((await stranger.post(`/webhook_endpoints/${endpoint.id}/deliveries/${delivery!.id}/retry`)).status).toBe(404);
    expect((await stranger.get(`/webhook_endpoints/${endpoint.id}/deliveries`)).status).toBe(404);
  });

  it('when an endpoint is deleted with deliveries pending, then they go with it and their jobs end quietly', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    receiver.answer(answerWith(500));
    await createCarrier(admin);
    await t.runJobs();
    await admin.delete(`/webhook_endpoints/${endpoint.id}`);
    t.clock.advance(11 * SECOND);
    await t.runJobs();
    expect(receiver.requests).toHaveLength(1);
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute()).toEqual([]);
  });
});

describe('replay through GET /events', () => {
  it('when the receiver was down, then GET /events lists every event it missed, exactly as the deliveries carry them', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url(), enabled_events: ['carrier.*', 'employer.*'] });
    receiver.answer(answerWith(503));
    const startedAt = t.clock.now().toISOString();
    t.clock.advance(SECOND);
    const carrier = await createCarrier(admin);
    await admin.patch(`/carriers/${carrier.id}`, { trade_name: 'Renamed' });
    const employer = await createEmployer(admin);
    await t.runJobs();
    const missed = (await deliveriesOf(admin, endpoint.id)).filter((delivery) => delivery.status === 'pending');
    expect(missed).toHaveLength(3);

    // The receiver catches up from the event log instead of waiting for the retries.
    const page = await admin.get(`/events?type=carrier.*,employer.*&created_after=${startedAt}`);
    expect(page.status).toBe(200);
    expect(page.body.results.map((event: { id: string }) => event.id).sort()).toEqual(missed.map((delivery) => delivery.event).sort());
    expect(page.body.results.map((event: { object_id: string }) => event.object_id)).toEqual([employer.id, carrier.id, carrier.id]);
    // Two were attempted (the carrier's update waits behind its creation): what they carried is what the log lists.
    expect(receiver.requests).toHaveLength(2);
    const listed = new Map(page.body.results.map((event: { id: string }) => [event.id, event]));
    for (const request of receiver.requests) expect(JSON.parse(request.body)).toEqual(listed.get(String(request.headers['webhook-id'])));

    // And the retries, once it is back, bring the same events again (at least once): the receiver dedupes by id.
    receiver.answer(answerWith(200));
    t.clock.advance(11 * SECOND);
    await t.runJobs();
    expect(new Set(receiver.requests.slice(2).map((request) => request.headers['webhook-id']))).toEqual(new Set(missed.map((delivery) => delivery.event)));
    for (const request of receiver.requests) expect(JSON.parse(request.body)).toEqual(listed.get(String(request.headers['webhook-id'])));
  });
});

describe('retention', () => {
  it('when settled deliveries are older than the events retention, then they go with their attempts and jobs; pending ones stay', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    await createCarrier(admin);
    await t.runJobs();
    receiver.answer(answerWith(500));
    t.clock.advance(SECOND);
    await createEmployer(admin);
    await t.runJobs();
    const [pending, settled] = await deliveriesOf(admin, endpoint.id);
    expect([pending!.status, settled!.status]).toEqual(['pending', 'succeeded']);

    expect(await purgeSettledWebhookDeliveries(t.database.db, t.clock, 30)).toBe(0);
    t.clock.advance(31 * DAY);
    expect(await purgeSettledWebhookDeliveries(t.database.db, t.clock, 30)).toBeGreaterThanOrEqual(1);

    expect((await deliveriesOf(admin, endpoint.id)).map((delivery) => delivery.id)).toEqual([pending!.id]);
    expect(await t.database.db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', settled!.id).execute()).toEqual([]);
    expect(await t.database.db.selectFrom('jobs').select('id').where('id', '=', `job_${settled!.id}`).execute()).toEqual([]);
    expect(await t.database.db.selectFrom('jobs').select('id').where('id', '=', `job_${pending!.id}`).execute()).toHaveLength(1);
  });
});

describe('secret rotation', () => {
  it('when the secret is rotated, then deliveries carry a signature by each secret for 24 hours, then by the new one only', async () => {
    const endpoint = await createEndpoint(admin, { url: receiver.url() });
    const rotated = (await admin.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`)).body;
    await createCarrier(admin);
    await t.runJobs();

    const during = receiver.requests.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhookSignature({ payload: during.body, headers: during.headers, secret: rotated.secret, now: nowSeconds() })).toBe(true);
    expect(verifyWebhookSignature({ payload: during.body, headers: during.headers, secret: endpoint.secret, now: nowSeconds() })).toBe(true);
    expect(standardLibraryVerifies(during, rotated.secret) && standardLibraryVerifies(during, endpoint.secret)).toBe(true);

    t.clock.advance(DAY + SECOND);
    await createCarrier(admin);
    await t.runJobs();
    const after = receiver.requests.at(-1)!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWebhookSignature({ payload: after.body, headers: after.headers, secret: rotated.secret, now: nowSeconds() })).toBe(true);
    expect(verifyWebhookSignature({ payload: after.body, headers: after.headers, secret: endpoint.secret, now: nowSeconds() })).toBe(false);
  });
});

describe('SSRF guard', () => {
  it('when the receiver answers with a redirect, then it is not followed and the attempt fails', async () => {
    const target = await startReceiver();
    try {
      const endpoint = await createEndpoint(admin, { url: receiver.url() });
      receiver.answer((_request, response) => response.writeHead(302, { location: target.url('/internal') }).end());
      await createCarrier(admin);
      await t.runJobs();

      expect(target.requests).toHaveLength(0);
      const [delivery] = await deliveriesOf(admin, endpoint.id);
      expect(delivery).toMatchObject({ status: 'pending' });
      expect(delivery!.attempts[0]).toMatchObject({ status_code: 302, succeeded: false, error: expect.stringContaining('redirects are not followed') });
    } finally {
      await target.close();
    }
  });

  it('when loopback is not allowed, then neither a loopback URL nor a name resolving to loopback is connected to', async () => {
    const sender = new WebhookSender({ allowLoopback: false, timeoutMs: TIMEOUT_MS, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    try {
      const port = new URL(receiver.url()).port;
      const literal = await sender.send(receiver.url(), '{}', {});
      expect(literal).toMatchObject({
        succeeded: false,
        statusCode: null,
        error: 'Refused to connect to 127.0.0.1: it is not a public internet address.',
      });
      const named = await sender.send(`http://receiver.integrator.example:${port}/hooks`, '{}', {});
      // What the name resolved to stays out of the message: it is the deployment's network, not the tenant's.
      expect(named.error).toBe('Refused to connect to receiver.integrator.example: it does not resolve to public internet addresses only.');
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await sender.close();
    }
  });

  it('when a name resolves to a private address among public ones (DNS rebinding), then nothing is connected to', async () => {
    let lookups = 0;
    const sender = new WebhookSender({
      allowLoopback: true,
      timeoutMs: TIMEOUT_MS,
      resolve: async () => {
        lookups += 1;
        return [
          { address: '93.184.216.34', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ];
      },
    });
    try {
      const outcome = await sender.send('https://rebind.integrator.example/hooks', '{}', {});
      expect(outcome).toMatchObject({
        succeeded: false,
        statusCode: null,
        error: 'Refused to connect to rebind.integrator.example: it does not resolve to public internet addresses only.',
      });
      expect(lookups).toBe(1);
    } finally {
      await sender.close();
    }
  });

  it('when an endpoint names a host that resolves to a private address at delivery time, then the attempt is refused and recorded', async () => {
    const resolving = await createWebhookTestApp({ allowLoopback: false, timeoutMs: TIMEOUT_MS, resolve: async () => [{ address: '10.20.30.40', family: 4 }] });
    try {
      const endpoint = await createEndpoint(resolving.admin, { url: 'https://hooks.integrator.example/benefits' });
      await createCarrier(resolving.admin);
      await resolving.runJobs();
      const [delivery] = await deliveriesOf(resolving.admin, endpoint.id);
      expect(delivery!.attempts[0]).toMatchObject({
        status_code: null,
        succeeded: false,
        error: 'Refused to connect to hooks.integrator.example: it does not resolve to public internet addresses only.',
      });
      expect(JSON.stringify(delivery)).not.toContain('10.20.30.40');
    } finally {
      await resolving.close();
    }
  });
});
