// Child processes under test: the real service and the bare ceiling servers. Each runs in its own process so
// that its memory can be read from /proc and it never shares an event loop with the load generator.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOST = '127.0.0.1';
const OUTPUT_TAIL = 8000;
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A TCP port that is free on 127.0.0.1 right now. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node ...nodeArgs <script> ...args` with the given extra environment, listening on a fresh port, and waits until
 * `readyPath` answers 2xx. Returns { pid, url, output(), stop() }; the child is killed at cleanup whatever happens.
 */
export async function startNodeServer({ label, script, args = [], nodeArgs = [], env = {}, readyPath = '/healthz', startTimeoutMs = 60_000 }) {
  const port = await freePort();
  const child = spawn(process.execPath, [...profileArguments(label), ...nodeArgs, join(PROJECT_ROOT, script), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, exited, stop } = superviseChild(child, label);

  const url = `http://${HOST}:${port}`;
  try {
    await waitUntilReady(url + readyPath, exited, startTimeoutMs);
  } catch (error) {
    await stop();
    throw new Error(`${label} did not start: ${error.message}\n--- ${label} output ---\n${output.trim()}`, { cause: error });
  }
  return { pid: child.pid, url, output, stop };
}

/**
 * Keeps the tail of a child process's output and stops it at cleanup whatever happens (SIGTERM, then SIGKILL
 * after 10 s; SIGKILL when the bench itself is interrupted). Returns { output(), exited, stop() }.
 */
export function superviseChild(child, label) {
  let output = '';
  const collect = (chunk) => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const stop = onCleanup(
    `stop ${label} (pid ${child.pid})`,
    async () => {
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    () => {
      if (running) child.kill('SIGKILL');
    },
  );
  return { output: () => output, exited, stop };
}

/**
 * With BENCH_PROFILE=DIR, every server process runs under --cpu-prof and leaves a .cpuprofile in DIR/<label>/
 * when it stops (open it in Chrome DevTools, or summarize it with `node bench/profile-summary.js FILE`).
 */
function profileArguments(label) {
  const directory = process.env.BENCH_PROFILE?.trim();
  return directory ? ['--cpu-prof', `--cpu-prof-dir=${resolve(directory, label)}`] : [];
}

async function waitUntilReady(url, exited, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let exit;
  void exited.then((value) => {
    exit = value;
  });
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (exit) throw new Error(`it exited (code ${exit.code}, signal ${exit.signal})`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = String(error.cause?.code ?? error.message);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms (${lastError})`);
}

/** Resident memory of a process, from /proc: current (VmRSS) and peak (VmHWM), in MB. */
export function memoryOf(pid) {
  const status = readProc(`/proc/${pid}/status`);
  const kilobytes = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss_mb: round(kilobytes('VmRSS') / 1024, 1), peak_rss_mb: round(kilobytes('VmHWM') / 1024, 1) };
}

/** CPU time (user + system) a process has used so far, in seconds. */
export function cpuSecondsOf(pid) {
  const stat = readProc(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** A /proc file's text; empty where there is no /proc (not Linux), so that the numbers read from it are NaN (null in JSON). */
export function readProc(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function round(value, digits = 2) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Runs `work` and times it: { value, seconds } (to the millisecond). */
export async function timed(work) {
  const started = performance.now();
  const value = await work();
  return { value, seconds: round((performance.now() - started) / 1000, 3) };
}
