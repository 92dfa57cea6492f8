import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// An operator's install, as README "Deploying" tells it: the packed tarball installed without the dev
// dependencies, and a clone installed with `npm ci --omit=dev`; each must run `npx benefits serve` without
// TypeScript. Slow (npm itself; a build when dist/ is out of date): tagged `install`, so
// `npx vitest run --tags-filter='!install'` leaves it out. It packs the project in place (prepack builds dist/
// when the sources changed), so it runs in one project only: the installed server uses SQLite either way.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE_24 = dirname(process.execPath);
const runsHere = process.env.BENEFITS_TEST_DATABASE !== 'postgres';

let work: string;
let packedFiles: string[];
let app: string;
let clone: string;

/** npm, with the project's Node 24 first on the PATH (as an operator's machine would have it). */
async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await promisify(execFile)('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, PATH: `${NODE_24}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The packed tarball installed without the dev dependencies in an empty project. */
async function installTarball(): Promise<void> {
  const [packed] = JSON.parse(await npm(['pack', '--json', '--pack-destination', work], ROOT)) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed!.files.map((file) => file.path);
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'operator', private: true }));
  await npm(['install', '--omit=dev', '--prefer-offline', join(work, packed!.filename)], app);
}

/** A clone (the files git would check out: tracked, and new ones not ignored; no dist/) and `npm ci --omit=dev`. */
async function installClone(): Promise<void> {
  clone = join(work, 'clone');
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of tracked.split('\0').filter(Boolean)) {
    if (existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(clone, file), { recursive: true });
  }
  // Before, prepare ran the client generator and tsc here, which --omit=dev leaves out: the install failed.
  await npm(['ci', '--omit=dev', '--prefer-offline'], clone);
}

beforeAll(async () => {
  if (!runsHere) return;
  work = mkdtempSync(join(tmpdir(), 'benefits-install-'));
  // Both at once: most of the time is npm unpacking the same dependencies from its cache.
  await Promise.all([installTarball(), installClone()]);
}, 600_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `npx benefits serve` in a directory, on a SQLite database in it; resolves with its URL once it listens. */
function serve(cwd: string): Promise<{ url: string; stop: () => Promise<number | null>; output: () => string }> {
  const child = spawn('npx', ['--no', 'benefits', 'serve'], {
    cwd,
    detached: true, // its own process group: npx and the server it starts are stopped together
    env: {
      PATH: `${NODE_24}${delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? cwd,
      DATABASE_URL: `sqlite:${join(cwd, 'data', 'benefits.db')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      npm_config_update_notifier: 'false',
    },
  });
  let output = '';
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`benefits serve did not start:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      // The first admin key is printed once the server listens, before "benefits service ready".
      if (match && output.includes('benefits service ready')) {
        clearTimeout(timer);
        resolve({ url: match[1]!, stop, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`benefits serve exited with ${code}:\n${output}`));
    });
  });
}

async function expectServes(directory: string): Promise<void> {
  const server = await serve(directory);
  try {
    const key = /First admin API key \(shown once; store it now\): (bk_live_[0-9A-Za-z]+)/.exec(server.output())?.[1];
    expect(key, server.output()).toBeTruthy();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/employers`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  } finally {
    // npx is stopped with the server (their process group): its exit says nothing of the server's shutdown.
    await server.stop();
  }
}

describe.runIf(runsHere)('production install', { tags: ['install'] }, () => {
  it('when the packed tarball is installed without dev dependencies, then `npx benefits serve` runs its prebuilt dist without TypeScript', async () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['bin/benefits.js', 'dist/cli.js', 'dist/index.js', 'dist/client/index.js', 'LICENSE', 'CHANGELOG.md']));
    expect(packedFiles.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
    expect(existsSync(join(app, 'node_modules', 'benefits-enrollment-service', 'dist', 'cli.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'openapi-typescript'))).toBe(false);

    await expectServes(app);
  });

  it('when dist/ is up to date (as npm pack left it), then the build before `npm start` does nothing', () => {
    const built = statSync(join(ROOT, 'dist', 'cli.js')).mtimeMs;
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-tools', '--if-stale'], { cwd: ROOT, stdio: 'pipe' });
    expect(statSync(join(ROOT, 'dist', 'cli.js')).mtimeMs).toBe(built);
  });

  it('when a clone is installed with `npm ci --omit=dev`, then the install succeeds without building and `npx benefits serve` runs the sources', async () => {
    expect(existsSync(join(clone, 'node_modules', 'fastify'))).toBe(true);
    expect(existsSync(join(clone, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(clone, 'dist'))).toBe(false);

    await expectServes(clone);
  });
});
