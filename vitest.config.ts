import { defineConfig } from 'vitest/config';

// The whole suite runs twice: on the embedded SQLite database and on PostgreSQL (TEST_DATABASE_URL; without
// it, 127.0.0.1:5432 when it answers, else a throwaway embedded PostgreSQL: test/setup/postgres.ts). Each test
// file gets its own database file or schema.
const shared = {
  include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // expect.poll waits for a condition, and returns the moment it holds: its default second was too short on a
  // loaded two-core machine (a job worker test failed so once), so it waits up to ten.
  expect: { poll: { timeout: 10_000 } },
  // Slow tests, by what they drive; `--tags-filter='!install'` leaves those out of a quick run.
  tags: [
    { name: 'install', description: 'packs the project and installs it as an operator would (npm; a build when dist/ is out of date)', timeout: 600_000 },
    { name: 'container', description: 'builds and runs the container image where a container engine runs', timeout: 900_000 },
  ],
};

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'sqlite', env: { BENEFITS_TEST_DATABASE: 'sqlite' } } },
      { test: { ...shared, name: 'postgres', env: { BENEFITS_TEST_DATABASE: 'postgres' }, globalSetup: ['test/setup/postgres.ts'] } },
    ],
  },
});
