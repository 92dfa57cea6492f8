import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// The container image (Dockerfile) and the compose file an operator runs. The first tests read the files; the
// last builds the image and runs it on the test PostgreSQL where a container engine (podman) can run here,
// and is skipped, saying why, where none can (README "Deploying" says what was run). It runs in the postgres
// project only: compose runs the service on PostgreSQL, and one build at a time is enough.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(new URL('Dockerfile', `file://${ROOT}`), 'utf8');
const compose = readFileSync(new URL('compose.yaml', `file://${ROOT}`), 'utf8');
const IMAGE = 'localhost/benefits-enrollment-service:test';
// Base images, in the order tried: the official one when it is here (or can be pulled), else the stand-in
// scripts/container-base.sh makes from a debootstrap Debian root.
const BASES = [process.env.BENEFITS_CONTAINER_BASE, 'docker.io/library/node:24-slim', 'localhost/benefits-node:24-slim'].filter((base): base is string =>
  Boolean(base),
);
// How podman is asked to run containers, in the order tried: as configured; with runc (crun refuses a hybrid
// cgroup hierarchy) and limits no higher than the host's (without CAP_SYS_RESOURCE, raising them fails).
const ENGINE_FLAGS = [[], ['--runtime', 'runc'], ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs']];
const RUN_FLAGS = ['--ulimit', 'nofile=1024:4096', '--ulimit', 'nproc=1024:4096'];

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

describe('container files', () => {
  it('when the Dockerfile is read, then it builds in one stage and runs the production install as a non-root user with a health check', () => {
    const instructions = lines(dockerfile);
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    expect(stages).toEqual(['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE}']);
    expect(instructions).toContain('ARG NODE_IMAGE=docker.io/library/node:24-slim');
    const runtime = instructions.slice(instructions.indexOf('FROM ${NODE_IMAGE}'));
    expect(runtime.some((line) => /^RUN npm ci --omit=dev\b/.test(line))).toBe(true);
    expect(runtime.some((line) => line.startsWith('COPY --from=build /app/dist '))).toBe(true);
    expect(runtime.filter((line) => line.startsWith('COPY ') && /\bsrc\b/.test(line))).toEqual([]);
    const user = runtime.findIndex((line) => line.startsWith('USER '));
    expect(runtime[user]).toBe('USER node');
    expect(runtime.findIndex((line) => line.startsWith('CMD '))).toBeGreaterThan(user);
    expect(runtime.some((line) => line.startsWith('HEALTHCHECK ') && dockerfile.includes('/healthz'))).toBe(true);
  });

  it('when compose.yaml is read, then it runs the service on PostgreSQL with a key it refuses to start without', () => {
    const services = /^services:\n((?: {2}.*\n|\n)+)/m.exec(compose)?.[1] ?? '';
    const names = [...services.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]);
    expect(names).toEqual(['benefits', 'postgres']);
    expect(compose).toMatch(/^ {6}DATABASE_URL: postgres:\/\/benefits:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/benefits$/m);
    expect(compose).toMatch(/^ {6}BENEFITS_ENCRYPTION_KEY: \$\{BENEFITS_ENCRYPTION_KEY:\?[^}]*openssl rand -hex 32[^}]*\}$/m);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
    expect(compose).toMatch(/healthcheck:\n\s+test: \['CMD-SHELL', 'pg_isready/);
    // No tab, which YAML refuses for indentation.
    expect(compose).not.toContain('\t');
  });
});

/** podman's global flags that run a container here, and the base image to build on; or why not. */
function findEngine(): { flags: string[]; base: string } | string {
  try {
    execFileSync('podman', ['--version'], { stdio: 'pipe' });
  } catch {
    return 'no podman on the PATH';
  }
  const problems: string[] = [];
  for (const base of BASES) {
    const present = ENGINE_FLAGS.some((flags) => {
      try {
        execFileSync('podman', [...flags, 'image', 'exists', base], { stdio: 'pipe' });
        return true;
      } catch {
        return false;
      }
    });
    if (!present) {
      try {
        execFileSync('podman', ['pull', '--quiet', base], { stdio: 'pipe', timeout: 60_000 });
      } catch {
        problems.push(`${base}: not here and cannot be pulled`);
        continue;
      }
    }
    for (const flags of ENGINE_FLAGS) {
      try {
        execFileSync('podman', [...flags, 'run', '--rm', ...RUN_FLAGS, base, 'node', '-e', '0'], { stdio: 'pipe', timeout: 60_000 });
        return { flags, base };
      } catch (error) {
        problems.push(`podman ${flags.join(' ')} run ${base}: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
      }
    }
  }
  return problems.join('; ');
}

const engine = testDatabaseKind() === 'postgres' ? findEngine() : 'runs in the postgres project';
let database: TestDatabase | undefined;
let container: string | undefined;
afterAll(async () => {
  if (container && typeof engine !== 'string') {
    try {
      execFileSync('podman', [...engine.flags, 'rm', '--force', container], { stdio: 'pipe' });
    } catch {
      // already gone
    }
  }
  await database?.destroy();
});

describe('container image', { tags: ['container'] }, () => {
  it('when built and run on PostgreSQL, then it serves /healthz as a non-root user without TypeScript, and its health check passes', async (context) => {
    if (typeof engine === 'string') {
      context.skip(`no container engine can run here: ${engine}`);
      return;
    }
    const podman = async (...args: string[]) =>
      (await promisify(execFile)('podman', [...engine.flags, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

    // --network host for npm's registry during the build, and for the test PostgreSQL on 127.0.0.1 at run;
    // this machine's extra CA (a TLS-inspecting proxy's), when it has one, for npm during the build only.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    const caFlags =
      extraCa && existsSync(extraCa) ? ['--volume', `${extraCa}:/run/build-ca.crt:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca.crt'] : [];
    await podman('build', '--format', 'docker', '--network', 'host', ...RUN_FLAGS, ...caFlags, '--build-arg', `NODE_IMAGE=${engine.base}`, '-t', IMAGE, '.');
    const size = Number(await podman('image', 'inspect', '--format', '{{.Size}}', IMAGE));
    console.info(`container image ${IMAGE} on ${engine.base}: ${(size / 1e6).toFixed(0)} MB`);

    database = await createTestDatabase({ migrate: false });
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    container = await podman(
      'run',
      '--detach',
      '--network',
      'host',
      ...RUN_FLAGS,
      '--env',
      `DATABASE_URL=${database.url}`,
      '--env',
      `BENEFITS_ENCRYPTION_KEY=${'cd'.repeat(32)}`,
      '--env',
      `PORT=${port}`,
      '--env',
      'HOST=127.0.0.1',
      IMAGE,
    );
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status, { timeout: 60_000, interval: 500 })
      .toBe(200);
    const log = await podman('logs', container);
    const key = /First admin API key \(shown once; store it now\): (bk_live_[0-9A-Za-z]+)/.exec(log)?.[1];
    expect(key, log).toBeTruthy();
    expect((await fetch(`http://127.0.0.1:${port}/employers`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    expect(await podman('exec', container, 'id', '-u')).toBe('1000');
    expect(await podman('exec', container, 'node', '-e', 'try { require.resolve("typescript"); console.log("found") } catch { console.log("absent") }')).toBe(
      'absent',
    );
    // The image's HEALTHCHECK, run now rather than on its 30 s timer.
    await podman('healthcheck', 'run', container);
  });
});
