import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { runCli, killServe, startServe, type ServerProcess } from '../helpers/cli.ts';

// PostgreSQL deployments must bring their own key; SQLite ones get a key file.
const keyEnv: Record<string, string> = testDatabaseKind() === 'postgres' ? { BENEFITS_ENCRYPTION_KEY: 'ab'.repeat(32) } : {};

// Each test runs the command several times, each a process of its own: slow on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

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

const KEY_LINE = /First admin API key \(shown once; store it now\): (bk_live_[0-9A-Za-z]+)/;

describe('benefits serve', () => {
  it('when started on an empty database, then it migrates, prints one admin key, and a second start prints none', async () => {
    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    const key = KEY_LINE.exec(server.output())?.[1];
    expect(key).toBeTruthy();
    expect(server.output().match(/bk_live_/g)).toHaveLength(1);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const employers = await fetch(`${server.url}/employers`, { headers: { authorization: `Bearer ${key}` } });
    expect(employers.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    expect(server.output()).not.toMatch(/bk_live_/);
    const again = await fetch(`${server.url}/employers`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
  });

  it('when SIGTERM arrives while a request is in flight, then that request finishes and the process exits 0', async () => {
    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    const key = KEY_LINE.exec(server.output())![1]!;
    const body = JSON.stringify({ legal_name: 'Shutdown Ltd', address: { line1: '1 Main St', city: 'Austin', state: 'TX', zip_code: '73301' } });
    // The body is sent in two halves with SIGTERM in between, so the request is certainly in flight.
    const { port } = new URL(server.url);
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: Number(port),
          method: 'POST',
          path: '/employers',
          agent: false,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 20));
      setTimeout(() => {
        server!.child.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(20)), 300);
      }, 100);
    });
    const result = await response;
    expect(result.status, result.text).toBe(201);
    expect(await server.exited, server.output()).toBe(0);
    expect(server.output()).toContain('shutting down');
  });

  it.runIf(testDatabaseKind() === 'postgres')('when PostgreSQL is used without BENEFITS_ENCRYPTION_KEY, then the start fails saying so', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('BENEFITS_ENCRYPTION_KEY is required with PostgreSQL');
  });

  it.runIf(testDatabaseKind() === 'sqlite')(
    'when the embedded database starts without a key, then a key file with mode 0600 is made beside it and kept',
    async () => {
      server = await startServe({ DATABASE_URL: database.url });
      const keyFile = join(dirname(database.url.slice('sqlite:'.length)), 'encryption.key');
      expect(existsSync(keyFile)).toBe(true);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    },
  );

  it('when the encryption key is malformed, then the start fails naming the variable', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: database.url, BENEFITS_ENCRYPTION_KEY: 'short' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('BENEFITS_ENCRYPTION_KEY');
  });

  it('when a configuration variable is invalid, then the start fails naming it', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: database.url, PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT');
  });
});

describe('outbound connection settings', () => {
  it('when SFTP_ALLOWED_PORTS or the loopback switch is invalid, then the start fails naming it; --help lists them and the alias', async () => {
    const badPorts = await runCli(['serve'], { DATABASE_URL: database.url, SFTP_ALLOWED_PORTS: '22,ssh' });
    expect(badPorts.code).toBe(1);
    expect(badPorts.stderr).toContain('SFTP_ALLOWED_PORTS must be TCP ports or ranges');
    expect(badPorts.stderr).toContain('"ssh"');
    const disagreeing = await runCli(['serve'], { DATABASE_URL: database.url, OUTBOUND_ALLOW_LOOPBACK: 'false', WEBHOOKS_ALLOW_LOOPBACK: 'true' });
    expect(disagreeing.code).toBe(1);
    expect(disagreeing.stderr).toContain('OUTBOUND_ALLOW_LOOPBACK and WEBHOOKS_ALLOW_LOOPBACK');
    const help = (await runCli(['--help'], { DATABASE_URL: database.url })).stdout;
    expect(help).toMatch(
      // Commander wraps the descriptions to the terminal's width: whitespace between words may be a line break.
      /OUTBOUND_ALLOW_LOOPBACK[\s\S]*WEBHOOKS_ALLOW_LOOPBACK\s+the\s+former\s+name\s+of\s+OUTBOUND_ALLOW_LOOPBACK[\s\S]*SFTP_ALLOWED_PORTS\s+ports\s+an\s+EDI\s+profile[\s\S]*?22,2222,10022-10030\)\s+\(default:\s+22,2222\)\n/,
    );
  });
});

describe('benefits sweep', () => {
  it('when run for a day, then it applies the rules and says what it did; a bad date or setting is refused by name', async () => {
    const result = await runCli(['sweep', '--date', '2026-03-24'], { DATABASE_URL: database.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Sweep of 2026-03-24: newly_eligible 0, dependent_age_out 0, dependent_coverage_ended 0, relationship_coverage_ended 0, open_enrollment_reminder 0, windows_closed 0, coverage_ended 0, eligibility_lost 0, termination_cobra_events 0.',
    );
    const badDate = await runCli(['sweep', '--date', '2026-02-30'], { DATABASE_URL: database.url });
    expect(badDate.code).toBe(1);
    expect(badDate.stderr).toContain('--date');
    const yearZero = await runCli(['sweep', '--date', '0000-06-01'], { DATABASE_URL: database.url });
    expect(yearZero.code).toBe(1);
    expect(yearZero.stderr).toContain('from 0001-01-01 to 9999-12-31');
    const badZone = await runCli(['sweep'], { DATABASE_URL: database.url, SWEEP_TIME_ZONE: 'Mars/Olympus' });
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toContain('SWEEP_TIME_ZONE');
    const badTime = await runCli(['serve'], { DATABASE_URL: database.url, SWEEP_TIME: '25:00' });
    expect(badTime.code).toBe(1);
    expect(badTime.stderr).toContain('SWEEP_TIME');
    expect((await runCli(['--help'], { DATABASE_URL: database.url })).stdout).toMatch(/sweep \[--date <day>\][\s\S]*SWEEP_TIME_ZONE/);
  });
});

describe('benefits api-keys and migrate', () => {
  it('when keys are created, listed and revoked from the CLI, then the server honours it at once', async () => {
    expect((await runCli(['migrate'], { DATABASE_URL: database.url })).stdout).toMatch(/Applied: /);
    expect((await runCli(['migrate'], { DATABASE_URL: database.url })).stdout).toContain('up to date');

    const created = await runCli(['api-keys', 'create', '--provider', 'Acme Benefits', '--role', 'admin', '--new-provider'], { DATABASE_URL: database.url });
    expect(created.code).toBe(0);
    const key = /(bk_live_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
    const id = /(key_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;

    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    // The provider exists already, so no bootstrap key is printed.
    expect(server.output()).not.toMatch(/bk_live_/);
    const headers = { authorization: `Bearer ${key}` };
    expect((await fetch(`${server.url}/employers`, { headers })).status).toBe(200);

    const listed = await runCli(['api-keys', 'list'], { DATABASE_URL: database.url });
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('Acme Benefits');
    expect(listed.stdout).not.toContain(key);

    expect((await runCli(['api-keys', 'revoke', id], { DATABASE_URL: database.url })).code).toBe(0);
    expect((await fetch(`${server.url}/employers`, { headers })).status).toBe(401);
  });

  it('when an employer key is asked for without an employer, then the CLI refuses', async () => {
    const result = await runCli(['api-keys', 'create', '--provider', 'P', '--role', 'employer'], { DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('employer');
    const badRole = await runCli(['api-keys', 'create', '--provider', 'P', '--role', 'owner'], { DATABASE_URL: database.url });
    expect(badRole.code).toBe(1);
  });

  it.each([[['--help']], [['serve', '--help']], [['migrate', '--help']], [['api-keys', '--help']], [['api-keys', 'create', '--help']], [['sweep', '--help']]])(
    'when %j is asked, then usage is printed',
    async (args) => {
      const result = await runCli(args, { DATABASE_URL: database.url });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: benefits');
    },
  );
});
