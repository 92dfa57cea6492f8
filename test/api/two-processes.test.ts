import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServe, type ServerProcess } from '../helpers/cli.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { ApiClient } from '../helpers/test-app.ts';
import { createEndpoint, deliveriesOf, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Production on PostgreSQL with more than one server process: two `benefits serve` processes share one
// database. Every webhook delivery (a job of the durable queue) is sent once, and the daily sweep runs once,
// whichever process takes it.

const CARRIERS = 30;
const env = (url: string): Record<string, string> => ({
  DATABASE_URL: url,
  BENEFITS_ENCRYPTION_KEY: 'cd'.repeat(32),
  WEBHOOKS_ALLOW_LOOPBACK: 'true',
  // Today's sweep is due from midnight: both processes try to take it as soon as they start.
  SWEEP_TIME: '00:00',
  SWEEP_TIME_ZONE: 'UTC',
  RATE_LIMIT_MAX: '0',
});

let database: TestDatabase;
let servers: ServerProcess[] = [];
let receiver: Receiver;

beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const server of servers) {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }
  servers = [];
  await receiver.close();
  await database.destroy();
});

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(testDatabaseKind() !== 'postgres')('two server processes on one PostgreSQL', () => {
  it('when both serve requests, then every webhook delivery is sent exactly once and the daily sweep runs once', { timeout: 90_000 }, async () => {
    const first = await startServe(env(database.url));
    servers.push(first);
    const key = /(bk_live_[0-9A-Za-z]+)/.exec(first.output())![1]!;
    const second = await startServe(env(database.url));
    servers.push(second);
    const clients = [new ApiClient(first.url, key), new ApiClient(second.url, key)];
    await createEndpoint(clients[0]!, { url: receiver.url(), enabled_events: ['carrier.*'] });

    // Round-robin: each process records half the events, and either may deliver any of them.
    const created = await Promise.all(
      Array.from({ length: CARRIERS }, (_, index) => clients[index % 2]!.post('/carriers', { legal_name: `Shared Mutual ${index}` })),
    );
    expect(created.map((response) => response.status)).toEqual(Array.from({ length: CARRIERS }, () => 201));

    await until('every delivery to arrive', () => (receiver.requests.length >= CARRIERS ? true : undefined));
    // Time for a second sending of anything, were there one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = receiver.requests.map((request) => String(request.headers['webhook-id']));
    expect(ids).toHaveLength(CARRIERS);
    expect(new Set(ids).size).toBe(CARRIERS);
    const deliveries = await deliveriesOf(clients[1]!, (await clients[1]!.get('/webhook_endpoints')).body.results[0].id);
    expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attempt_count === 1)).toBe(true);
    // Each delivery job ran once, to done.
    const jobs = await database.db.selectFrom('jobs').select(['state', 'attempts']).execute();
    expect(jobs).toHaveLength(CARRIERS);
    expect(jobs.every((job) => job.state === 'done' && job.attempts === 1)).toBe(true);

    // The sweep: one row for today, finished, claimed by one process, which alone logged it.
    const runs = await until('the daily sweep to finish', async () => {
      const rows = await database.db.selectFrom('sweep_runs').selectAll().execute();
      return rows.length > 0 && rows.every((row) => row.finished_at !== null) ? rows : undefined;
    });
    expect(runs).toHaveLength(1);
    const logged = servers.map(
      (server) =>
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('daily sweep done')).length,
    );
    expect(logged.sort()).toEqual([0, 1]);
  });
});
