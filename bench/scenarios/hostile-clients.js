// hostile-clients: normal clients keep working while hostile ones attack, and what the worst bodies cost.
//
//   load    20 clients with an admin key (autocannon): GET /carriers/{random id} (80%), POST /carriers (10%),
//           PATCH /carriers/{random id} (10%) over 1,000 seeded carriers, every answer 2xx. Measured in slices
//           that alternate between `baseline` (nothing else) and `attack`: 4 keyless closed-loop clients and
//           200 slow sockets, run by bench/hostile-attacker.js in a process of its own, started a lead-in before
//           the attack slice and stopped after it. Throughput ratio attack/baseline, p99 of both, failures.
//           The attacker also runs two paced clients with valid admin keys against the carrier channel: SSRF
//           (EDI profiles and webhook endpoints pointing at internal addresses: every one must be refused) and
//           acknowledgement spoofing (999s that are not for three delivered files: none may settle one).
//   bodies  server CPU per request (from /proc, sequential requests, the server otherwise idle) of the worst
//           bodies lib/hostile-bodies.js makes for every POST/PATCH/PUT operation of GET /openapi.json, sent
//           with a valid admin key, and of POST /documents around a valid 10 MiB upload. Every case is screened
//           with a few repetitions, then the costliest are measured again until their CPU adds up to 0.5 s.
//
// The server runs with the rate limiter off (RATE_LIMIT_MAX=0): the defence measured is the server's own
// handling of what it is sent, not the limiter; and with REQUEST_TIMEOUT_MS=2000 and HEADERS_TIMEOUT_MS=1000,
// so that slow sockets are cut, and seen to be, within each attack slice and its lead-in.
// Targets (every database): ratio >= 0.8, no normal request failing, no internal address accepted, no file
// settled by a spoofed 999 (and a real 999 still settling one afterwards), worst 1 MiB body < 50 ms of server
// CPU, worst document upload < 250 ms.

import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachDatabase, getJson, startService } from '../lib/bench.js';
import { ack999 } from '../lib/carrier-channel.js';
import { createBenchDatabase } from '../lib/databases.js';
import { bodyCases, operationsWithJsonBodies } from '../lib/hostile-bodies.js';
import { measureAlternating } from '../lib/load.js';
import { PROJECT_ROOT, cpuSecondsOf, memoryOf, round, superviseChild } from '../lib/processes.js';
import { importDist } from '../lib/service.js';
import { insertRows, secondsSince, seedEmployerGroup } from '../lib/seed.js';
import { EDI_PROFILE, seed as seedEdiGroup } from './edi-files.js';

export const name = 'hostile-clients';
export const key = 'hostile_clients';
export const description =
  '20 clients keep working while 4 keyless clients send the worst bodies, 200 slow sockets trickle, and an SSRF and a 999-spoofing client probe the carrier channel; CPU of the worst bodies';

const CARRIERS = 1000;
const NORMAL_CONNECTIONS = 20;
const KEYLESS_CLIENTS = 4;
const SLOW_SOCKETS = 200;
const REQUEST_TIMEOUT_MS = 2000;
const HEADERS_TIMEOUT_MS = 1000;
/** The attack runs this long before each attack slice is measured: slow sockets connected and cut at least once. */
const LEAD_IN_MS = 3000;
/** Pause after the attack stops, so that the server's last work on it does not fall into the next baseline slice. */
const SETTLE_MS = 500;
/** Every body case: one unmeasured request, then this many measured. */
const SCREEN_REPETITIONS = 2;
/** The costliest cases of each group are measured again, until their CPU adds up to CONFIRM_CPU_S. */
const CONFIRM_CASES = 8;
const CONFIRM_CPU_S = 0.5;
const CONFIRM_MAX_REPETITIONS = 60;
const REPORTED_CASES = 5;
const BODY_REQUEST_TIMEOUT_MS = 120_000;
const MISSING_ID = 'zzz_00000000000000000000';
const PHASES = ['load', 'bodies'];
/** Edi groups with a delivered change file each, for the acknowledgement spoofer; members (with a change) per group. */
const SPOOFED_FILES = 3;
const SPOOFED_FILE_MEMBERS = 2;

const TARGETS = {
  load: {
    'ratio>=0.8': (figures) => figures.ratio >= 0.8,
    'normal_failures==0': (figures) => figures.normal_failures === 0,
    'ssrf_accepted==0': (figures) => figures.ssrf_accepted === 0,
    'ack_spoof_settled==0': (figures) => figures.ack_spoof_settled === 0,
    // Otherwise the spoofs may be refused for a reason of their own (a malformed 999), and prove nothing.
    ack_control_settles: (figures) => figures.ack_control_settles === true,
  },
  bodies: {
    'worst_1mib_body_cpu_ms<50': (figures) => figures.worst_1mib_body_cpu_ms < 50,
    'worst_document_cpu_ms<250': (figures) => figures.worst_document_cpu_ms < 250,
  },
};

export async function run({ service, settings, kinds, log, env = process.env }) {
  const phases = phasesFrom(env);
  const limits = await loadLimits();
  const result = {
    settings: {
      phases: phases.join(','),
      carriers: CARRIERS,
      normal_connections: NORMAL_CONNECTIONS,
      normal_mix: 'GET /carriers/{id} 80%, POST /carriers 10%, PATCH /carriers/{id} 10%',
      keyless_clients: KEYLESS_CLIENTS,
      slow_sockets: `${SLOW_SOCKETS}: half trickle headers, half a body of Content-Length 100000 (a quarter of all with a valid key), 1 byte/s`,
      duration_s: settings.duration,
      warmup_s: settings.warmup,
      rounds: settings.rounds,
      attack_lead_in_s: LEAD_IN_MS / 1000,
      rate_limit: 'off (RATE_LIMIT_MAX=0): the defence measured is the server itself, not the limiter',
      timeouts: `REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}, HEADERS_TIMEOUT_MS=${HEADERS_TIMEOUT_MS} (defaults 30000, 10000), so that slow sockets are cut within each attack slice`,
      body_cpu: `${SCREEN_REPETITIONS} repetitions per case after one unmeasured; the ${CONFIRM_CASES} costliest per group again until ${CONFIRM_CPU_S} s of CPU`,
      carrier_channel: `during attack slices, an SSRF client (another provider's admin key) and a 999 spoofer (${SPOOFED_FILES} delivered change files), each paced to 20 requests/s`,
    },
  };
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, settings, phases, limits, log: (line) => log(`[${kind}] ${line}`) }));
  return { ...result, ...byDatabase };
}

function phasesFrom(env) {
  const raw = env.BENCH_HOSTILE_PHASES?.trim();
  if (!raw) return PHASES;
  const phases = raw
    .split(',')
    .map((phase) => phase.trim())
    .filter(Boolean);
  for (const phase of phases) {
    if (!PHASES.includes(phase)) throw new Error(`BENCH_HOSTILE_PHASES: unknown phase "${phase}" (${PHASES.join(', ')})`);
  }
  return phases;
}

/** The service's own body limits and its JSON shape check, so that every body is sized by what it enforces. */
async function loadLimits() {
  const [app, jsonBody, documents] = await Promise.all([
    importDist('app.js'),
    importDist('http/json-body.js'),
    importDist('modules/documents/document.schemas.js'),
  ]);
  return {
    bodyLimit: app.BODY_LIMIT_BYTES,
    documentBodyLimit: documents.DOCUMENT_BODY_LIMIT_BYTES,
    maxDocumentBytes: documents.MAX_DOCUMENT_BYTES,
    maxDepth: jsonBody.MAX_JSON_DEPTH,
    maxValues: jsonBody.MAX_JSON_VALUES,
    jsonShape: jsonBody.jsonShape,
  };
}

async function runOn(kind, { service, settings, phases, limits, log }) {
  const database = await createBenchDatabase(kind, service);
  const encryptionKey = randomBytes(32);
  try {
    const seedStarted = Date.now();
    const apiKeys = new service.ApiKeyService(database.handle.db, service.systemClock);
    const normal = await apiKeys.createKeyForProvider('bench', { role: 'admin', name: 'normal clients' });
    const slow = await apiKeys.createKeyForProvider('bench', { role: 'admin', name: 'slow clients' });
    const carriers = Array.from({ length: CARRIERS }, (_, i) => ({
      id: service.newId('carrier'),
      provider_id: normal.provider,
      legal_name: `Carrier ${String(i + 1).padStart(4, '0')} Mutual`,
      trade_name: null,
      logo_url: null,
      created_at: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
    }));
    await insertRows(database.handle.db, 'carriers', carriers);
    const carrierChannel = phases.includes('load') ? await seedCarrierChannel(service, database.handle.db, normal.provider, encryptionKey) : undefined;
    await database.closeHandle();
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${CARRIERS} carriers in ${seedSeconds} s`);

    const server = await startService({
      databaseUrl: database.url,
      env: {
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        BENEFITS_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        // The SSRF client measures what a deployment refuses: never the development switch.
        WEBHOOKS_ALLOW_LOOPBACK: 'false',
      },
    });
    const block = { data: { carriers: CARRIERS, seed_s: seedSeconds }, measurements: {}, figures: {}, targets: {} };
    try {
      const ids = carriers.map((carrier) => carrier.id);
      const authorization = `Bearer ${normal.key}`;
      await verify(server.url, authorization, carriers[0]);
      if (phases.includes('load')) {
        const channel = await deliveredFiles(server.url, carrierChannel);
        Object.assign(block, await loadPhase({ server, settings, ids, authorization, slowKey: slow.key, channel, limits, log }, block));
      }
      if (phases.includes('bodies')) {
        block.body_cpu = await bodiesPhase({ server, ids, authorization, limits, log });
        block.figures.worst_1mib_body_cpu_ms = block.body_cpu.worst_1mib[0]?.cpu_ms ?? null;
        block.figures.worst_1mib_body = block.body_cpu.worst_1mib[0]?.case ?? null;
        block.figures.worst_document_cpu_ms = block.body_cpu.worst_document[0]?.cpu_ms ?? null;
        block.figures.worst_document = block.body_cpu.worst_document[0]?.case ?? null;
        block.figures.body_failures = block.body_cpu.failures.length;
        block.figures.largest_answer_bytes = block.body_cpu.largest_response?.response_bytes ?? null;
      }
      block.data.server_peak_rss_mb = memoryOf(server.pid).peak_rss_mb;
    } catch (error) {
      const output = server.output().trim();
      if (output) error.message += `\n--- service output (tail) ---\n${output}`;
      throw error;
    } finally {
      await server.stop();
    }
    for (const phase of phases) {
      for (const [label, met] of Object.entries(TARGETS[phase])) block.targets[label] = Boolean(met(block.figures));
    }
    return block;
  } finally {
    await database.destroy();
  }
}

/** The normal requests work, and the hostile ones are refused as expected, before anything is measured. */
async function verify(url, authorization, carrier) {
  const found = await getJson(`${url}/carriers/${carrier.id}`, { authorization });
  if (found.legal_name !== carrier.legal_name) throw new Error(`GET /carriers/${carrier.id} returned ${JSON.stringify(found.legal_name)}`);
  const checks = [
    { method: 'POST', path: '/carriers', authorization, body: { legal_name: 'Verify Carrier' }, status: 201 },
    { method: 'PATCH', path: `/carriers/${carrier.id}`, authorization, body: { trade_name: 'Verified' }, status: 200 },
    { method: 'POST', path: '/carriers', body: { legal_name: 'Keyless' }, status: 401 },
    { method: 'POST', path: '/nope', body: { legal_name: 'Nowhere' }, status: 404 },
  ];
  for (const check of checks) {
    const response = await fetch(`${url}${check.path}`, {
      method: check.method,
      headers: { 'content-type': 'application/json', ...(check.authorization ? { authorization: check.authorization } : {}) },
      body: JSON.stringify(check.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== check.status)
      throw new Error(`${check.method} ${check.path} answered ${response.status}, expected ${check.status}: ${text.slice(0, 300)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// load: baseline and attack slices

async function loadPhase({ server, settings, ids, authorization, slowKey, channel, limits, log }, block) {
  const attacker = await startAttacker({ url: server.url, slowKey, carrierId: ids[0], channel, limits });
  try {
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    let written = 0;
    const json = { 'content-type': 'application/json' };
    const request = () => {
      const draw = Math.random();
      if (draw < 0.8) return { method: 'GET', path: `/carriers/${pick()}` };
      written += 1;
      if (draw < 0.9) {
        const body = { legal_name: `Normal Carrier ${written}`, trade_name: `Normal ${written}`, logo_url: 'https://cdn.example.com/logo.png' };
        return { method: 'POST', path: '/carriers', body: JSON.stringify(body), headers: json };
      }
      return { method: 'PATCH', path: `/carriers/${pick()}`, body: JSON.stringify({ trade_name: `Renamed ${written}` }), headers: json };
    };
    // The first attack slice is the warm-up's when there is one: neither its stats nor its CPU count.
    let attackSlices = 0;
    let attackerCpu = 0;
    let attackerCpuBefore = 0;
    const measuredFrom = settings.warmup > 0 ? 1 : 0;
    const common = { url: server.url, pid: server.pid, request, headers: { authorization } };
    const targets = [
      { ...common, label: 'baseline' },
      {
        ...common,
        label: 'attack',
        before: async () => {
          if (attackSlices === measuredFrom) await attacker.call('reset');
          attackerCpuBefore = cpuSecondsOf(attacker.pid);
          await attacker.call('start');
          await sleep(LEAD_IN_MS);
        },
        after: async () => {
          await attacker.call('stop');
          if (attackSlices >= measuredFrom) attackerCpu += cpuSecondsOf(attacker.pid) - attackerCpuBefore;
          attackSlices += 1;
          await sleep(SETTLE_MS);
        },
      },
    ];
    log(
      `load: baseline and attack, ${settings.warmup > 0 ? `${settings.warmup} s warm-up each, then ` : ''}${settings.duration} s each at ` +
        `${NORMAL_CONNECTIONS} connections in ${settings.rounds} alternating rounds (each attack slice after a ${LEAD_IN_MS / 1000} s lead-in)`,
    );
    const measured = await measureAlternating(targets, { ...settings, connections: NORMAL_CONNECTIONS });
    const attack = await attacker.call('report');
    const failures = (m) => m.non_2xx + m.errors + m.timeouts;
    const keylessRequests = Object.values(attack.keyless).reduce((sum, tally) => sum + tally.requests, 0);
    const slowAnswered = (status) => Object.values(attack.slow).reduce((sum, tally) => sum + (tally.answered[status] ?? 0), 0);
    const figures = {
      ratio: round(measured.attack.rps / measured.baseline.rps, 3),
      normal_failures: failures(measured.baseline) + failures(measured.attack),
      // A request still unanswered when its slice ends is dropped uncounted: read the failures with this.
      normal_answered_attack: measured.attack.requests,
      p99_baseline_ms: measured.baseline.p99_ms,
      p99_attack_ms: measured.attack.p99_ms,
      keyless_rps: round(keylessRequests / attack.seconds, 0),
      keyless_mb_per_s: round(attack.bytes_sent / 1024 / 1024 / attack.seconds, 0),
      keyless_unexpected: Object.values(attack.keyless).reduce((sum, tally) => sum + tally.unexpected, 0),
      slow_cut_408: slowAnswered('408'),
      slow_closed_without_answer: Object.values(attack.slow).reduce((sum, tally) => sum + tally.closed_without_answer, 0),
      attacker_cpu_pct: round((100 * attackerCpu) / attack.seconds, 0),
      ...(await carrierChannelFigures(server.url, channel, attack)),
    };
    log(`load: ${JSON.stringify(figures)}`);
    return { measurements: { ...block.measurements, ...measured }, figures: { ...block.figures, ...figures }, attack };
  } finally {
    await attacker.stop();
  }
}

/** bench/hostile-attacker.js in its own process; call(type) sends a message and resolves with its answer. */
async function startAttacker({ url, slowKey, carrierId, channel, limits }) {
  const child = fork(join(PROJECT_ROOT, 'bench', 'hostile-attacker.js'), [], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      HOSTILE_URL: url,
      HOSTILE_KEYLESS: String(KEYLESS_CLIENTS),
      HOSTILE_SLOW: String(SLOW_SOCKETS),
      HOSTILE_SLOW_KEY: slowKey,
      HOSTILE_CARRIER_ID: carrierId,
      HOSTILE_BODY_LIMIT: String(limits.bodyLimit),
      HOSTILE_DOCUMENT_BODY_LIMIT: String(limits.documentBodyLimit),
      HOSTILE_CARRIER_CHANNEL: JSON.stringify(channel),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const { output, exited, stop } = superviseChild(child, 'attacker');
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        if (message.error) reject(new Error(`attacker ${type}: ${message.error}`));
        else resolve(message.result);
      };
      child.on('message', onMessage);
      void exited.then(({ code, signal }) =>
        reject(new Error(`the attacker exited (code ${code}, signal ${signal}) waiting for "${type}"\n${output().trim()}`)),
      );
    });
  await next('ready');
  return {
    pid: child.pid,
    call: (type) => {
      const answer = next(type);
      child.send({ type });
      return answer;
    },
    stop,
  };
}

// ---------------------------------------------------------------------------------------------------------
// the carrier channel: what the SSRF client and the acknowledgement spoofer need, and what they achieved

/**
 * Seeded before the server starts: SPOOFED_FILES edi groups of the normal clients' provider, each with
 * SPOOFED_FILE_MEMBERS members whose dental change waits for a file (SSNs encrypted with the server's key), and
 * another provider with an admin key and an edi group, as an attacker signs up.
 */
async function seedCarrierChannel(service, db, providerId, encryptionKey) {
  const { Encrypter } = await importDist('shared/crypto.js');
  const encrypter = new Encrypter(encryptionKey);
  const groups = [];
  for (let i = 0; i < SPOOFED_FILES; i++) {
    groups.push((await seedEdiGroup(service, db, providerId, SPOOFED_FILE_MEMBERS, SPOOFED_FILE_MEMBERS, encrypter)).group);
  }
  const apiKeys = new service.ApiKeyService(db, service.systemClock);
  const spoofer = await apiKeys.createKeyForProvider('bench', { role: 'admin', name: 'acknowledgement spoofer' });
  const prober = await apiKeys.createKeyForProvider('bench-ssrf', { role: 'admin', name: 'ssrf prober' });
  const { group: probeGroup } = await seedEmployerGroup(db, (kind) => service.newId(kind), {
    providerId: prober.provider,
    groupNumber: 'PROBE-1',
    connectionMethod: 'edi',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  return { groups, spoofKey: spoofer.key, ssrf: { key: prober.key, group: probeGroup } };
}

/**
 * Through the API: a download profile for each seeded group, its change file built and marked delivered. The
 * attacker's HOSTILE_CARRIER_CHANNEL.
 */
async function deliveredFiles(url, seeded) {
  const call = async (method, path, body, expected) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${seeded.spoofKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}, expected ${expected}: ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  const files = [];
  for (const group of seeded.groups) {
    await call('PUT', `/groups/${group}/edi_profile`, EDI_PROFILE, 200);
    const built = await call('POST', '/edi_files', { group, kind: 'change' }, 201);
    const delivered = await call('POST', `/edi_files/${built.id}/deliver`, undefined, 200);
    if (delivered.status !== 'delivered') throw new Error(`edi file ${built.id} is ${delivered.status} after deliver`);
    files.push({ id: built.id, group_control_number: built.group_control_number });
  }
  const profile = {
    sender: EDI_PROFILE.interchange_sender,
    receiver: EDI_PROFILE.interchange_receiver,
    applicationSender: EDI_PROFILE.application_sender_code,
    applicationReceiver: EDI_PROFILE.application_receiver_code,
  };
  return { ssrf: seeded.ssrf, acknowledgements: { key: seeded.spoofKey, files, profile } };
}

/**
 * After the attack: what the SSRF client got accepted, the files a spoofed 999 settled (read from the files
 * themselves, so that one settled in the warm-up counts too), and whether a 999 that is the file's still settles
 * one (the control: the spoofs differ from it in one element each).
 */
async function carrierChannelFigures(url, channel, attack) {
  const { key, files } = channel.acknowledgements;
  const headers = { authorization: `Bearer ${key}` };
  const statuses = [];
  for (const file of files) statuses.push((await getJson(`${url}/edi_files/${file.id}`, headers)).status);
  const settled = statuses.filter((status) => status !== 'delivered').length;
  let control = false;
  const unsettled = files[statuses.indexOf('delivered')];
  if (unsettled) {
    const response = await fetch(`${url}/edi_files/${unsettled.id}/acknowledgements`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ content: ack999(unsettled, channel.acknowledgements.profile) }),
      signal: AbortSignal.timeout(30_000),
    });
    await response.text();
    control = response.status === 200 && (await getJson(`${url}/edi_files/${unsettled.id}`, headers)).status === 'accepted';
  }
  return {
    ssrf_requests: attack.ssrf.requests,
    ssrf_accepted: attack.ssrf.failed,
    ack_spoof_requests: attack.ack_spoof.requests,
    ack_spoof_settled: settled,
    ack_control_settles: control,
  };
}

// ---------------------------------------------------------------------------------------------------------
// bodies: server CPU per request of the worst bodies

async function bodiesPhase({ server, ids, authorization, limits, log }) {
  const started = Date.now();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const idleBefore = cpuSecondsOf(server.pid);
    await sleep(2000);
    const idleCpuMsPerS = round(((cpuSecondsOf(server.pid) - idleBefore) * 1000) / 2, 1);

    const openapi = await getJson(`${server.url}/openapi.json`);
    // A seeded carrier on /carriers/{id}; elsewhere a well-formed id of nothing: the body is parsed and validated first.
    const idFor = (path) => (path.startsWith('/carriers/') ? ids[1] : MISSING_ID);
    const cases = bodyCases({ openapi, idFor, authorization, limits });
    log(
      `bodies: ${cases.length} cases over ${operationsWithJsonBodies(openapi).length} operations and refusals; each sent ${SCREEN_REPETITIONS} times after one unmeasured`,
    );
    const results = [];
    let makingMs = 0;
    for (const bodyCase of cases) {
      const making = performance.now();
      const text = bodyCase.make();
      makingMs += performance.now() - making;
      if (text === undefined) continue;
      const body = Buffer.from(text);
      results.push(Object.assign(bodyCase, { bytes: body.length }, await measureBody(agent, server, bodyCase, body, SCREEN_REPETITIONS)));
    }
    log(
      `bodies: screened ${results.length} cases in ${secondsSince(started)} s (${round(makingMs / 1000, 1)} s of it making bodies); measuring the costliest again`,
    );

    const groups = {
      worst_1mib: { members: results.filter((r) => r.group === 'body'), confirm: CONFIRM_CASES },
      worst_document: { members: results.filter((r) => r.group === 'document'), confirm: CONFIRM_CASES },
      refused: { members: results.filter((r) => r.group === 'refused'), confirm: Infinity },
    };
    const lists = {};
    for (const [label, { members, confirm }] of Object.entries(groups)) {
      const costliest = [...members].sort((a, b) => b.cpu_ms - a.cpu_ms).slice(0, confirm);
      for (const result of costliest) {
        const body = Buffer.from(result.make());
        const repetitions = Math.min(CONFIRM_MAX_REPETITIONS, Math.max(SCREEN_REPETITIONS, Math.ceil((CONFIRM_CPU_S * 1000) / Math.max(1, result.cpu_ms))));
        Object.assign(result, await measureBody(agent, server, result, body, repetitions));
      }
      const kept = label === 'refused' ? costliest : costliest.sort((a, b) => b.cpu_ms - a.cpu_ms).slice(0, REPORTED_CASES);
      lists[label] = kept.map(({ name: caseName, cpu_ms, status, bytes, response_bytes, repetitions }) => ({
        case: caseName,
        cpu_ms,
        status,
        bytes,
        response_bytes,
        repetitions,
      }));
    }
    const statuses = {};
    for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1;
    // A 5xx, or no answer at all: a bug whatever the body.
    const failures = results.filter((r) => !(Number(r.status) < 500));
    for (const result of failures) log(`bodies: ${result.name} answered ${result.status}`);
    const largest = results.reduce((most, r) => (r.response_bytes > (most?.response_bytes ?? -1) ? r : most), undefined);
    const summary = {
      seconds: secondsSince(started),
      idle_server_cpu_ms_per_s: idleCpuMsPerS,
      cases: results.length,
      statuses,
      ...lists,
      largest_response: largest ? { case: largest.name, status: largest.status, response_bytes: largest.response_bytes } : null,
      accepted: results.filter((r) => Number(r.status) < 300).map((r) => r.name),
      failures: failures.map((r) => ({ case: r.name, status: r.status })),
    };
    log(`bodies: worst 1 MiB ${JSON.stringify(lists.worst_1mib[0])}; worst document ${JSON.stringify(lists.worst_document[0])}`);
    return summary;
  } finally {
    agent.destroy();
  }
}

/**
 * One unmeasured request, then `repetitions` measured: the server's CPU per request in ms, and the status and
 * size of the last answer.
 */
async function measureBody(agent, server, bodyCase, body, repetitions) {
  let answer = await send(agent, server.url, bodyCase, body);
  const before = cpuSecondsOf(server.pid);
  for (let i = 0; i < repetitions; i++) answer = await send(agent, server.url, bodyCase, body);
  return { cpu_ms: round(((cpuSecondsOf(server.pid) - before) * 1000) / repetitions, 1), status: answer.status, response_bytes: answer.bytes, repetitions };
}

/** Sends the body and reads the whole answer: { status, bytes }; the status is "error CODE" when the connection failed. */
function send(agent, url, { method, path, authorization }, body) {
  const target = new URL(url);
  return new Promise((resolve) => {
    const failed = (error) => resolve({ status: `error ${error.code ?? error.message}`, bytes: 0 });
    const request = httpRequest(
      {
        host: target.hostname,
        port: Number(target.port),
        method,
        path,
        agent,
        timeout: BODY_REQUEST_TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': body.length, ...(authorization ? { authorization } : {}) },
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk) => {
          bytes += chunk.length;
        });
        response.on('end', () => resolve({ status: String(response.statusCode), bytes }));
        response.on('error', failed);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    request.on('error', failed);
    request.end(body);
  });
}

// ---------------------------------------------------------------------------------------------------------
// summary

/** Extra summary lines of one database's block (lib/report.js prints them after the measurements). */
export function detailLines(block) {
  const lines = [];
  if (block.attack) {
    const { keyless, slow, seconds } = block.attack;
    lines.push(`    attack: ${seconds} s in all (lead-ins included)`);
    for (const [kind, tally] of Object.entries(keyless)) {
      lines.push(
        `      keyless ${kind.padEnd(16)} ${tally.requests} requests, statuses ${pairs(tally.statuses)}${Object.keys(tally.errors).length ? `, errors ${pairs(tally.errors)}` : ''}`,
      );
    }
    for (const [kind, tally] of Object.entries(slow)) {
      lines.push(
        `      ${kind.padEnd(24)} opened ${tally.opened}, closed by the server ${tally.closed_by_server} (last answer ${pairs(tally.answered) || 'none'}; ` +
          `${tally.closed_without_answer} without one), lifetime p50 ${tally.lifetime_p50_ms} ms, max ${tally.lifetime_max_ms} ms`,
      );
    }
    for (const [label, tally] of [
      ['ssrf', block.attack.ssrf],
      ['999 spoofing', block.attack.ack_spoof],
    ]) {
      if (!tally) continue;
      lines.push(
        `      ${label.padEnd(24)} ${tally.requests} requests, statuses ${pairs(tally.statuses)}${Object.keys(tally.errors).length ? `, errors ${pairs(tally.errors)}` : ''}`,
      );
      for (const [failure, times] of Object.entries(tally.failures)) lines.push(`        ${label === 'ssrf' ? 'ACCEPTED' : 'SETTLED'} ${times}x: ${failure}`);
    }
  }
  if (block.body_cpu) {
    const body = block.body_cpu;
    lines.push(`    bodies: ${body.cases} cases in ${body.seconds} s, statuses ${pairs(body.statuses)}; idle server ${body.idle_server_cpu_ms_per_s} ms CPU/s`);
    for (const [label, list] of [
      ['worst 1 MiB', body.worst_1mib],
      ['worst document', body.worst_document],
      ['refused', body.refused],
    ]) {
      for (const entry of list) {
        lines.push(
          `      ${label.padEnd(15)} ${String(entry.cpu_ms).padStart(7)} ms  ${entry.status}  ${entry.case} (${entry.bytes} bytes; answer ${entry.response_bytes} bytes)`,
        );
      }
    }
    if (body.largest_response)
      lines.push(`      largest answer: ${body.largest_response.response_bytes} bytes, ${body.largest_response.status}, ${body.largest_response.case}`);
    if (body.accepted.length > 0) lines.push(`      accepted (2xx): ${body.accepted.join('; ')}`);
    for (const failure of body.failures) lines.push(`      FAILED (${failure.status}): ${failure.case}`);
  }
  return lines;
}

function pairs(object) {
  return Object.entries(object)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}
