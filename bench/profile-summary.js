// Summarizes a V8 .cpuprofile (from BENCH_PROFILE=DIR npm run bench, or node --cpu-prof): where the busy time
// went, by package or dist/ file (self time), and the functions with the most self and inclusive time.
//
//   node bench/profile-summary.js FILE.cpuprofile [--top N]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
if (positionals.length !== 1) {
  console.error('Usage: node bench/profile-summary.js FILE.cpuprofile [--top N]');
  process.exit(1);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

const IDLE = new Set(['(idle)', '(program)', '(root)']);
const self = new Map();
const inclusive = new Map();
const byArea = new Map();
let busy = 0;
let idle = 0;

for (let i = 0; i < profile.samples.length; i++) {
  const delta = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
  const leaf = nodes.get(profile.samples[i]);
  if (leaf.callFrame.functionName === '(idle)') {
    idle += delta;
    continue;
  }
  busy += delta;
  add(self, label(leaf), delta);
  add(byArea, area(leaf.callFrame), delta);
  const seen = new Set();
  for (let id = leaf.id; id !== undefined; id = parents.get(id)) {
    const name = label(nodes.get(id));
    if (IDLE.has(nodes.get(id).callFrame.functionName) || seen.has(name)) continue;
    seen.add(name);
    add(inclusive, name, delta);
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`profile: ${seconds((profile.endTime - profile.startTime) / 1000)} wall, ${seconds(busy)} busy, ${seconds(idle)} idle`);
print('self time by package / file', byArea);
print('self time by function', self);
print('inclusive time by function', inclusive);

function print(title, map) {
  console.log(`\n${title} (% of busy time):`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
}

function add(map, key, value) {
  map.set(key, (map.get(key) ?? 0) + value);
}

function label(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${shorten(url)}${url ? `:${lineNumber + 1}` : ''}`;
}

function area({ functionName, url }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  const dist = /\/(dist\/.*)$/.exec(url);
  return dist ? dist[1] : shorten(url);
}

function shorten(url) {
  return url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '~/')
    .replace(/^.*\/(dist|bench)\//, '$1/');
}
