import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/index.ts';
import { startServe, type ServerProcess } from '../helpers/cli.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { ApiClient } from '../helpers/test-app.ts';
import { answerWith, createEndpoint, deliveriesOf, startReceiver, type Receiver } from '../helpers/webhooks.ts';

const env = (url: string): Record<string, string> => ({
  DATABASE_URL: url,
  BENEFITS_ENCRYPTION_KEY: 'ab'.repeat(32),
  WEBHOOKS_ALLOW_LOOPBACK: 'true',
  // A killed worker's claims are taken over after a second.
  JOB_LOCK_TIMEOUT_MS: '1000',
});
const CARRIERS = 12;

let database: TestDatabase;
let server: ServerProcess | undefined;
let receiver: Receiver;

beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
  receiver = await startReceiver();
});
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await receiver.close();
  await database.destroy();
});

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`webhook delivery across a crash (${testDatabaseKind()})`, () => {
  it('when the server is killed while the receiver holds deliveries mid-request, then after a restart every event arrives at least once and every delivery succeeds', async () => {
    server = await startServe(env(database.url));
    const key = /(bk_live_[0-9A-Za-z]+)/.exec(server.output())![1]!;
    const client = new ApiClient(server.url, key);
    const endpoint = await createEndpoint(client, { url: receiver.url(), enabled_events: ['carrier.*'] });

    // The receiver takes the requests in and never answers: the deliveries are mid-flight when the server dies.
    const held: ServerResponse[] = [];
    receiver.answer((_request, response) => void held.push(response));
    for (let index = 0; index < CARRIERS; index++) {
      const response = await client.post('/carriers', { legal_name: `Crash Mutual ${index}` });
      expect(response.status).toBe(201);
    }
    await until('the deliveries to reach the receiver', () => (receiver.requests.length >= CARRIERS / 2 ? true : undefined));
    const receivedBeforeCrash = receiver.requests.length;

    server.child.kill('SIGKILL');
    await server.exited;
    for (const response of held) response.destroy();
    // Nothing was recorded as delivered: the attempts never came back.
    const before = await database.db.selectFrom('webhook_deliveries').select(['status', 'attempt_count']).execute();
    expect(before).toHaveLength(CARRIERS);
    expect(before.every((delivery) => delivery.status === 'pending' && delivery.attempt_count === 0)).toBe(true);
    const running = await database.db.selectFrom('jobs').select('state').where('kind', '=', 'webhook.deliver').where('state', '=', 'running').execute();
    expect(running.length).toBeGreaterThan(0);

    receiver.answer(answerWith(200));
    server = await startServe(env(database.url));
    const restarted = new ApiClient(server.url, key);

    const deliveries = await until('every delivery to succeed', async () => {
      const list = await deliveriesOf(restarted, endpoint.id);
      return list.length === CARRIERS && list.every((delivery) => delivery.status === 'succeeded') ? list : undefined;
    });

    const events = await database.db.selectFrom('events').select('id').where('event_type', '=', 'carrier.created').execute();
    expect(events).toHaveLength(CARRIERS);
    const receivedIds = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    for (const event of events) expect(receivedIds.has(event.id)).toBe(true);
    // At least once: what was in flight at the crash arrives again (receivers dedupe on Webhook-Id).
    expect(receiver.requests.length).toBeGreaterThanOrEqual(CARRIERS + receivedBeforeCrash);
    for (const request of receiver.requests) {
      expect(verifyWebhookSignature({ payload: request.body, headers: request.headers, secret: endpoint.secret })).toBe(true);
    }
    expect(deliveries.every((delivery) => delivery.attempts.at(-1)?.succeeded === true)).toBe(true);
    const jobs = await database.db.selectFrom('jobs').select('state').where('kind', '=', 'webhook.deliver').execute();
    expect(jobs.every((job) => job.state === 'done')).toBe(true);
  }, 90_000);
});
