import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/database.ts';

// The README's test command on a machine without PostgreSQL: the postgres project starts an embedded one
// (test/setup/postgres.ts). Run once, from the sqlite project: it spawns the postgres project itself.

const ROOT = new URL('../..', import.meta.url).pathname;
const CLOSED = 'postgres://postgres@127.0.0.1:1/test';

/** The postgres project on one small test file, with the environment given (and no TEST_DATABASE_URL unless given). */
function runPostgresProject(env: Record<string, string>) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST_DATABASE_URL' && name !== 'BENEFITS_TEST_DATABASE'),
  );
  return spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'postgres', 'test/db/test-database.test.ts'], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe.skipIf(testDatabaseKind() === 'postgres')('PostgreSQL for the tests', () => {
  it(
    'when nothing answers on the PostgreSQL port and no TEST_DATABASE_URL is set, then the postgres project runs on an embedded PostgreSQL',
    { timeout: 150_000 },
    () => {
      const run = runPostgresProject({ BENEFITS_TEST_POSTGRES_PROBE_URL: CLOSED });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('runs on an embedded PostgreSQL');
      expect(run.stdout).toMatch(/1 passed/);
    },
  );

  it('when a given TEST_DATABASE_URL does not answer, then the run fails (CI never falls back)', { timeout: 150_000 }, () => {
    const run = runPostgresProject({ TEST_DATABASE_URL: CLOSED });
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain(`PostgreSQL at ${CLOSED} is unreachable`);
  });
});
