// The benchmark runner: `npm run bench` (builds, then runs every scenario) or `node bench/run.js [scenario ...]`.
// Progress goes to stderr; stdout gets a summary per scenario and, last, one JSON line with every result.
//
// Environment:
//   BENCH_DURATION     seconds of measured load per server (default 10)
//   BENCH_CONNECTIONS  concurrent connections (default 50)
//   BENCH_WARMUP       seconds of unmeasured load before each measurement (default 2; 0 for none)
//   BENCH_ROUNDS       the measured seconds are cut into this many slices alternating between the servers (default 5)
//   BENCH_DATABASES    e.g. "sqlite" to skip PostgreSQL (default: sqlite, and postgres when DATABASE_URL is one)
//   BENCH_CARRIERS     carriers seeded by carriers-get (default 100000)
//   BENCH_DEPTH_PAGES  how deep beneficiaries-depth's deep page is (default 1000)
//   BENCH_NOTIFICATIONS         notifications seeded by notifications-filter (default 1000000)
//   BENCH_NOTIFICATION_OBJECTS  their related objects (default: one per 10 notifications)
//   BENCH_PAYROLL_MEMBERS  members seeded by payroll (default 50000)
//   BENCH_OE_MEMBERS   members seeded by open-enrollment-scale (default 50000, half enrolled)
//   BENCH_OE_TYPE      passive: open-enrollment-scale completes a passive window (idle members carried over)
//   BENCH_OE_KEEP_SQLITE=FILE  open-enrollment-scale keeps a copy of its SQLite database as the sweep finds it
//   BENCH_ENROLLMENT_MODES     enrollment-approvals' runs: flow, phased, two_processes (default all three)
//   BENCH_BILL_LINES   lines of premium-bill's bill and members of its group (default 50000)
//   BENCH_WEBHOOK_EVENTS   events per phase of webhooks-delivery (default 10000)
//   BENCH_WEBHOOK_CLIENTS  clients creating carriers in its live phase (default 20)
//   BENCH_HOSTILE_PHASES   hostile-clients' phases: load, bodies or both (default load,bodies)
//   BENCH_STRICT=1     exit 1 when a target is missed (errors always exit 1)
//   BENCH_MACHINE_CEILING=0  skip measuring the machine ceiling first (lib/machine.js; figures relative to it are then left out)
//   BENCH_PROFILE=DIR  run every server under --cpu-prof; profiles land in DIR/service/, DIR/ceiling/ (see bench/profile-summary.js)
//   DATABASE_URL       postgres://... adds the PostgreSQL runs (each in a fresh schema, dropped afterwards)

import { cleanupAll } from './lib/cleanup.js';
import { benchDatabaseKinds } from './lib/databases.js';
import { loadSettings } from './lib/load.js';
import { firstLine } from './lib/bench.js';
import { measureMachineCeilings } from './lib/machine.js';
import { errorsIn, missedTargets, relativeFigures, summarize } from './lib/report.js';
import { loadService } from './lib/service.js';
import { SCENARIOS } from './scenarios/index.js';

const USAGE = `Usage: node bench/run.js [scenario ...]   (no scenario: all of them)
Scenarios:
${SCENARIOS.map((s) => `  ${s.name.padEnd(20)}${s.description}`).join('\n')}
`;

async function main(argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const selected = selectScenarios(argv);
  const settings = loadSettings();
  const kinds = benchDatabaseKinds();
  const service = await loadService();
  const log = (line) => process.stderr.write(`bench: ${line}\n`);
  log(`databases: ${kinds.join(', ')}; ${settings.duration} s at ${settings.connections} connections per server`);

  // The machine's speed, once per database, so that every figure can also be read relative to it.
  let machine = {};
  if (process.env.BENCH_MACHINE_CEILING !== '0') {
    try {
      // SQLite's always: it is the machine's speed, against which PostgreSQL's rate targets are stated too.
      machine = await measureMachineCeilings({ service, settings, kinds: [...new Set(['sqlite', ...kinds])], log });
    } finally {
      await cleanupAll();
    }
  }
  const results = {};
  for (const scenario of selected) {
    log(`${scenario.name}: ${scenario.description}`);
    try {
      results[scenario.key] = await scenario.run({ service, settings, kinds, log: (line) => log(`${scenario.name} ${line}`) });
    } catch (error) {
      results[scenario.key] = { error: firstLine(error) };
      log(`${scenario.name} FAILED: ${error.stack ?? error}`);
    } finally {
      await cleanupAll();
    }
    attachRelativeFigures(results[scenario.key], machine, scenario.relativeTargets);
    process.stdout.write(`${summarize(scenario, results[scenario.key]).join('\n')}\n`);
  }

  const missed = Object.entries(results).flatMap(([key, result]) => missedTargets(key, result));
  if (missed.length > 0) log(`missed: ${missed.join(', ')}`);
  const errors = Object.entries(results).flatMap(([key, result]) => errorsIn(key, result));
  if (errors.length > 0) log(`failed: ${errors.join(', ')}`);
  process.stdout.write(`${JSON.stringify(results)}\n`);
  if (errors.length > 0) return 1;
  return missed.length > 0 && process.env.BENCH_STRICT === '1' ? 1 : 0;
}

/**
 * Adds to every database block of a result the machine ceiling of its database and the figures relative to it;
 * where the scenario states targets relative to a ceiling (`relativeTargets`: { [kind]: [{ name, figure,
 * atLeast | atMost, ceiling, replaces, timesCeiling }] }), checks them against that ceiling of this run in place of the
 * absolute target each replaces. Without the ceiling (BENCH_MACHINE_CEILING=0) the absolute targets stand.
 */
function attachRelativeFigures(result, machine, relativeTargets = {}) {
  for (const [kind, block] of Object.entries(result ?? {})) {
    if (!block || typeof block !== 'object' || block.error || machine[kind] === undefined) continue;
    block.machine_ceiling_rps = machine[kind];
    block.relative = relativeFigures(block, machine[kind]);
    for (const target of relativeTargets[kind] ?? []) {
      const ceiling = machine[target.ceiling ?? kind];
      // A figure by name, or a dotted path into the block's timings (e.g. 'live.deliveries_per_s').
      const value = target.figure.includes('.') ? target.figure.split('.').reduce((at, part) => at?.[part], block.timings) : block.figures?.[target.figure];
      if (ceiling === undefined || typeof value !== 'number' || !block.targets) continue;
      // Only where the block states the target it replaces (a scenario run below its target's scale states none).
      if (target.replaces !== undefined && !(target.replaces in block.targets)) continue;
      // A rate per 1,000 ceiling req/s; a duration (`timesCeiling`) in seconds times the ceiling in thousands.
      const relative = target.timesCeiling ? value * (ceiling / 1000) : value / (ceiling / 1000);
      delete block.targets[target.replaces];
      block.targets[target.name] = target.atLeast !== undefined ? relative >= target.atLeast : relative <= target.atMost;
      if ((target.ceiling ?? kind) !== kind) block.relative[`${target.figure}_per_kceil(${target.ceiling})`] = Math.round(relative * 100) / 100;
    }
  }
}

function selectScenarios(names) {
  if (names.length === 0) return SCENARIOS;
  return names.map((name) => {
    const scenario = SCENARIOS.find((s) => s.name === name || s.key === name);
    if (!scenario) throw Object.assign(new Error(`unknown scenario "${name}"\n${USAGE}`), { usage: true });
    return scenario;
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error.usage ? error.message : (error.stack ?? error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanupAll();
}
