// Drives HTTP targets with autocannon and measures them: throughput, exact latency percentiles (from every
// response, not autocannon's whole-millisecond histogram), status counts, the CPU used by the server process
// and by this (load-generating) process, and how much CPU the rest of the machine took meanwhile.
//
// The load of each target is cut into rounds that alternate between the targets (service, ceiling, service,
// ceiling, ...), so that a slow drift in what else the machine is doing hits both alike and the ratio holds.

import autocannon from 'autocannon';
import { cpuSecondsOf, memoryOf, readProc, round } from './processes.js';

export const DEFAULT_DURATION_S = 10;
export const DEFAULT_CONNECTIONS = 50;
export const DEFAULT_WARMUP_S = 2;
export const DEFAULT_ROUNDS = 5;
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The load settings of this run: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_ROUNDS override the defaults. */
export function loadSettings(env = process.env) {
  return {
    duration: positiveNumber(env, 'BENCH_DURATION', DEFAULT_DURATION_S),
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', DEFAULT_CONNECTIONS),
    warmup: positiveNumber(env, 'BENCH_WARMUP', DEFAULT_WARMUP_S, true),
    rounds: positiveInteger(env, 'BENCH_ROUNDS', DEFAULT_ROUNDS),
  };
}

/**
 * Measures running servers. `targets` are { label, url, pid, path(), headers }. Each is warmed up (results
 * discarded), then loaded for `duration` seconds in all at `connections` connections, in `rounds` slices that
 * alternate between the targets. Returns { [label]: measurement }.
 *
 * Optional per target: `request()` returns { method, path, body, headers } for each request, in place of a GET
 * of `path()` (every answer must still be 2xx); `before()` and `after()` run around each of its slices, the
 * warm-up included, outside the measured time (e.g. to start and stop something that runs beside the load).
 */
export async function measureAlternating(targets, settings) {
  if (settings.warmup > 0) {
    for (const target of targets) await driveSlice(target, settings.warmup, settings.connections, new Tally());
  }
  const tallies = new Map(targets.map((target) => [target, new Tally()]));
  const slice = settings.duration / settings.rounds;
  for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex++) {
    for (const target of targets) await driveSlice(target, slice, settings.connections, tallies.get(target));
  }
  return Object.fromEntries(targets.map((target) => [target.label, tallies.get(target).result(target.pid)]));
}

async function driveSlice(target, duration, connections, tally) {
  await target.before?.();
  try {
    await drive(target, duration, connections, tally);
  } finally {
    await target.after?.();
  }
}

/** What the slices of one target add up to. */
class Tally {
  ok = 0;
  non2xx = 0;
  errors = 0;
  timeouts = 0;
  statusCodes = {};
  latencies = new LatencyRecorder();
  seconds = 0;
  serverCpu = 0;
  clientCpu = 0;
  machineBusy = 0;

  result(pid) {
    const sorted = this.latencies.sorted();
    const seconds = this.seconds;
    const percent = (cpuSeconds) => round((100 * cpuSeconds) / seconds, 0);
    return {
      rps: round(this.ok / seconds, 0),
      p50_ms: round(percentile(sorted, 0.5), 2),
      p99_ms: round(percentile(sorted, 0.99), 2),
      max_ms: round(percentile(sorted, 1), 2),
      ...memoryOf(pid),
      requests: this.ok + this.non2xx,
      non_2xx: this.non2xx,
      errors: this.errors,
      timeouts: this.timeouts,
      status_codes: this.statusCodes,
      server_cpu_pct: percent(this.serverCpu),
      // The server's CPU time per request: what the code costs, whatever else the machine was doing.
      server_cpu_us_per_req: round((1e6 * this.serverCpu) / Math.max(1, this.ok + this.non2xx), 0),
      client_cpu_pct: percent(this.clientCpu),
      // CPU the rest of the machine used meanwhile (other processes, kernel work not charged to ours), in % of one core.
      other_cpu_pct: Math.max(0, percent(this.machineBusy - this.serverCpu - this.clientCpu)),
    };
  }
}

/** One autocannon run against a target, added to its tally. */
async function drive(target, duration, connections, tally) {
  const serverCpuBefore = cpuSecondsOf(target.pid);
  const clientCpuBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections,
        duration,
        pipelining: 1,
        timeout: 10,
        headers: target.headers,
        requests: [
          {
            method: 'GET',
            setupRequest(request) {
              if (!target.request) {
                request.path = target.path();
                return request;
              }
              const { method = 'GET', path, body, headers } = target.request();
              Object.assign(request, { method, path }, body === undefined ? {} : { body });
              if (headers) request.headers = { ...request.headers, ...headers };
              return request;
            },
          },
        ],
      },
      (error, value) => (error ? reject(error) : resolve(value)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) tally.latencies.add(responseTime);
    });
  });
  const clientCpu = process.cpuUsage(clientCpuBefore);
  tally.serverCpu += cpuSecondsOf(target.pid) - serverCpuBefore;
  tally.clientCpu += (clientCpu.user + clientCpu.system) / 1e6;
  tally.machineBusy += machineBusySeconds() - machineBefore;
  tally.ok += result['2xx'];
  tally.non2xx += result.non2xx;
  tally.errors += result.errors;
  tally.timeouts += result.timeouts;
  tally.seconds += result.duration;
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) tally.statusCodes[code] = (tally.statusCodes[code] ?? 0) + count;
}

/** CPU time all cores of the machine spent on anything but idling, in seconds. */
function machineBusySeconds() {
  const line = readProc('/proc/stat').split('\n', 1)[0];
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
}

class LatencyRecorder {
  #values = new Float64Array(1 << 16);
  #length = 0;
  add(value) {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
  }
  sorted() {
    return this.#values.slice(0, this.#length).sort();
  }
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
function percentile(sorted, fraction) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1];
}

function positiveNumber(env, name, fallback, allowZero = false) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

function positiveInteger(env, name, fallback) {
  const value = positiveNumber(env, name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number (got "${value}")`);
  return value;
}
