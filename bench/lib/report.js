// The human-readable summary of a scenario's result. The JSON line at the end carries the same numbers.

/** CPU (in % of one core) taken by other processes above which the summary warns that numbers are noisy. */
const BUSY_MACHINE_PCT = 25;

/**
 * Summary lines of a scenario result, one block per database kind. A block is either a service/ceiling
 * comparison (lib/bench.js compare()) or { data, measurements: { [label]: measurement }, figures, targets }:
 * `data` (what was seeded, how long it took) and `figures` (ratios and the like) are flat name/value objects.
 * A scenario may export `detailLines(block)`: more lines for such a block (what does not fit name=value pairs).
 */
export function summarize(scenario, result) {
  const lines = [`${scenario.name}: ${scenario.description}`];
  if (result.error) {
    lines.push(`  FAILED: ${result.error}`);
    return lines;
  }
  if (result.settings) lines.push(`  ${pairs(result.settings)}`);
  for (const [kind, block] of Object.entries(result)) {
    if (block?.error) {
      lines.push(`  ${kind}`, `    FAILED: ${block.error}`);
      continue;
    }
    if (!block || typeof block !== 'object') continue;
    const relative =
      block.relative && Object.keys(block.relative).length > 0
        ? [`    relative to this run's machine ceiling (${block.machine_ceiling_rps} req/s): ${pairs(block.relative)}`]
        : [];
    if (block.service && block.ceiling) {
      lines.push(`  ${kind}`, ...comparisonLines(block), ...relative);
    } else if (block.measurements) {
      lines.push(`  ${kind}`, ...measurementLines(block), ...(scenario.detailLines?.(block) ?? []), ...relative);
    } else if (block.timings) {
      lines.push(`  ${kind}`, ...(block.data ? [`    ${pairs(block.data)}`] : []));
      for (const [label, timing] of Object.entries(block.timings)) lines.push(`    ${label.padEnd(24)}${pairs(timing)}`);
      if (block.targets) lines.push(`   ${targetsText(block.targets)}`);
      lines.push(...relative);
      continue;
    } else {
      continue;
    }
    const busiest = Math.max(...Object.values(measurementsOf(block)).map((m) => m.other_cpu_pct));
    if (busiest >= BUSY_MACHINE_PCT) {
      const database = kind === 'postgres' ? ' (PostgreSQL itself included)' : '';
      lines.push(
        `    note: other processes${database} took up to ${busiest}% of a core during the measurement; absolute numbers are noisy, ratios and us/req less so`,
      );
    }
  }
  return lines;
}

/**
 * A block's figures relative to the run's machine ceiling (lib/machine.js, req/s): every rate (`rps`, `*_per_s`)
 * per 1,000 ceiling req/s (`..._per_kceil`), every duration in seconds (`seconds`, `*_s`) times the ceiling in
 * thousands of req/s (`..._x_kceil`). A machine twice as fast doubles the first and leaves both the same.
 */
export function relativeFigures(block, ceilingRps) {
  const thousands = ceilingRps / 1000;
  const relative = {};
  const visit = (prefix, object) => {
    for (const [name, value] of Object.entries(object ?? {})) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      if (name === 'rps' || name.endsWith('_per_s')) relative[`${prefix}${name}_per_kceil`] = Math.round((value / thousands) * 100) / 100;
      else if (name === 'seconds' || (name.endsWith('_s') && name !== 'duration_s' && name !== 'warmup_s'))
        relative[`${prefix}${name}_x_kceil`] = Math.round(value * thousands * 100) / 100;
    }
  };
  visit('', block.figures);
  for (const [label, timing] of Object.entries(block.timings ?? {})) visit(`${label}.`, timing);
  for (const [label, m] of Object.entries(measurementsOf(block))) visit(`${label}.`, { rps: m.rps });
  return relative;
}

function comparisonLines(comparison) {
  const lines = [`    service  ${measurement(comparison.service)}`, `    ceiling  ${measurement(comparison.ceiling)}`];
  lines.push(`    ratio service/ceiling ${comparison.ratio.toFixed(3)}${targetsText(comparison.targets)}`);
  return lines;
}

function measurementLines(block) {
  const lines = [];
  if (block.data) lines.push(`    ${pairs(block.data)}`);
  const labels = Object.keys(block.measurements);
  const width = Math.max(...labels.map((label) => label.length)) + 2;
  for (const label of labels) lines.push(`    ${label.padEnd(width)}${measurement(block.measurements[label])}`);
  if (block.figures || block.targets) lines.push(`    ${block.figures ? pairs(block.figures) : ''}${targetsText(block.targets)}`);
  return lines;
}

function targetsText(targets) {
  return targets
    ? `  targets: ${Object.entries(targets)
        .map(([name, met]) => `${name} ${met ? 'met' : 'MISSED'}`)
        .join(', ')}`
    : '';
}

function pairs(object) {
  return Object.entries(object)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
}

/** The measurements of a block: service and ceiling of a comparison, or its `measurements`. */
function measurementsOf(block) {
  if (block?.measurements) return block.measurements;
  return Object.fromEntries(['service', 'ceiling'].filter((label) => block?.[label]).map((label) => [label, block[label]]));
}

function measurement(m) {
  return [
    `${String(m.rps).padStart(6)} req/s`,
    `p50 ${m.p50_ms.toFixed(2)} ms`,
    `p99 ${m.p99_ms.toFixed(2)} ms`,
    `max ${m.max_ms.toFixed(1)} ms`,
    `RSS ${m.rss_mb} MB (peak ${m.peak_rss_mb})`,
    `non-2xx ${m.non_2xx}, errors ${m.errors}, timeouts ${m.timeouts}`,
    `cpu: server ${m.server_cpu_pct}% (${m.server_cpu_us_per_req} us/req), load generator ${m.client_cpu_pct}%, rest of machine ${m.other_cpu_pct}%`,
  ].join('  ');
}

/** Every target of every comparison in a result that was missed, as "scenario.kind.target". */
export function missedTargets(key, result) {
  const missed = [];
  for (const [kind, comparison] of Object.entries(result ?? {})) {
    for (const [name, met] of Object.entries(comparison?.targets ?? {})) {
      if (!met) missed.push(`${key}.${kind}.${name}`);
    }
    for (const [label, m] of Object.entries(measurementsOf(comparison))) {
      if (m?.non_2xx > 0) missed.push(`${key}.${kind}.${label}.non_2xx==0`);
    }
  }
  return missed;
}

/** Where a result records a failure: "scenario" or "scenario.kind". */
export function errorsIn(key, result) {
  if (result?.error) return [key];
  return Object.entries(result ?? {})
    .filter(([, value]) => value?.error)
    .map(([kind]) => `${key}.${kind}`);
}
