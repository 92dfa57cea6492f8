// The pieces a scenario is made of: start a server process, check that it answers correctly, load it, stop
// it; then compare the service with its ceiling and check the targets.

import { measureAlternating } from './load.js';
import { startNodeServer, round } from './processes.js';
import { startService } from './service.js';

export { startService };

/** The bare Fastify ceiling server (bench/ceiling.js) with the named route modules, on the given database. */
export function startCeiling({ routes, databaseEnv }) {
  return startNodeServer({
    label: 'ceiling',
    script: 'bench/ceiling.js',
    env: { ...databaseEnv, CEILING_ROUTES: routes.join(',') },
  });
}

/**
 * Starts every target's server with `start()`, checks it with `verify(url)` (which throws when an answer is
 * wrong), measures them all in alternating rounds (see lib/load.js) with `path()` and `headers`, and stops
 * them, whatever happens. Targets are { label, start, verify, path, headers }; returns { [label]: measurement }.
 */
export async function benchServers(targets, { settings, log }) {
  const running = [];
  try {
    for (const target of targets) {
      log(`${target.label}: starting`);
      const server = await target.start();
      running.push({ ...target, server, url: server.url, pid: server.pid });
      await target.verify(server.url);
    }
    log(
      `${targets.map((t) => t.label).join(' and ')}: ${settings.warmup > 0 ? `${settings.warmup} s warm-up each, then ` : ''}` +
        `${settings.duration} s each at ${settings.connections} connections, in ${settings.rounds} alternating rounds`,
    );
    return await measureAlternating(running, settings);
  } catch (error) {
    for (const { label, server } of running) appendOutput(error, label, server);
    throw error;
  } finally {
    for (const { server } of running) await server.stop();
  }
}

/**
 * One server under several kinds of request: starts it with `start()`, lets `prepare(url)` check it and return
 * the variants to load ({ label, path(), headers }; e.g. a first page and a page a thousand pages deep, whose
 * cursor only the running server can hand out), measures the variants in alternating rounds (lib/load.js)
 * and stops the server, whatever happens. Returns { [variant label]: measurement }; memory figures are the
 * one process's, so every variant reports the same RSS and peak.
 */
export async function benchVariants({ label = 'service', start, prepare }, { settings, log }) {
  log(`${label}: starting`);
  const server = await start();
  try {
    const variants = await prepare(server.url);
    log(
      `${label}: ${variants.map((v) => v.label).join(' and ')}: ${settings.warmup > 0 ? `${settings.warmup} s warm-up each, then ` : ''}` +
        `${settings.duration} s each at ${settings.connections} connections, in ${settings.rounds} alternating rounds`,
    );
    return await measureAlternating(
      variants.map((variant) => ({ ...variant, url: server.url, pid: server.pid })),
      settings,
    );
  } catch (error) {
    appendOutput(error, label, server);
    throw error;
  } finally {
    await server.stop();
  }
}

function appendOutput(error, label, server) {
  const output = server.output().trim();
  if (output) error.message += `\n--- ${label} output (tail) ---\n${output}`;
}

/**
 * Runs `work(kind)` for every database kind and collects the results by kind. A failure on one database is
 * recorded there as { error } (and logged in full) without losing the others.
 */
export async function forEachDatabase(kinds, log, work) {
  const results = {};
  for (const kind of kinds) {
    try {
      results[kind] = await work(kind);
    } catch (error) {
      log(`[${kind}] FAILED: ${error.stack ?? error}`);
      results[kind] = { error: firstLine(error) };
    }
  }
  return results;
}

/** The first line of an error's message: what goes into the JSON result. */
export function firstLine(error) {
  return String(error?.message ?? error).split('\n', 1)[0];
}

/** GETs a path and returns the parsed JSON body, throwing unless the status is the expected one. */
export async function getJson(url, headers = {}, expectedStatus = 200) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== expectedStatus) {
    throw new Error(`GET ${new URL(url).pathname} answered ${response.status}, expected ${expectedStatus}: ${text.slice(0, 500)}`);
  }
  return JSON.parse(text);
}

/**
 * The service/ceiling comparison of one database: both measurements, the throughput ratio, and the targets
 * (each `name: predicate(service, ratio)`) with whether they were met.
 */
export function compare({ service, ceiling, targets }) {
  const ratio = round(service.rps / ceiling.rps, 3);
  const result = { service, ceiling, ratio };
  if (targets) {
    result.targets = Object.fromEntries(Object.entries(targets).map(([name, met]) => [name, Boolean(met(service, ratio))]));
  }
  return result;
}
