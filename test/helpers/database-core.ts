import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type DatabaseKind } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { randomBase62 } from '../../src/shared/ids.ts';

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function testDatabaseKind(): DatabaseKind {
  return process.env.BENEFITS_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
}

export interface TestDatabase extends DatabaseHandle {
  /** The DATABASE_URL a separate process (the CLI, a server) would use for this database. */
  readonly url: string;
  /** Closes and deletes the database (file or schema), leaving nothing behind. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database of the kind this test project runs on: a temporary SQLite file, or a new
 * PostgreSQL schema at `postgresUrl`. PostgreSQL being unreachable is a failure, never a skip. Without vitest
 * (a bench importing the simulation under plain Node); tests use createTestDatabase (database.ts).
 */
export async function createTestDatabaseAt(postgresUrl: string, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const handle = testDatabaseKind() === 'postgres' ? await createPostgresSchema(postgresUrl) : createSqliteFile();
  if (options.migrate !== false) await migrateToLatest(handle.db);
  return handle;
}

function createSqliteFile(): TestDatabase {
  const directory = mkdtempSync(join(tmpdir(), 'benefits-test-'));
  const url = `sqlite:${join(directory, 'test.db')}`;
  const handle = openDatabase(url);
  return {
    ...handle,
    url,
    destroy: async () => {
      await handle.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function createPostgresSchema(baseUrl: string): Promise<TestDatabase> {
  const schema = `test_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL at ${baseUrl} is unreachable (set TEST_DATABASE_URL): ${String(error)}`, { cause: error });
  }
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const handle = openDatabase(baseUrl, { schema, poolSize: 5 });
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    ...handle,
    url: url.toString(),
    destroy: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
