// Runs the plan-year simulation (test/simulation/plan-year.ts) against DATABASE_URL in a process of its own, so
// that its peak RSS is the simulation's (the in-process server, the story's driver and the invariant checks), and
// prints one JSON line: { days, seconds, per_day, counts, violations, peak_rss_mb }. Node 24 runs the TypeScript
// sources directly (type stripping); the bench of plan-year is the only scenario that does, because the
// simulation it shares with the test suite is written against them.
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/db/database.ts';
import { applyHeapSettings } from '../src/heap.ts';
import { createTestAppOn, DEVELOPMENT_OUTBOUND_ENV } from '../test/helpers/test-app-core.ts';
import { createInvariantChecker } from '../test/simulation/invariants.ts';
import { runPlanYear } from '../test/simulation/plan-year.ts';
import { memoryOf } from './lib/processes.js';

// The heap `benefits serve` runs with (HEAP_SEMI_SPACE_MB, HEAP_GROWING_PERCENT): this may run the process again.
const problem = applyHeapSettings(['serve']);
if (problem !== undefined) throw new Error(problem);
const settings = JSON.parse(process.env.PLAN_YEAR_SETTINGS);
// Where the peak RSS is: the JavaScript heap (the server's, the driver's and the checks' objects, and what V8 has
// committed for them), memory V8 knows of outside it (buffers), or neither (SQLite, the allocator, threads).
const peaks = { heapUsed: 0, heapTotal: 0, external: 0 };
setInterval(() => {
  const usage = process.memoryUsage();
  for (const field of Object.keys(peaks)) peaks[field] = Math.max(peaks[field], usage[field]);
}, 1000).unref();
const handle = openDatabase(process.env.DATABASE_URL);
const database = { ...handle, url: process.env.DATABASE_URL, destroy: () => handle.close() };
// Requests are not logged one by one (the test app keeps its log lines in memory); the SFTP server is local.
const context = await createTestAppOn(database, { now: `${settings.start}T12:00:00.000Z`, env: { ...DEVELOPMENT_OUTBOUND_ENV, LOG_LEVEL: 'warn' } });
try {
  const checker = settings.check ? createInvariantChecker({ db: context.database.db, api: context.admin, providerId: context.providerId }) : undefined;
  let checkMs = 0;
  const started = performance.now();
  const result = await runPlanYear({
    context,
    seed: settings.seed,
    employers: settings.employers,
    membersPerEmployer: settings.members_per_employer,
    start: settings.start,
    days: settings.days,
    checkDay: checker
      ? async (day, files) => {
          const at = performance.now();
          const found = await checker.checkDay(day, files);
          checkMs += performance.now() - at;
          return found;
        }
      : undefined,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({ seconds, check_seconds: checkMs / 1000, peak_rss_mb: memoryOf(process.pid).peak_rss_mb, peak_heap_used_mb: mb(peaks.heapUsed), peak_heap_total_mb: mb(peaks.heapTotal), peak_external_mb: mb(peaks.external), ...result })}\n`,
  );
} finally {
  await context.close();
}

function mb(bytes) {
  return Math.round(bytes / 2 ** 20);
}
