import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { runCli, killServe, startServe, type ServerProcess } from '../helpers/cli.ts';

// PostgreSQL deployments must bring their own key; SQLite ones get a key file.
const keyEnv: Record<string, string> = testDatabaseKind() === 'postgres' ? { BENEFITS_ENCRYPTION_KEY: 'ab'.repeat(32) } : {};

// Each test runs the command several times, each a process of its own: slow on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

let database: TestDatabase;
let server: ServerProcess | undefined;

beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterEach(async () => {
  await killServe(server);
  server = undefined;
  await database.destroy();
});

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('benefits command line', () => {
  it.each([
    [['serve', '--prot', '18409'], "unknown option '--prot'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['api-keys', 'list', '--all'], "unknown option '--all'"],
    [['api-keys', 'frob'], 'frob'],
    [['migrate', 'now'], 'too many arguments'],
    [['serve', '--port', 'eighty'], "'eighty' is invalid"],
  ])('when %j is not understood, then it exits 2 with one line saying why', async (args, why) => {
    const result = await runCli(args, { DATABASE_URL: database.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(why);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('when --version is asked, then it prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { DATABASE_URL: database.url });
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it('when --help is asked, then commands and variables are listed in one aligned column, every description apart from its name', async () => {
    const help = (await runCli(['--help'], { DATABASE_URL: database.url })).stdout;
    const items = help.split('\n').filter((line) => /^ {2}\S/.test(line) && !line.startsWith('  -'));
    expect(items.length).toBeGreaterThan(25);
    const columns = new Set(items.map((line) => /^ {2}\S.*?\s{2,}(?=\S)/.exec(line)?.[0].length));
    expect([...columns]).toHaveLength(1);
    expect(help).toMatch(/^ {2}providers\s+list the providers/m);
    expect(help).toMatch(/^ {2}demo\s+load a small sandbox/m);
    expect(help).toMatch(/^ {2}BENEFITS_ENCRYPTION_KEY\s{2,}32-byte key/m);
  });

  it('when serve is given --port and --host, then it listens there, whatever PORT and HOST say', async () => {
    const port = await freePort();
    server = await startServe({ DATABASE_URL: database.url, PORT: '1', HOST: '0.0.0.0', ...keyEnv }, ['--port', String(port), '--host', '127.0.0.1']);
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('when a key is asked for a provider that does not exist, then it is refused unless --new-provider; providers and keys list with a header row', async () => {
    const env = { DATABASE_URL: database.url };
    const first = await runCli(['api-keys', 'create', '--provider', 'default', '--role', 'admin', '--new-provider'], env);
    expect(first.code).toBe(0);
    const typo = await runCli(['api-keys', 'create', '--provider', 'defualt', '--role', 'admin'], env);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('no provider named "defualt" (providers: "default"); add --new-provider to create it');
    expect(typo.stdout).not.toMatch(/bk_live_/);
    const existing = await runCli(['api-keys', 'create', '--provider', 'default', '--role', 'read_only'], env);
    expect(existing.code).toBe(0);
    const made = await runCli(['api-keys', 'create', '--provider', 'Acme Benefits', '--role', 'admin', '--new-provider'], env);
    expect(made.code).toBe(0);

    const providers = (await runCli(['providers', 'list'], env)).stdout.trimEnd().split('\n');
    expect(providers[0]).toMatch(/^ID\s+NAME\s+CREATED\s+ACTIVE KEYS$/);
    expect(providers.slice(1).map((line) => line.split(/\s{2,}/)[1])).toEqual(['default', 'Acme Benefits']);
    expect(providers.slice(1).map((line) => line.split(/\s{2,}/)[3])).toEqual(['2', '1']);
    expect(providers.join('\n')).not.toContain('defualt');

    const keys = (await runCli(['api-keys', 'list'], env)).stdout.trimEnd().split('\n');
    expect(keys[0]).toMatch(/^ID\s+PROVIDER\s+ROLE\s+EMPLOYER\s+KEY\s+CREATED\s+STATUS$/);
    expect(keys).toHaveLength(4);
    // Aligned: the ROLE column starts at the same place on every row.
    const roleColumn = keys[0]!.indexOf('ROLE');
    for (const line of keys.slice(1)) expect(line.slice(roleColumn)).toMatch(/^(admin|read_only) /);
  });
});

describe('benefits demo', () => {
  it('when run, then the sandbox is served with the key it prints; run again, it refuses and changes nothing', async () => {
    const env = { DATABASE_URL: database.url, ...keyEnv };
    const loaded = await runCli(['demo'], env);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain('provider "demo"');
    const key = /Admin API key of "demo" \(shown once; store it now\): (bk_live_\w+)/.exec(loaded.stdout)?.[1];
    expect(key).toBeTruthy();

    server = await startServe(env);
    // The demo's provider is the first: serve makes no "default" provider beside it.
    expect(server.output()).not.toMatch(/bk_live_/);
    const get = async (path: string) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status, path).toBe(200);
      return (await response.json()) as { results: Record<string, unknown>[] };
    };
    expect((await get('/employers')).results).toHaveLength(1);
    expect((await get('/members')).results).toHaveLength(5);
    expect((await get('/dependents')).results.length).toBeGreaterThanOrEqual(5);
    expect(new Set((await get('/plans')).results.map((plan) => plan.line_of_coverage))).toEqual(new Set(['medical', 'dental', 'vision']));
    expect((await get('/open_enrollment_windows')).results.map((window) => window.status)).toEqual(['active']);

    const again = await runCli(['demo'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The demo sandbox is loaded already');
    expect(again.stdout).not.toMatch(/bk_live_/);
    expect((await get('/members')).results).toHaveLength(5);
  });
});
