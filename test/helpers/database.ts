import { inject } from 'vitest';
import { createTestDatabaseAt, DEFAULT_TEST_POSTGRES_URL, type TestDatabase } from './database-core.ts';

// The vitest-free part is database-core.ts (the simulation and the bench import it under plain Node).
export { DEFAULT_TEST_POSTGRES_URL, testDatabaseKind, type TestDatabase } from './database-core.ts';

/** TEST_DATABASE_URL when given, else what the postgres project's global setup found or started (test/setup/postgres.ts). */
export function testPostgresUrl(): string {
  return process.env.TEST_DATABASE_URL || inject('postgresUrl') || DEFAULT_TEST_POSTGRES_URL;
}

/**
 * A fresh, migrated database of the kind this test project runs on: a temporary SQLite file, or a new
 * PostgreSQL schema. PostgreSQL being unreachable is a failure, never a skip.
 */
export function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  return createTestDatabaseAt(testPostgresUrl(), options);
}
