// Runs one daily sweep against DATABASE_URL for the day given as the first argument, in a process of its own,
// and prints {"ms", "max_rss_mb", "summary"} as one JSON line: what open-enrollment-scale reports as "sweep".
import { performance } from 'node:perf_hooks';
import { memoryOf } from './lib/processes.js';
import { importDist } from './lib/service.js';

const day = process.argv[2];
// The heap `benefits sweep` runs with (HEAP_SEMI_SPACE_MB, HEAP_GROWING_PERCENT): this may run the process again.
const problem = (await importDist('heap.js')).applyHeapSettings(['sweep']);
if (problem !== undefined) throw new Error(problem);
// What `benefits sweep` loads: the command line's modules and the background compositions, not the HTTP app.
const [, { buildDailySweep }, { openDatabase }, { systemClock }] = await Promise.all([
  importDist('cli.js'),
  importDist('background.js'),
  importDist('db/database.js'),
  importDist('shared/clock.js'),
]);
const database = openDatabase(process.env.DATABASE_URL);
try {
  const started = performance.now();
  const summary = await buildDailySweep({ db: database.db, clock: systemClock }).run(day);
  const ms = performance.now() - started;
  // VmHWM, the peak of this process's own memory: getrusage's maxRSS also counts the parent's resident memory
  // at the fork (Linux keeps it across exec), so after the bench process had seeded 1,000,000 notifications it
  // reported that, not the sweep.
  process.stdout.write(`${JSON.stringify({ ms: Math.round(ms), max_rss_mb: memoryOf(process.pid).peak_rss_mb, summary })}\n`);
} finally {
  await database.close();
}
