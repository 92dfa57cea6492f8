import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, buildJobHandlers, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { SweepScheduler } from '../../src/modules/daily-sweep/sweep-scheduler.ts';
import { DELIVER_WEBHOOK_JOB } from '../../src/modules/webhooks/webhook-fan-out.ts';
import { WebhookSender } from '../../src/modules/webhooks/webhook-sender.ts';
import { observeDeliveries } from '../../src/observability/delivery-observer.ts';
import { SERVICE_VERSION } from '../../src/observability/version.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { parseExposition, type Exposition } from '../helpers/prometheus.ts';
import { ApiClient, createTestApp, ok, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';
import { answerWith, createEndpoint, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Operators' view of the service: /metrics, /healthz and /readyz, and what the log says of requests and failed
// deliveries (docs/architecture.md "Observability").

let t: TestContext;
let receiver: Receiver;
let worker: JobWorker;
let sender: WebhookSender;

beforeAll(async () => {
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  receiver = await startReceiver();
  sender = new WebhookSender({ allowLoopback: true, timeoutMs: 2000 });
  const handlers = buildJobHandlers(t.services, {
    adapter: new SandboxCarrierAdapter(),
    webhooks: sender,
    observer: observeDeliveries(t.app.metrics, t.app.log),
  });
  worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers, log: t.app.log, batchSize: 20 });
});
afterAll(async () => {
  await worker.stop();
  await sender.close();
  await receiver.close();
  await t.close();
});

async function scrape(client: ApiClient = t.anonymous): Promise<Exposition> {
  const response = await client.get('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.text);
}

function logLines(): Record<string, unknown>[] {
  return t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Another app on the test's database, built as the server builds it but with its own settings. */
async function otherApp(env: Record<string, string>, encryptionKey: Buffer = TEST_ENCRYPTION_KEY): Promise<{ app: App; client: ApiClient }> {
  const config = loadConfig({ DATABASE_URL: t.database.url, RATE_LIMIT_MAX: '0', LOG_LEVEL: 'silent', ...env });
  const app = await buildApp({ config, db: t.database.db, clock: t.clock, encryptionKey });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, client: new ApiClient(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, undefined) };
}

/**
 * Prometheus naming (https://prometheus.io/docs/practices/naming/) for the service's own families: a `benefits_`
 * prefix, snake_case, `_total` on counters only, base units (seconds, bytes). The process's standard families
 * (prom-client's process_* and nodejs_*) keep their usual names, which dashboards expect; they are only checked
 * to be valid names.
 */
function expectConventionalNames(metrics: Exposition): void {
  expect(metrics.families.size).toBeGreaterThan(5);
  for (const family of metrics.families.values()) {
    expect(family.name).toMatch(/^(benefits|process|nodejs)_[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect(family.help.length).toBeGreaterThan(10);
    if (!family.name.startsWith('benefits_')) continue;
    if (family.type === 'counter') expect(family.name).toMatch(/_total$/);
    else expect(family.name).not.toMatch(/_total$/);
    expect(family.name).not.toMatch(/_(milliseconds|ms|minutes|hours|kilobytes|megabytes)(_|$)/);
    if (/duration|_age|timestamp/.test(family.name)) expect(family.name).toMatch(/_seconds$/);
  }
}

describe('GET /metrics', () => {
  it('when scraped, then every family follows Prometheus naming (benefits_ prefix, snake_case, base units, _total on counters) and the documented ones are there', async () => {
    const metrics = await scrape();

    expectConventionalNames(metrics);
    expect(Object.fromEntries([...metrics.families.values()].map((family) => [family.name, family.type]))).toMatchObject({
      benefits_http_requests_total: 'counter',
      benefits_http_request_duration_seconds: 'histogram',
      benefits_delivery_attempts_total: 'counter',
      benefits_delivery_failures_total: 'counter',
      benefits_daily_sweep_duration_seconds: 'histogram',
      benefits_daily_sweep_last_run_timestamp_seconds: 'gauge',
      benefits_jobs: 'gauge',
      benefits_jobs_oldest_due_age_seconds: 'gauge',
      benefits_database_connections: 'gauge',
      benefits_database_pool_waiting_requests: 'gauge',
      benefits_build_info: 'gauge',
    });
    expect(metrics.value('benefits_build_info', { version: SERVICE_VERSION, node_version: process.versions.node })).toBe(1);
  });

  it('when requests are answered, then their counter and histogram move under the route template (never the raw URL), method and status', async () => {
    const member = await createMember(t.admin);
    const labels = { method: 'GET', route: '/members/{public_id}', status_code: '200' };
    const before = (await scrape()).value('benefits_http_requests_total', labels) ?? 0;

    await ok(t.admin.get(`/members/${member.id}`));
    await ok(t.admin.get(`/members/${member.id}`));
    expect((await t.admin.get('/members/mem_00000000000000000000')).status).toBe(404);
    expect((await t.admin.get('/no/such/path/anywhere')).status).toBe(404);

    const after = await scrape();
    expect(after.value('benefits_http_requests_total', labels)).toBe(before + 2);
    expect(after.value('benefits_http_requests_total', { ...labels, status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(after.value('benefits_http_request_duration_seconds_count', labels)).toBe(before + 2);
    expect(after.value('benefits_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(before + 2);
    expect(after.value('benefits_http_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
    const routes = new Set(after.samples.map((sample) => sample.labels.route).filter(Boolean));
    expect([...routes].filter((route) => route!.includes(member.id as string) || route!.includes('mem_') || route!.includes('/no/such'))).toEqual([]);
  });

  it('when a webhook delivery fails, then the attempt and failure counters move, the log says which endpoint and why, and the job queue shows the retry waiting', async () => {
    receiver.answer(answerWith(500, 'receiver says: secret-echo-of-the-payload'));
    const endpoint = await createEndpoint(t.admin, { url: receiver.url('/failing') });
    const before = await scrape();
    await createEmployer(t.admin);

    while ((await worker.runDueJobs()) > 0);

    const after = await scrape();
    const failedBefore = before.value('benefits_delivery_failures_total', { channel: 'webhook' }) ?? 0;
    expect(after.value('benefits_delivery_failures_total', { channel: 'webhook' })).toBe(failedBefore + 1);
    expect(after.value('benefits_delivery_attempts_total', { channel: 'webhook', outcome: 'failed' })).toBe(failedBefore + 1);
    expect(after.value('benefits_jobs', { kind: DELIVER_WEBHOOK_JOB, state: 'queued' })).toBe(1);
    // The retry is not due yet: nothing has waited.
    expect(after.value('benefits_jobs_oldest_due_age_seconds', { kind: DELIVER_WEBHOOK_JOB })).toBe(0);

    const warning = logLines().find((line) => line.msg === 'webhook delivery failed; will retry' && line.endpoint === endpoint.id);
    expect(warning).toMatchObject({ level: 40, channel: 'webhook', attempt: 1, reason: 'HTTP 500', delivery: expect.stringMatching(/^whd_|^\w+_/) });
    expect(Date.parse(warning!.retryAt as string)).toBeGreaterThan(t.clock.now().getTime());
    expect(t.logs.join('\n')).not.toContain('secret-echo');
    expect(t.logs.join('\n')).not.toContain(endpoint.secret);

    // An hour later the retry is due and has waited: the queue's age shows it.
    t.clock.set(new Date(t.clock.now().getTime() + 3_600_000).toISOString());
    expect((await scrape()).value('benefits_jobs_oldest_due_age_seconds', { kind: DELIVER_WEBHOOK_JOB })).toBeGreaterThan(3000);
    receiver.answer(answerWith(200, 'ok'));
    while ((await worker.runDueJobs()) > 0);
    const delivered = await scrape();
    expect(delivered.value('benefits_delivery_attempts_total', { channel: 'webhook', outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(delivered.value('benefits_jobs', { kind: DELIVER_WEBHOOK_JOB, state: 'queued' })).toBeUndefined();
    await ok(t.admin.delete(`/webhook_endpoints/${endpoint.id}`));
  });

  it('when a daily sweep run fails, then its duration is observed under outcome failed and its end time is set', async () => {
    const metrics = t.app.metrics;
    const scheduler = new SweepScheduler({
      db: t.database.db,
      clock: t.clock,
      sweep: { run: () => Promise.reject(new Error('the sweep broke')) },
      time: '00:00',
      timeZone: 'UTC',
      log: { info: () => undefined, error: () => undefined },
      ran: (succeeded, seconds) => metrics.sweepRan(succeeded, seconds),
    });
    const before = (await scrape()).value('benefits_daily_sweep_duration_seconds_count', { outcome: 'failed' }) ?? 0;

    expect(await scheduler.tick()).toBeUndefined();

    const after = await scrape();
    expect(after.value('benefits_daily_sweep_duration_seconds_count', { outcome: 'failed' })).toBe(before + 1);
    expect(after.value('benefits_daily_sweep_last_run_timestamp_seconds', { outcome: 'failed' })).toBe(t.clock.now().getTime() / 1000);
    expect(after.value('benefits_daily_sweep_duration_seconds_count', { outcome: 'succeeded' })).toBeUndefined();
  });

  it('when METRICS_TOKEN is set, then /metrics answers 401 without it or with an API key, and 200 with it; METRICS_ENABLED=false answers 404', async () => {
    const token = 'scrape-token-0123456789abcdef';
    const guarded = await otherApp({ METRICS_TOKEN: token });
    const off = await otherApp({ METRICS_ENABLED: 'false' });
    try {
      const without = await guarded.client.get('/metrics');
      expect(without.status).toBe(401);
      expect(without.body).toMatchObject({ type: 'authentication_error', message: expect.stringContaining('METRICS_TOKEN') });
      expect((await guarded.client.get('/metrics', { headers: { authorization: `Bearer ${t.admin.key}` } })).status).toBe(401);
      expect((await guarded.client.get('/metrics', { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
      await scrape(new ApiClient(guarded.client.baseUrl, token));
      expect((await off.client.get('/metrics')).status).toBe(404);
    } finally {
      await guarded.app.close();
      await off.app.close();
    }
  });
});

describe('/healthz and /readyz', () => {
  it('when everything is in order, then /healthz keeps its status and adds the version, and /readyz is 200 with every check ok', async () => {
    expect(await ok(t.anonymous.get('/healthz'))).toEqual({ status: 'ok', version: SERVICE_VERSION });
    expect(await ok(t.anonymous.get('/readyz'))).toEqual({
      status: 'ready',
      version: SERVICE_VERSION,
      checks: { database: { status: 'ok' }, migrations: { status: 'ok' }, encryption_key: { status: 'ok' } },
    });
  });

  it('when a migration of this version is not applied, then /readyz is 503 naming it, and /healthz (liveness) stays 200', async () => {
    const [last] = (
      await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name desc limit 1`.execute(t.database.db)
    ).rows;
    await sql`delete from kysely_migration where name = ${last!.name}`.execute(t.database.db);
    try {
      const response = await t.anonymous.get('/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({
        status: 'not_ready',
        checks: { database: { status: 'ok' }, migrations: { status: 'failed', reason: expect.stringContaining(last!.name) }, encryption_key: { status: 'ok' } },
      });
      expect((await t.anonymous.get('/healthz')).status).toBe(200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last!.name}, ${last!.timestamp})`.execute(t.database.db);
    }
    expect((await t.anonymous.get('/readyz')).status).toBe(200);
  });

  it('when the process has another encryption key than the stored data, then /readyz is 503 on encryption_key with a reason and no key material', async () => {
    await createMember(t.admin, { ssn: '123456789' });
    const otherKey = randomBytes(32);
    const wrong = await otherApp({}, otherKey);
    try {
      const response = await wrong.client.get('/readyz');
      expect(response.status).toBe(503);
      expect(response.body.checks).toEqual({
        database: { status: 'ok' },
        migrations: { status: 'ok' },
        encryption_key: { status: 'failed', reason: expect.stringContaining('BENEFITS_ENCRYPTION_KEY') },
      });
      expect(response.text).not.toContain(otherKey.toString('hex'));
    } finally {
      await wrong.app.close();
    }
    expect((await t.anonymous.get('/readyz')).status).toBe(200);
  });
});

describe('request logs', () => {
  it("when a request is answered, then its log line carries the provider and the API key's id, never the key", async () => {
    const response = await t.admin.get('/employers');
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');

    const completed = logLines().find((line) => line.reqId === requestId && line.msg === 'request completed');
    expect(completed).toMatchObject({ provider: t.providerId, apiKey: expect.stringMatching(/^key_/) });
    const keys = await ok(t.admin.get('/api_keys?page_size=100'));
    expect((keys.results as { id: string }[]).map((key) => key.id)).toContain(completed!.apiKey);
    expect(t.logs.join('\n')).not.toContain(t.admin.key);
  });
});

describe('the server process', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: t.database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BENEFITS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY.toString('hex'),
      // The day's sweep runs at the start only once its time has passed: at midnight it always has (with the
      // default 02:00 this test failed whenever it ran between midnight and 02:00 UTC).
      SWEEP_TIME: '00:00',
    });
    server = await startServer(config, { print: () => undefined });
  });
  afterAll(async () => {
    await server.close();
  });

  it("when scraped, then the server's metrics add the database connections, the process's own metrics and the daily sweep it ran at start", async () => {
    const client = new ApiClient(server.url, undefined);
    const metrics = await scrape(client);
    expectConventionalNames(metrics);
    const connections = metrics.samples.filter((sample) => sample.name === 'benefits_database_connections');
    if (server.database.kind === 'postgres') {
      expect(connections.map((sample) => sample.labels.state).sort()).toEqual(['idle', 'in_use']);
    } else {
      expect(metrics.value('benefits_database_connections', { state: 'open' })).toBe(1);
    }
    expect(metrics.value('benefits_database_pool_waiting_requests')).toBe(0);
    expect(metrics.families.get('process_cpu_seconds_total')?.type).toBe('counter');
    expect(metrics.families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // The sweep of the day runs at the start (its time has passed, on a fresh database); it is measured.
    await server.sweeps.tick();
    await expect
      .poll(async () => (await scrape(client)).value('benefits_daily_sweep_duration_seconds_count', { outcome: 'succeeded' }), { timeout: 10_000 })
      .toBe(1);
  });
});
