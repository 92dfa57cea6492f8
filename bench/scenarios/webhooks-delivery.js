// webhooks-delivery: 10,000 events pushed to a local receiver by the real server (WEBHOOKS_ALLOW_LOOPBACK=true),
// one endpoint enabled for every event ('*'). Two phases on one server:
//
//   backlog  10,000 carriers and their `carrier.created` events, with the endpoint's deliveries and jobs, are
//            written before the server starts, through the service's own EventLog and webhook fan-out (as the
//            service writes them); the server's job worker then drains them. Deliveries per second from the
//            server being ready to the last one received.
//   live     BENCH_WEBHOOK_CLIENTS clients create 10,000 more carriers through POST /carriers (each commits one
//            `carrier.created` event) while the server delivers. Deliveries per second from the first request
//            to the last delivery received, and the lag of each delivery: from its event's created_at (set in
//            the transaction that commits the carrier) to its arrival at the receiver, p50/p99.
//
// The receiver (node:http in this process) answers 204, verifies every signature with the package's exported
// helper and counts deliveries of an event id it had already received (duplicates). Afterwards every delivery
// must be `succeeded` with one attempt. Reported: deliveries/s, lag, duplicates, the server's RSS and CPU.
// Targets on SQLite: live >= 500 deliveries/s and p99 lag <= 1 s.

import { randomBytes } from 'node:crypto';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { forEachDatabase, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { cpuSecondsOf, memoryOf, round } from '../lib/processes.js';
import { importDist } from '../lib/service.js';
import { secondsSince, wholeNumberFrom } from '../lib/seed.js';

export const name = 'webhooks-delivery';
export const key = 'webhooks_delivery';
export const description = '10,000 events to a local webhook receiver: a backlog drained at start, then live while clients create carriers';

const DEFAULT_EVENTS = 10_000;
const DEFAULT_CLIENTS = 20;
const BACKLOG_BATCH = 500;
const REQUEST_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 300_000;

const SQLITE_TARGETS = {
  'live_deliveries_per_s>=500': (timings) => timings.live.deliveries_per_s >= 500,
  'live_lag_p99_ms<=1000': (timings) => timings.live.lag_p99_ms <= 1000,
};

/**
 * The rate target per 1,000 req/s of the run's machine ceiling (run.js), in place of the absolute one: 500/s was
 * set on a machine whose ceiling was 43,270 req/s, so 11.6. The lag bound stays absolute.
 */
export const relativeTargets = {
  sqlite: [{ name: 'live_deliveries_per_s_per_kceil>=11.6', figure: 'live.deliveries_per_s', atLeast: 11.6, replaces: 'live_deliveries_per_s>=500' }],
};

export async function run({ service, kinds, log, env = process.env }) {
  const events = wholeNumberFrom(env, 'BENCH_WEBHOOK_EVENTS', DEFAULT_EVENTS);
  const clients = wholeNumberFrom(env, 'BENCH_WEBHOOK_CLIENTS', DEFAULT_CLIENTS);
  const result = {
    settings: {
      events_per_phase: events,
      clients,
      endpoint: "one, enabled_events ['*'], http://127.0.0.1 (WEBHOOKS_ALLOW_LOOPBACK=true)",
      events_from: 'carrier.created: seeded with the service EventLog (backlog); POST /carriers (live)',
      receiver: 'node:http in the bench process, answers 204, verifies every signature',
    },
  };
  const modules = await loadModules();
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, modules, events, clients, log: (line) => log(`[${kind}] ${line}`) }));
  return { ...result, ...byDatabase };
}

async function loadModules() {
  const [app, webhooks, crypto, events, signature] = await Promise.all([
    importDist('app.js'),
    importDist('modules/webhooks/webhook-endpoint.service.js'),
    importDist('shared/crypto.js'),
    importDist('modules/events/event-data.js'),
    importDist('index.js'),
  ]);
  return {
    buildEventLog: app.buildEventLog,
    buildChangeCommit: app.buildChangeCommit,
    WebhookEndpointService: webhooks.WebhookEndpointService,
    Encrypter: crypto.Encrypter,
    eventOf: events.eventOf,
    verifyWebhookSignature: signature.verifyWebhookSignature,
  };
}

async function runOn(kind, { service, modules, events, clients, log }) {
  const database = await createBenchDatabase(kind, service);
  const receiver = await startReceiver(modules.verifyWebhookSignature);
  try {
    const db = database.handle.db;
    const clock = service.systemClock;
    const encryptionKey = randomBytes(32);
    const created = await new service.ApiKeyService(db, clock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const eventLog = modules.buildEventLog({ clock });
    const endpoints = new modules.WebhookEndpointService({
      db,
      clock,
      encrypter: new modules.Encrypter(encryptionKey),
      changes: modules.buildChangeCommit({ clock }, eventLog),
      allowLoopback: true,
    });
    const endpoint = await endpoints.createEndpoint(created.provider, { url: receiver.url, enabled_events: ['*'], description: 'bench receiver' });
    receiver.secret = endpoint.secret;

    const seedStarted = Date.now();
    await seedBacklog(service, db, modules, eventLog, created.provider, events);
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${events} carriers with their events, deliveries and jobs in ${seedSeconds} s`);
    await database.closeHandle();

    const started = performance.now();
    const server = await startService({
      databaseUrl: database.url,
      env: { WEBHOOKS_ALLOW_LOOPBACK: 'true', BENEFITS_ENCRYPTION_KEY: encryptionKey.toString('hex') },
    });
    const timings = {};
    try {
      const ready = performance.now();
      const cpuAtReady = cpuSecondsOf(server.pid);
      await receiver.waitFor(events, DRAIN_TIMEOUT_MS);
      const drained = performance.now();
      // The worker starts before the server answers its health check: the drain is timed from the first delivery.
      const first = receiver.firstAt();
      timings.backlog = {
        deliveries: receiver.count(),
        seconds: round((drained - first) / 1000, 3),
        deliveries_per_s: Math.round(events / ((drained - first) / 1000)),
        server_start_s: round((ready - started) / 1000, 2),
        server_cpu_ms_per_delivery: round(((cpuSecondsOf(server.pid) - cpuAtReady) * 1000) / events, 3),
        ...memoryOf(server.pid),
      };
      log(`backlog: ${JSON.stringify(timings.backlog)}`);

      receiver.reset();
      const cpuBefore = cpuSecondsOf(server.pid);
      const liveStarted = performance.now();
      const produced = await produce(server.url, created.key, events, clients);
      await receiver.waitFor(events, DRAIN_TIMEOUT_MS);
      const liveEnded = performance.now();
      const lags = receiver.lags().sort((a, b) => a - b);
      timings.live = {
        deliveries: receiver.count(),
        seconds: round((liveEnded - liveStarted) / 1000, 3),
        deliveries_per_s: Math.round(events / ((liveEnded - liveStarted) / 1000)),
        events_per_s: Math.round(events / (produced.seconds || 1)),
        lag_p50_ms: percentile(lags, 0.5),
        lag_p99_ms: percentile(lags, 0.99),
        lag_max_ms: lags.at(-1),
        create_p99_ms: round(
          percentile(
            produced.latencies.sort((a, b) => a - b),
            0.99,
          ),
          1,
        ),
        server_cpu_ms_per_event: round(((cpuSecondsOf(server.pid) - cpuBefore) * 1000) / events, 3),
        ...memoryOf(server.pid),
      };
      log(`live: ${JSON.stringify(timings.live)}`);
      timings.receiver = { duplicates: receiver.duplicates(), bad_signatures: receiver.badSignatures() };
    } finally {
      await server.stop();
    }
    await checkDeliveries(service, database.url, endpoint.id, 2 * events);

    const block = { data: { seed_s: seedSeconds }, timings };
    if (timings.receiver.bad_signatures > 0) throw new Error(`${timings.receiver.bad_signatures} deliveries had a signature that did not verify`);
    if (kind === 'sqlite') block.targets = Object.fromEntries(Object.entries(SQLITE_TARGETS).map(([label, met]) => [label, met(timings)]));
    return block;
  } finally {
    await receiver.close();
    await database.destroy();
  }
}

/** Carriers and their events, BACKLOG_BATCH per transaction, through the EventLog: the fan-out adds deliveries and jobs. */
async function seedBacklog(service, db, modules, eventLog, providerId, count) {
  const now = new Date().toISOString();
  for (let start = 0; start < count; start += BACKLOG_BATCH) {
    const rows = [];
    for (let index = start; index < Math.min(count, start + BACKLOG_BATCH); index++) {
      rows.push({
        id: service.newId('carrier'),
        provider_id: providerId,
        legal_name: `Backlog Carrier ${index}`,
        trade_name: null,
        logo_url: null,
        created_at: now,
      });
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('carriers').values(rows).execute();
      await eventLog.recordMany(
        trx,
        rows.map((row) => modules.eventOf('carrier', 'created', row)),
      );
    });
  }
}

/** `count` POST /carriers from `clients` keep-alive connections; each must answer 201. */
async function produce(url, apiKey, count, clients) {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies = [];
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (next < count) {
      const index = next++;
      const body = JSON.stringify({ legal_name: `Live Carrier ${index}` });
      const sent = performance.now();
      const status = await post(agent, target, '/carriers', body, { authorization: `Bearer ${apiKey}` });
      latencies.push(performance.now() - sent);
      if (status !== 201) throw new Error(`POST /carriers answered ${status}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(clients, count) }, loop));
  } finally {
    agent.destroy();
  }
  return { seconds: (performance.now() - started) / 1000, latencies };
}

function post(agent, target, path, body, headers) {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: target.hostname,
        port: Number(target.port),
        method: 'POST',
        path,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * The receiver: records, per delivery, its event id and the lag from the event's created_at to arrival, and
 * verifies the signature against the endpoint's secret (set once the endpoint exists).
 */
async function startReceiver(verifyWebhookSignature) {
  let seen = new Set();
  let lags = [];
  let duplicates = 0;
  let badSignatures = 0;
  let firstAt;
  let waiting;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      firstAt ??= performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const eventId = request.headers['webhook-id'];
      if (!verifyWebhookSignature({ payload: body, headers: request.headers, secret: receiver.secret })) badSignatures += 1;
      if (seen.has(eventId)) duplicates += 1;
      else {
        seen.add(eventId);
        lags.push(arrived - Date.parse(JSON.parse(body).created_at));
      }
      response.writeHead(204).end();
      if (waiting && seen.size >= waiting.count) waiting.resolve();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver = {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    secret: undefined,
    count: () => seen.size,
    lags: () => lags,
    duplicates: () => duplicates,
    badSignatures: () => badSignatures,
    firstAt: () => firstAt,
    reset: () => {
      seen = new Set();
      lags = [];
      firstAt = undefined;
    },
    waitFor: (count, timeoutMs) => {
      if (seen.size >= count) return Promise.resolve();
      const done = Promise.withResolvers();
      waiting = { count, resolve: done.resolve };
      const timer = setTimeout(() => done.reject(new Error(`the receiver got ${seen.size} of ${count} deliveries in ${timeoutMs / 1000} s`)), timeoutMs);
      return done.promise.finally(() => {
        clearTimeout(timer);
        waiting = undefined;
      });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}

/** Every delivery of the endpoint succeeded, each at its first attempt; no delivery job is left. */
async function checkDeliveries(service, url, endpointId, expected) {
  const handle = service.openDatabase(url);
  try {
    const rows = await handle.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempt_count'])
      .select((eb) => eb.fn.countAll().as('count'))
      .where('endpoint_id', '=', endpointId)
      .groupBy(['status', 'attempt_count'])
      .execute();
    const counts = rows.map((row) => `${row.status}/${row.attempt_count}: ${row.count}`).join(', ');
    if (rows.length !== 1 || rows[0].status !== 'succeeded' || Number(rows[0].attempt_count) !== 1 || Number(rows[0].count) !== expected) {
      throw new Error(`expected ${expected} deliveries succeeded at their first attempt, found ${counts}`);
    }
    const left = await handle.db.selectFrom('jobs').select('state').where('kind', '=', 'webhook.deliver').where('state', '!=', 'done').execute();
    if (left.length > 0) throw new Error(`${left.length} delivery jobs are not done`);
  } finally {
    await handle.close();
  }
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}
