import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// PostgreSQL only: statements with parameters go as named prepared statements (src/db/prepared-statements.ts).
describe.skipIf(testDatabaseKind() !== 'postgres')('prepared statements on PostgreSQL', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeEach(async () => {
    database = await createTestDatabase();
    // One connection, so that every statement below runs on the connection that prepared them.
    handle = openDatabase(database.url, { poolSize: 1 });
    await handle.db.insertInto('providers').values({ id: 'prov_1', name: 'One', created_at: '2026-11-25T00:00:00.000Z' }).execute();
  });

  afterEach(async () => {
    await handle.close();
    await database.destroy();
  });

  const readProvider = () => handle.db.selectFrom('providers').selectAll().where('id', '=', 'prov_1').executeTakeFirstOrThrow();

  /** Adds a column to providers from another connection, as a migration of another process would. */
  async function addColumnElsewhere(): Promise<void> {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('alter table providers add column added_later text');
    } finally {
      await other.end();
    }
  }

  it('when a query with parameters runs twice, then the connection holds it prepared and both answer', async () => {
    expect((await readProvider()).name).toBe('One');
    expect((await readProvider()).name).toBe('One');
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(handle.db);
    expect(prepared.rows.some((row) => row.statement.includes('from "providers"'))).toBe(true);
  });

  it('when a statement has no parameters, then it is not prepared', async () => {
    await sql`select 1 as one`.execute(handle.db);
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(handle.db);
    expect(prepared.rows.some((row) => row.statement.includes('select 1 as one'))).toBe(false);
  });

  it('when a prepared select * meets a table that gained a column, then outside a transaction it is sent again and answers', async () => {
    await readProvider();
    await addColumnElsewhere();
    const row = await readProvider();
    expect(row.name).toBe('One');
    expect(row).toHaveProperty('added_later', null);
  });

  it('when that happens inside a transaction, then that transaction fails and the next one answers', async () => {
    await readProvider();
    await addColumnElsewhere();
    await expect(
      handle.db.transaction().execute(async (trx) => trx.selectFrom('providers').selectAll().where('id', '=', 'prov_1').executeTakeFirstOrThrow()),
    ).rejects.toThrow(/cached plan must not change result type/);
    const row = await handle.db
      .transaction()
      .execute(async (trx) => trx.selectFrom('providers').selectAll().where('id', '=', 'prov_1').executeTakeFirstOrThrow());
    expect(row.name).toBe('One');
  });
});
