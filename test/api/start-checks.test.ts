import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { runCli, killServe, startServe, type ServerProcess } from '../helpers/cli.ts';

const KEY_A = 'ab'.repeat(32);
const KEY_B = 'cd'.repeat(32);
const KEY_LINE = /First admin API key \(shown once; store it now\): (bk_live_[0-9A-Za-z]+)/;

// Each test runs the command several times, each a process of its own: slow on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

let database: TestDatabase;
let server: ServerProcess | undefined;
let blocker: Server | undefined;

beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterEach(async () => {
  await killServe(server);
  server = undefined;
  if (blocker) await new Promise<void>((resolve) => blocker!.close(() => resolve()));
  blocker = undefined;
  await database.destroy();
});

/** One line, naming what to fix, and no stack trace. */
function expectOneLine(stderr: string, ...names: string[]): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^benefits: /);
  for (const name of names) expect(lines[0]).toContain(name);
  expect(stderr).not.toMatch(/^\s+at /m);
}

async function stop(running: ServerProcess): Promise<void> {
  running.child.kill('SIGTERM');
  expect(await running.exited).toBe(0);
}

describe('the encryption key check', () => {
  it('when a start brings another BENEFITS_ENCRYPTION_KEY than the first, then it refuses in one line and writes nothing', async () => {
    server = await startServe({ DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A });
    const key = KEY_LINE.exec(server.output())![1]!;
    await stop(server);

    const refused = await runCli(['serve'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_B, PORT: '0' });
    expect(refused.code).toBe(1);
    expectOneLine(refused.stderr, 'BENEFITS_ENCRYPTION_KEY');
    expect(refused.stdout).not.toMatch(/bk_live_/);
    const demo = await runCli(['demo'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_B });
    expect(demo.code).toBe(1);
    expectOneLine(demo.stderr, 'BENEFITS_ENCRYPTION_KEY');

    // The first key still opens it, and the refused starts left no provider behind.
    server = await startServe({ DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A });
    expect((await fetch(`${server.url}/employers`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await runCli(['providers', 'list'], { DATABASE_URL: database.url })).stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('when a database from before the check holds SSNs, then a wrong key is refused and the right one is recorded', async () => {
    // A database with encrypted SSNs and no fingerprint: the demo's, with the fingerprint row removed.
    expect((await runCli(['demo'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A })).code).toBe(0);
    await database.db.deleteFrom('encryption_key_fingerprints').execute();

    const refused = await runCli(['serve'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_B, PORT: '0' });
    expect(refused.code).toBe(1);
    expectOneLine(refused.stderr, 'BENEFITS_ENCRYPTION_KEY');
    expect(await database.db.selectFrom('encryption_key_fingerprints').selectAll().execute()).toHaveLength(0);

    server = await startServe({ DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A });
    const stored = await database.db.selectFrom('encryption_key_fingerprints').selectAll().execute();
    expect(stored).toHaveLength(1);
    // The fingerprint tells nothing of the key.
    expect(stored[0]!.fingerprint).not.toContain(KEY_A.slice(0, 16));
  });
});

describe('the first admin key', () => {
  it.runIf(testDatabaseKind() === 'postgres')(
    'when the first start fails for want of a key, then the next, correct start prints the first admin key',
    async () => {
      const refused = await runCli(['serve'], { DATABASE_URL: database.url, PORT: '0' });
      expect(refused.code).toBe(1);
      expectOneLine(refused.stderr, 'BENEFITS_ENCRYPTION_KEY is required with PostgreSQL');
      expect(refused.stdout).not.toMatch(/bk_live_/);

      server = await startServe({ DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A });
      const key = KEY_LINE.exec(server.output())?.[1];
      expect(key).toBeTruthy();
      expect((await fetch(`${server.url}/employers`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    },
  );

  it('when the first start finds its port in use, then it says so in one line naming PORT, and the next start prints the first admin key', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const refused = await runCli(['serve'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A, PORT: String(port), HOST: '127.0.0.1' });
    expect(refused.code).toBe(1);
    expectOneLine(refused.stderr, `PORT ${port} is in use`);
    expect(refused.stdout).not.toMatch(/bk_live_/);

    server = await startServe({ DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: KEY_A });
    expect(KEY_LINE.exec(server.output())?.[1]).toBeTruthy();
  });
});

describe('a database that cannot be used', () => {
  it.runIf(testDatabaseKind() === 'postgres')('when PostgreSQL does not answer or the database does not exist, then one line names DATABASE_URL', async () => {
    const unreachable = await runCli(['serve'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/benefits', BENEFITS_ENCRYPTION_KEY: KEY_A });
    expect(unreachable.code).toBe(1);
    expectOneLine(unreachable.stderr, 'cannot reach PostgreSQL at postgres://127.0.0.1:1/benefits', 'DATABASE_URL');

    const missing = new URL(database.url);
    missing.pathname = '/benefits_no_such_database';
    for (const command of [['serve'], ['migrate'], ['api-keys', 'list']]) {
      const result = await runCli(command, { DATABASE_URL: missing.toString(), BENEFITS_ENCRYPTION_KEY: KEY_A });
      expect(result.code, command.join(' ')).toBe(1);
      expectOneLine(result.stderr, 'database "benefits_no_such_database" does not exist', 'DATABASE_URL');
    }
  });

  it.runIf(testDatabaseKind() === 'sqlite')('when the SQLite data directory is read-only, then one line names DATABASE_URL', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'benefits-read-only-'));
    chmodSync(directory, 0o555);
    // As root, permissions do not bind: the command runs as "nobody", as an unprivileged service user would.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    try {
      for (const url of [`sqlite:${directory}/benefits.db`, `sqlite:${directory}/data/benefits.db`]) {
        const result = await runCli(['serve'], { DATABASE_URL: url, PORT: '0' }, user);
        expect(result.code, url).toBe(1);
        expectOneLine(result.stderr, directory, 'DATABASE_URL');
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
