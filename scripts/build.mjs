// Builds dist/ (the client's types from the OpenAPI document, then tsc) for npm scripts:
//   node scripts/build.mjs                       always (npm run build)
//   node scripts/build.mjs --if-stale            only when the sources changed since dist/ was built (prepack)
//   node scripts/build.mjs --if-tools --if-stale also: skip, without failing, when the dev tools are not
//                                                installed (prepare and prestart: `npm ci --omit=dev`)
// dist/.build-stamp holds a hash of every input, so an unchanged checkout starts without the ~10 s rebuild.
// Without dist/, bin/benefits.js runs the TypeScript sources (Node 24 strips the types), so a clone installed
// without the dev tools still runs: docs/decisions.md, "Production install and container".
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUT_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'scripts/client-types.mjs', 'scripts/generated.mjs'];
// Made by the build itself: hashing it would make every build stale the next time.
const GENERATED = new Set(['src/client/api.ts']);
const DEV_TOOLS = ['typescript', 'openapi-typescript'];

/** A hash of every file the build reads (paths and contents), in a stable order. */
function inputsHash() {
  const hash = createHash('sha256');
  const sources = readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
  const files = [...INPUT_FILES, ...sources.filter((file) => !GENERATED.has(file))].sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function missingDevTools() {
  return DEV_TOOLS.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const flags = new Set(process.argv.slice(2));
const hash = inputsHash();
const built = existsSync(join(ROOT, 'dist', 'cli.js')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;
if (flags.has('--if-stale') && built) process.exit(0);

const missing = missingDevTools();
if (missing.length > 0) {
  if (flags.has('--if-tools')) {
    console.error(
      `benefits: dist/ not built (${missing.join(' and ')} not installed: the dev dependencies were omitted). ` +
        'bin/benefits.js runs the TypeScript sources instead; install without --omit=dev to build.',
    );
    process.exit(0);
  }
  console.error(`benefits: cannot build: ${missing.join(' and ')} not installed (run "npm install" without --omit=dev).`);
  process.exit(1);
}

run(join(ROOT, 'scripts', 'client-types.mjs'), []);
// From scratch: files of deleted sources must not linger in the package.
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
run(join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', 'tsconfig.build.json']);
writeFileSync(STAMP, `${hash}\n`);
