// The attack of the hostile-clients scenario, in a process of its own so that its CPU is neither the load
// generator's nor the server's. Started by the scenario (fork, with an IPC channel) with HOSTILE_* settings in
// the environment; it sends { type: 'ready' }, then answers each message with one of the same type (with
// `result`, or `error`):
//
//   start   starts HOSTILE_KEYLESS closed-loop clients sending the worst bodies without a valid key
//           (lib/hostile-bodies.js attackBodies) to unknown paths and real write routes, and HOSTILE_SLOW sockets
//           that trickle: half send their headers one byte a second, half send complete headers with
//           Content-Length: 100000 and then one body byte a second (half of those with HOSTILE_SLOW_KEY, a valid
//           key, so that the server waits for the body). A socket the server closes is opened again at once
//           (after 100 ms when closed without an answer). Answers once every slow socket is connected.
//           With HOSTILE_CARRIER_CHANNEL (JSON, see carrierChannel below) also two clients with valid admin keys,
//           each paced to one request per CARRIER_CHANNEL_PACE_MS (they test what the service accepts, not its
//           throughput): an SSRF client that saves EDI profiles whose SFTP host is an internal address (or whose
//           port is neither 22 nor 2222) and webhook endpoints whose URL points inside (any 2xx is a failure;
//           an accepted endpoint is deleted at once); and an acknowledgement spoofer that posts 999s that are
//           not for a delivered file (another transaction set, another receiver or sender, another application
//           code, its group control number coerced: +1, 1.0, 0x1, 1e0; a rejected set with another ST02) and
//           reads the file after any 2xx (settling it is a failure).
//   stop    stops everything (closes every socket).
//   reset   forgets what happened so far (after the warm-up), but for the carrier channel clients' tallies.
//   report  what happened since the last reset, over every start/stop: seconds running; per kind of keyless
//           request the answers by status (`unexpected`: not 401/404/408) and errors by code; per kind of slow
//           socket how many were opened, answered (by the status of the last answer: 408 is the server cutting
//           it), closed without an answer, and how long they lived from connect to close (p50, max); and the
//           carrier-channel clients' requests, statuses, what was accepted (SSRF) and what settled a file (999s).

import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ACK_SPOOFS, ack999, ssrfRequests } from './lib/carrier-channel.js';
import { attackBodies } from './lib/hostile-bodies.js';

const url = new URL(process.env.HOSTILE_URL);
const host = url.hostname;
const port = Number(url.port);
const keylessClients = Number(process.env.HOSTILE_KEYLESS);
const slowSockets = Number(process.env.HOSTILE_SLOW);
const slowKey = process.env.HOSTILE_SLOW_KEY;
const carrierId = process.env.HOSTILE_CARRIER_ID;
const TRICKLE_MS = 1000;
const RETRY_SILENT_CLOSE_MS = 100;
const SLOW_CONTENT_LENGTH = 100_000;
const REQUEST_TIMEOUT_MS = 60_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * { ssrf: { key, group }, acknowledgements: { key, files: [{ id, group_control_number }], profile } }: an admin
 * key of another provider and an edi group of it, an admin key of the files' provider, the delivered files and
 * the profile they were sent under (its ISA and GS ids).
 */
const carrierChannel = process.env.HOSTILE_CARRIER_CHANNEL ? JSON.parse(process.env.HOSTILE_CARRIER_CHANNEL) : undefined;
const CARRIER_CHANNEL_PACE_MS = 50;

const { bodies, documentBody } = attackBodies({
  limit: Number(process.env.HOSTILE_BODY_LIMIT),
  documentLimit: Number(process.env.HOSTILE_DOCUMENT_BODY_LIMIT),
});

/** A well-formed key that no provider holds: the server has to look it up. */
function unknownKey() {
  return `bk_live_${Array.from(randomBytes(52), (byte) => BASE62[byte % 62]).join('')}`;
}

/** The rotation every keyless client walks through, each client from its own starting point. */
const ROTATION = [
  ...bodies.flatMap((body) => [
    { kind: 'unknown_route', method: 'POST', path: '/nope', body, authorization: () => undefined },
    { kind: 'no_key', method: 'POST', path: '/carriers', body, authorization: () => undefined },
    { kind: 'unknown_key', method: 'POST', path: '/members', body, authorization: () => `Bearer ${unknownKey()}` },
    { kind: 'malformed_key', method: 'PATCH', path: `/carriers/${carrierId}`, body, authorization: () => `Bearer ${'x'.repeat(200)}` },
  ]),
  { kind: 'no_key_document', method: 'POST', path: '/documents', body: documentBody, authorization: () => undefined },
];
// 408: a body the server could not drain within its request timeout (it is busy, or the attack is that fast).
const EXPECTED_STATUSES = new Set([401, 404, 408]);
const encoded = new Map([...bodies, documentBody].map((body) => [body, Buffer.from(body.text)]));

let running = false;
let startedAt = 0;
let stats = freshStats();
let keylessLoops = [];
let carrierChannelLoops = [];
const agents = [];
const openSockets = new Set();
let trickleTimer;

function freshStats() {
  // failures: how often each case was accepted (SSRF) or settled a file (999s), by case.
  const client = () => ({ requests: 0, statuses: {}, errors: {}, failed: 0, failures: {} });
  return { seconds: 0, keyless: {}, slow: {}, bytes_sent: 0, ssrf: client(), ack_spoof: client() };
}

function count(object, key, by = 1) {
  object[key] = (object[key] ?? 0) + by;
}

function keylessStats(kind) {
  stats.keyless[kind] ??= { requests: 0, statuses: {}, unexpected: 0, errors: {} };
  return stats.keyless[kind];
}

async function keylessLoop(index) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  for (let step = index * 5; running; step++) {
    const target = ROTATION[step % ROTATION.length];
    const tally = keylessStats(target.kind);
    try {
      const status = await send(agent, target);
      if (!running) break;
      tally.requests += 1;
      count(tally.statuses, status);
      if (!EXPECTED_STATUSES.has(status)) tally.unexpected += 1;
      stats.bytes_sent += encoded.get(target.body).length;
    } catch (error) {
      if (!running) break;
      count(tally.errors, error.code ?? error.message);
    }
  }
}

function send(agent, target) {
  const body = encoded.get(target.body);
  const authorization = target.authorization();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host,
        port,
        method: target.method,
        path: target.path,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': body.length, ...(authorization ? { authorization } : {}) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })));
    request.on('error', reject);
    request.end(body);
  });
}

// ---------------------------------------------------------------------------------------------------------
// The carrier channel: connections where a tenant points, acknowledgements that are not for the file

/** One JSON request with an admin key: { status, body }. */
async function jsonRequest(key, method, path, body) {
  const response = await fetch(`${url.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed };
}

/** Runs `step()` over and over while running, one call per CARRIER_CHANNEL_PACE_MS at most. */
async function pacedLoop(tally, step) {
  while (running) {
    const started = Date.now();
    try {
      await step();
    } catch (error) {
      if (!running) break;
      count(tally.errors, error.cause?.code ?? error.code ?? error.name);
    }
    const rest = CARRIER_CHANNEL_PACE_MS - (Date.now() - started);
    if (rest > 0 && running) await new Promise((resolve) => setTimeout(resolve, rest));
  }
}

// Where each client is in its rotation, kept over every start and stop, so that every case is sent.
let ssrfNext = 0;
let ackSpoofNext = 0;

async function ssrfLoop() {
  const { key, group } = carrierChannel.ssrf;
  const requests = ssrfRequests(group);
  await pacedLoop(stats.ssrf, async () => {
    const target = requests[ssrfNext++ % requests.length];
    const answer = await jsonRequest(key, target.method, target.path, target.body);
    if (!running) return;
    const tally = stats.ssrf;
    tally.requests += 1;
    count(tally.statuses, answer.status);
    if (answer.status >= 200 && answer.status < 300) {
      tally.failed += 1;
      count(tally.failures, `${target.name}: ${answer.status}`);
      // An endpoint pointing inside must not receive this provider's events.
      if (answer.body?.id) await jsonRequest(key, 'DELETE', `/webhook_endpoints/${answer.body.id}`);
    }
  });
}

async function ackSpoofLoop() {
  const { key, files, profile } = carrierChannel.acknowledgements;
  const spoofs = Object.entries(ACK_SPOOFS);
  await pacedLoop(stats.ack_spoof, async () => {
    const step = ackSpoofNext++;
    const file = files[step % files.length];
    const [name, spoof] = spoofs[Math.floor(step / files.length) % spoofs.length];
    const answer = await jsonRequest(key, 'POST', `/edi_files/${file.id}/acknowledgements`, { content: ack999(file, profile, spoof(file)) });
    if (!running) return;
    const tally = stats.ack_spoof;
    tally.requests += 1;
    count(tally.statuses, answer.status);
    if (answer.status >= 200 && answer.status < 300) {
      // Stored as unmatched is fine; settling the file is not.
      const read = await jsonRequest(key, 'GET', `/edi_files/${file.id}`);
      if (read.body?.status !== 'delivered') {
        tally.failed += 1;
        count(tally.failures, `${name} (group control number ${file.group_control_number}): ${read.body?.status}`);
      }
    }
  });
}

const SLOW_KINDS = ['slow_headers', 'slow_body_no_key', 'slow_body_valid_key'];

function slowKindOf(index) {
  if (index % 2 === 0) return 'slow_headers';
  return slowKey && index % 4 === 3 ? 'slow_body_valid_key' : 'slow_body_no_key';
}

function slowStats(kind) {
  stats.slow[kind] ??= { opened: 0, answered: {}, closed_without_answer: 0, errors: {}, lifetimes_ms: [] };
  return stats.slow[kind];
}

/** Opens one slow socket of its kind; resolves once connected. When the server closes it, opens another. */
function openSlow(kind) {
  return new Promise((resolve) => {
    const tally = slowStats(kind);
    const opened = Date.now();
    let received = '';
    const socket = connect(port, host, () => {
      tally.opened += 1;
      if (kind === 'slow_headers') {
        socket.write(`GET /carriers HTTP/1.1\r\nHost: ${host}:${port}\r\nX-Slow: `);
      } else {
        const authorization = kind === 'slow_body_valid_key' ? `Authorization: Bearer ${slowKey}\r\n` : '';
        socket.write(
          `POST /carriers HTTP/1.1\r\nHost: ${host}:${port}\r\n${authorization}Content-Type: application/json\r\nContent-Length: ${SLOW_CONTENT_LENGTH}\r\n\r\n`,
        );
      }
      resolve();
    });
    openSockets.add(socket);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', (error) => {
      if (running) count(tally.errors, error.code ?? error.message);
      resolve();
    });
    socket.on('close', () => {
      openSockets.delete(socket);
      if (!running) return;
      const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
      // The last answer is the one that closed the socket (a keyless body first gets its 401, then the 408).
      if (statuses.length > 0) count(tally.answered, statuses.at(-1));
      else tally.closed_without_answer += 1;
      tally.lifetimes_ms.push(Date.now() - opened);
      // Closed without a word (e.g. over the server's connection cap): not again at once, or this would spin.
      setTimeout(
        () => {
          if (running) void openSlow(kind);
        },
        statuses.length > 0 ? 0 : RETRY_SILENT_CLOSE_MS,
      );
    });
  });
}

function trickle() {
  for (const socket of openSockets) {
    if (socket.writable && !socket.connecting) socket.write('a');
  }
}

async function start() {
  running = true;
  startedAt = Date.now();
  await Promise.all(Array.from({ length: slowSockets }, (_, index) => openSlow(slowKindOf(index))));
  trickleTimer = setInterval(trickle, TRICKLE_MS);
  keylessLoops = Array.from({ length: keylessClients }, (_, index) => keylessLoop(index));
  if (carrierChannel) carrierChannelLoops = [ssrfLoop(), ackSpoofLoop()];
}

async function stop() {
  running = false;
  stats.seconds += (Date.now() - startedAt) / 1000;
  clearInterval(trickleTimer);
  for (const socket of openSockets) socket.destroy();
  for (const agent of agents.splice(0)) agent.destroy();
  await Promise.allSettled([...keylessLoops, ...carrierChannelLoops]);
}

function report() {
  const slow = Object.fromEntries(
    SLOW_KINDS.filter((kind) => stats.slow[kind]).map((kind) => {
      const { lifetimes_ms: lifetimes, ...rest } = stats.slow[kind];
      const sorted = [...lifetimes].sort((a, b) => a - b);
      return [
        kind,
        { ...rest, closed_by_server: sorted.length, lifetime_p50_ms: sorted[Math.floor(sorted.length / 2)] ?? null, lifetime_max_ms: sorted.at(-1) ?? null },
      ];
    }),
  );
  return {
    seconds: Math.round(stats.seconds * 10) / 10,
    keyless: stats.keyless,
    slow,
    bytes_sent: stats.bytes_sent,
    ...(carrierChannel ? { ssrf: stats.ssrf, ack_spoof: stats.ack_spoof } : {}),
  };
}

const HANDLERS = {
  start,
  stop,
  reset: async () => {
    // The carrier channel clients count what was accepted, which matters in the warm-up too.
    const { ssrf, ack_spoof: ackSpoof } = stats;
    stats = { ...freshStats(), ssrf, ack_spoof: ackSpoof };
  },
  report: async () => report(),
};

process.on('message', (message) => {
  const handler = HANDLERS[message.type];
  if (!handler) return;
  handler().then(
    (result) => process.send({ type: message.type, result }),
    (error) => process.send({ type: message.type, error: String(error?.stack ?? error) }),
  );
});
process.send({ type: 'ready' });
