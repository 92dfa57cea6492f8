import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/database.ts';
import { NodeSqliteDialect, type NodeSqliteDialectConfig } from '../../src/db/sqlite-dialect.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIALECT_URL = pathToFileURL(join(REPO_ROOT, 'src/db/sqlite-dialect.ts')).href;

describe.skipIf(process.env.BENEFITS_TEST_DATABASE === 'postgres')('NodeSqliteDialect', () => {
  const cleanups: (() => Promise<void> | void)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A fresh database file in its own temporary directory, removed after the test. */
  function tempPath(): string {
    const directory = mkdtempSync(join(tmpdir(), 'benefits-dialect-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    return join(directory, 'test.db');
  }

  /** A Kysely over the dialect, destroyed after the test (destroying twice is harmless). */
  function open(path: string, config: Omit<NodeSqliteDialectConfig, 'path'> = {}): Kysely<any> {
    const db = new Kysely<any>({ dialect: new NodeSqliteDialect({ path, ...config }) });
    cleanups.push(() => db.destroy());
    return db;
  }

  async function openWithItems(config: Omit<NodeSqliteDialectConfig, 'path'> = {}): Promise<{ db: Kysely<any>; path: string }> {
    const path = tempPath();
    const db = open(path, config);
    await db.schema
      .createTable('items')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    return { db, path };
  }

  async function itemNames(db: Kysely<any>): Promise<string[]> {
    const rows = await db.selectFrom('items').select('name').orderBy('id').execute();
    return rows.map((row) => row.name as string);
  }

  async function createCounter(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('counter')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('value', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('counter').values({ id: 1, value: 0 }).execute();
  }

  async function counterValue(db: Kysely<any>): Promise<number> {
    const row = await db.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
    return row.value as number;
  }

  describe('queries', () => {
    it('when rows are inserted, updated and deleted, then each reports the rows it touched', async () => {
      const { db } = await openWithItems();

      const inserted = await db
        .insertInto('items')
        .values([
          { name: 'apple', quantity: 0 },
          { name: 'pear', quantity: 0 },
          { name: 'plum', quantity: 3 },
        ])
        .executeTakeFirstOrThrow();
      expect(inserted.numInsertedOrUpdatedRows).toBe(3n);
      expect(inserted.insertId).toBe(3n);

      const updated = await db.updateTable('items').set({ quantity: 7 }).where('name', 'in', ['apple', 'pear']).executeTakeFirstOrThrow();
      expect(updated.numUpdatedRows).toBe(2n);

      const updatedNone = await db.updateTable('items').set({ quantity: 1 }).where('name', '=', 'kiwi').executeTakeFirstOrThrow();
      expect(updatedNone.numUpdatedRows).toBe(0n);

      const deleted = await db.deleteFrom('items').where('name', '=', 'pear').executeTakeFirstOrThrow();
      expect(deleted.numDeletedRows).toBe(1n);

      const rows = await db.selectFrom('items').selectAll().orderBy('id').execute();
      expect(rows).toEqual([
        { id: 1, name: 'apple', quantity: 7 },
        { id: 3, name: 'plum', quantity: 3 },
      ]);
    });

    it('when a write has RETURNING, then the returned rows come back and the write happened', async () => {
      const { db } = await openWithItems();
      const returned = await db.insertInto('items').values({ name: 'fig', quantity: 2 }).returning(['id', 'name']).execute();
      expect(returned).toEqual([{ id: 1, name: 'fig' }]);
      const updated = await db.updateTable('items').set({ quantity: 5 }).returning('quantity').execute();
      expect(updated).toEqual([{ quantity: 5 }]);
      expect(await db.selectFrom('items').select('quantity').executeTakeFirst()).toEqual({ quantity: 5 });
    });

    it('when nothing matches a select, then no rows come back', async () => {
      const { db } = await openWithItems();
      expect(await db.selectFrom('items').selectAll().where('name', '=', 'none').execute()).toEqual([]);
    });
  });

  describe('parameter binding', () => {
    it('when values of each JavaScript type are bound, then SQLite stores the matching type', async () => {
      const db = open(tempPath());
      await sql`create table bound (value any)`.execute(db);
      const values: unknown[] = [true, false, new Date('2026-11-22T08:30:00.123Z'), null, undefined, 42, 1.5, 2n ** 40n, 'text', new Uint8Array([1, 2, 3])];
      for (const value of values) await sql`insert into bound (value) values (${value})`.execute(db);

      const { rows } = await sql<{ value: unknown; type: string }>`select value, typeof(value) as type from bound order by rowid`.execute(db);
      expect(rows).toEqual([
        { value: 1, type: 'integer' },
        { value: 0, type: 'integer' },
        { value: '2026-11-22T08:30:00.123Z', type: 'text' },
        { value: null, type: 'null' },
        { value: null, type: 'null' },
        { value: 42, type: 'integer' },
        { value: 1.5, type: 'real' },
        { value: 2 ** 40, type: 'integer' },
        { value: 'text', type: 'text' },
        { value: new Uint8Array([1, 2, 3]), type: 'blob' },
      ]);
    });

    it('when a bigint beyond the safe range is bound, then it is stored exactly, and reading it back fails loudly instead of rounding', async () => {
      const db = open(tempPath());
      await sql`create table bound (value integer)`.execute(db);
      const huge = 2n ** 60n + 1n;
      await sql`insert into bound (value) values (${huge})`.execute(db);
      expect((await sql`select value = ${huge} as exact, cast(value as text) as text from bound`.execute(db)).rows).toEqual([
        { exact: 1, text: '1152921504606846977' },
      ]);
      await expect(sql`select value from bound`.execute(db)).rejects.toThrow(RangeError);
    });

    it('when booleans are used in a where clause, then they compare as 1 and 0', async () => {
      const db = open(tempPath());
      await db.schema.createTable('flags').addColumn('name', 'text').addColumn('is_primary', 'boolean').execute();
      await db
        .insertInto('flags')
        .values([
          { name: 'yes', is_primary: true },
          { name: 'no', is_primary: false },
        ])
        .execute();
      expect(await db.selectFrom('flags').select('name').where('is_primary', '=', true).execute()).toEqual([{ name: 'yes' }]);
      expect(await db.selectFrom('flags').select('name').where('is_primary', '=', false).execute()).toEqual([{ name: 'no' }]);
    });

    it('when a value cannot be bound, then the query fails with a TypeError and the connection stays usable', async () => {
      const { db } = await openWithItems();
      await expect(sql`select ${{ nested: true }} as value`.execute(db)).rejects.toThrow(TypeError);
      await expect(sql`select ${Symbol('s')} as value`.execute(db)).rejects.toThrow(/cannot bind a value of type symbol/);
      await db.insertInto('items').values({ name: 'after' }).execute();
      expect(await itemNames(db)).toEqual(['after']);
    });
  });

  describe('connection settings', () => {
    it('when a file database opens, then it is in WAL mode with foreign keys on, synchronous NORMAL and a 5 s busy timeout', async () => {
      const db = open(tempPath());
      expect((await sql`pragma journal_mode`.execute(db)).rows).toEqual([{ journal_mode: 'wal' }]);
      expect((await sql`pragma foreign_keys`.execute(db)).rows).toEqual([{ foreign_keys: 1 }]);
      expect((await sql`pragma busy_timeout`.execute(db)).rows).toEqual([{ timeout: 5000 }]);
      expect((await sql`pragma synchronous`.execute(db)).rows).toEqual([{ synchronous: 1 }]);
    });

    it('when a busy timeout is configured, then the connection uses it', async () => {
      const db = open(tempPath(), { busyTimeoutMs: 1234 });
      expect((await sql`pragma busy_timeout`.execute(db)).rows).toEqual([{ timeout: 1234 }]);
    });

    it('when the path is :memory:, then the database works without WAL', async () => {
      const db = open(':memory:');
      expect((await sql`pragma journal_mode`.execute(db)).rows).toEqual([{ journal_mode: 'memory' }]);
      await sql`create table t (x integer)`.execute(db);
      await sql`insert into t (x) values (${1})`.execute(db);
      expect((await sql`select x from t`.execute(db)).rows).toEqual([{ x: 1 }]);
    });

    it('when a row references a missing parent, then the foreign key rejects it', async () => {
      const db = open(tempPath());
      await db.schema
        .createTable('parents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .execute();
      await db.schema
        .createTable('children')
        .addColumn('parent_id', 'text', (c) => c.references('parents.id'))
        .execute();
      await expect(db.insertInto('children').values({ parent_id: 'missing' }).execute()).rejects.toThrow(/FOREIGN KEY constraint failed/);
    });
  });

  describe('planner statistics', () => {
    /** A table of one tenant with a tenant index, as the app's: SQLite without statistics reads it all for an id list. */
    async function tenantRows(db: Kysely<any>, count: number, transactions: 'one' | 'each'): Promise<void> {
      await sql`create table people (id text primary key, provider_id text not null, created_at text not null)`.execute(db);
      await sql`create index people_page on people (provider_id, created_at, id)`.execute(db);
      const rows = Array.from({ length: count }, (_, index) => ({ id: `p${index}`, provider_id: 'prov_a', created_at: String(index).padStart(6, '0') }));
      if (transactions === 'one') await db.transaction().execute((trx) => trx.insertInto('people').values(rows).execute());
      else await Promise.all(rows.map((row) => db.transaction().execute((trx) => trx.insertInto('people').values(row).execute())));
    }

    async function planOfIdList(db: Kysely<any>): Promise<string> {
      const { rows } = await sql<{
        detail: string;
      }>`explain query plan select * from people where provider_id = ${'prov_a'} and id in (${'p1'}, ${'p2'}, ${'p3'}, ${'p4'})`.execute(db);
      return rows.map((row) => row.detail).join('; ');
    }

    it('when 5,000 transactions have committed, then PRAGMA optimize has gathered statistics and an id list reads the primary key (not the tenant index)', async () => {
      const db = open(tempPath());
      await tenantRows(db, 5_000, 'each');
      expect(await planOfIdList(db)).toMatch(/sqlite_autoindex_people_1 \(id=\?\)/);
    });

    it('when fewer transactions have committed since the open, then nothing was gathered yet (the planner takes the tenant index)', async () => {
      const db = open(tempPath());
      await tenantRows(db, 4_000, 'one');
      expect(await planOfIdList(db)).toMatch(/people_page \(provider_id=\?\)/);
    });

    it('when a database with data opens, then statistics are gathered at the open', async () => {
      const path = tempPath();
      const first = open(path);
      await tenantRows(first, 4_000, 'one');
      await first.destroy();
      expect(await planOfIdList(open(path))).toMatch(/sqlite_autoindex_people_1 \(id=\?\)/);
    });
  });

  describe('checkpoints', () => {
    /** Writes about 5 MB in 500 small transactions: past SQLite's own 1,000-page checkpoint threshold. */
    async function writeMegabytes(db: Kysely<any>): Promise<void> {
      await sql`create table blobs (id integer primary key, body text not null)`.execute(db);
      for (let i = 0; i < 500; i += 1)
        await db
          .insertInto('blobs')
          .values({ id: i, body: 'x'.repeat(10_000) })
          .execute();
    }

    /** Until the checkpoint thread has its connection open, commits checkpoint as SQLite does by default. */
    async function waitForCheckpointThread(db: Kysely<any>): Promise<void> {
      const autocheckpoint = async () => (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]?.wal_autocheckpoint;
      expect(await autocheckpoint()).toBe(1000);
      const deadline = Date.now() + 5000;
      while ((await autocheckpoint()) !== 0 && Date.now() < deadline) await delay(10);
      expect(await autocheckpoint()).toBe(0);
    }

    it('when a file database is written to, then commits leave checkpoints to the background thread, which copies the log into the file', async () => {
      const path = tempPath();
      const db = open(path, { checkpointIntervalMs: 50 });
      await waitForCheckpointThread(db);
      await writeMegabytes(db);
      const deadline = Date.now() + 5000;
      while (statSync(path).size < 4_000_000 && Date.now() < deadline) await delay(20);
      expect(statSync(path).size).toBeGreaterThan(4_000_000);
    });

    it('when the background checkpoints are switched off, then SQLite checkpoints inside commits as usual', async () => {
      const path = tempPath();
      const db = open(path, { checkpointIntervalMs: 0 });
      expect((await sql`pragma wal_autocheckpoint`.execute(db)).rows).toEqual([{ wal_autocheckpoint: 1000 }]);
      await writeMegabytes(db);
      expect(statSync(path).size).toBeGreaterThan(1_000_000);
    });

    it('when a process has nothing left to do but destroy the database, then destroy() completes and the process exits cleanly', async () => {
      const script = `
        import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
        import { NodeSqliteDialect } from ${JSON.stringify(DIALECT_URL)};
        const db = new Kysely({ dialect: new NodeSqliteDialect({ path: process.env.DB_PATH }) });
        await sql\`create table t (x integer)\`.execute(db);
        await db.destroy();
        process.stdout.write('destroyed\\n');
      `;
      const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '--eval', script], {
        cwd: REPO_ROOT,
        env: { ...process.env, DB_PATH: tempPath() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ code, output }).toEqual({ code: 0, output: 'destroyed\n' });
    });

    it('when the database is destroyed, then the log is checkpointed and removed and a reopened file has every row', async () => {
      const path = tempPath();
      const db = open(path, { checkpointIntervalMs: 60_000 });
      await writeMegabytes(db);
      await db.destroy();
      expect(existsSync(`${path}-wal`)).toBe(false);
      const reopened = open(path);
      expect((await sql`select count(*) as n from blobs`.execute(reopened)).rows).toEqual([{ n: 500 }]);
    });

    it('when a file database opens, then its log is truncated back to the log size limit whenever it starts over', async () => {
      expect((await sql`pragma journal_size_limit`.execute(open(tempPath()))).rows).toEqual([{ journal_size_limit: 64 * 1024 * 1024 }]);
      expect((await sql`pragma journal_size_limit`.execute(open(tempPath(), { walSizeLimitBytes: 1_000_000 }))).rows).toEqual([
        { journal_size_limit: 1_000_000 },
      ]);
    });

    it('when writes and reads go on without a break, then the log still starts over past its limit and its file stays bounded', async () => {
      const path = tempPath();
      const limit = 1024 * 1024;
      // A pause that gives up (a slow fsync on a busy machine) leaves the log to grow until the next one: not
      // what this test is about, so the pauses may take as long as they need.
      const db = open(path, { checkpointIntervalMs: 20, walSizeLimitBytes: limit, maxLogRestartPauseMs: 5000 });
      await sql`create table blobs (id integer primary key, body text not null)`.execute(db);
      const walBytes = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, walBytes())), 5);
      cleanups.push(() => clearInterval(sampler));

      // 20 writers and 5 readers on the one connection, each going on at the next turn of the event loop (as
      // requests would), so that a write transaction is almost always open; 16,000 rows of 4 KB: over 64 MB of
      // log, which without restarts would all stay in the file.
      const rows = 16_000;
      let next = 0;
      let writing = true;
      const writer = async () => {
        while (next < rows) {
          const id = next++;
          await db.transaction().execute((trx) =>
            trx
              .insertInto('blobs')
              .values({ id, body: `${id}`.padEnd(4000, 'x') })
              .execute(),
          );
          await nextTurn();
        }
      };
      const reader = async () => {
        while (writing) {
          await db.selectFrom('blobs').select('id').orderBy('id', 'desc').limit(1).execute();
          await nextTurn();
        }
      };
      const readers = Array.from({ length: 5 }, reader);
      await Promise.all(Array.from({ length: 20 }, writer));
      writing = false;
      await Promise.all(readers);
      clearInterval(sampler);

      expect((await sql`select count(*) as n from blobs`.execute(db)).rows).toEqual([{ n: rows }]);
      // The documented bound: the limit, plus what is written from one check of the thread to the pause (here
      // 20 ms and a checkpoint: ~2-4 MB at this test's ~60 MB/s of log), with room for a busy machine.
      expect(peak).toBeGreaterThan(limit);
      expect(peak).toBeLessThan(16 * limit);
    });
  });

  describe('transactions', () => {
    it('when a transaction throws, then everything it did is rolled back and the error comes through', async () => {
      const { db } = await openWithItems();
      await db.insertInto('items').values({ name: 'before', quantity: 1 }).execute();
      const failure = new Error('changed my mind');

      await expect(
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('items')
            .values([{ name: 'a' }, { name: 'b' }])
            .execute();
          await trx.updateTable('items').set({ quantity: 99 }).where('name', '=', 'before').execute();
          await trx.deleteFrom('items').where('name', '=', 'a').execute();
          throw failure;
        }),
      ).rejects.toBe(failure);

      expect(await db.selectFrom('items').select(['name', 'quantity']).execute()).toEqual([{ name: 'before', quantity: 1 }]);
    });

    it('when a statement inside a transaction fails, then the earlier statements are rolled back too', async () => {
      const { db } = await openWithItems();
      await expect(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ name: 'first' }).execute();
          await trx.insertInto('items').values({ name: 'first' }).execute();
        }),
      ).rejects.toThrow(/UNIQUE constraint failed/);
      expect(await itemNames(db)).toEqual([]);
    });

    it('when a transaction commits, then its writes survive closing and reopening the file', async () => {
      const { db, path } = await openWithItems();
      const result = await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('items')
          .values([{ name: 'kept-1' }, { name: 'kept-2' }])
          .execute();
        return 'done';
      });
      expect(result).toBe('done');
      await db.destroy();

      const reopened = open(path);
      expect(await itemNames(reopened)).toEqual(['kept-1', 'kept-2']);
    });

    it('when a controlled transaction rolls back, then nothing it wrote remains', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'discarded' }).execute();
      await trx.rollback().execute();
      expect(trx.isRolledBack).toBe(true);
      expect(await itemNames(db)).toEqual([]);
    });

    it('when a transaction is finished, then it cannot be used again', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.commit().execute();
      await expect(trx.selectFrom('items').selectAll().execute()).rejects.toThrow();
      expect(await itemNames(db)).toEqual([]);
    });
  });

  describe('savepoints', () => {
    it('when rolling back to an inner savepoint, then only the work after it is undone', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'outer' }).execute();
      const afterOuter = await trx.savepoint('after_outer').execute();
      await afterOuter.insertInto('items').values({ name: 'middle' }).execute();
      const afterMiddle = await afterOuter.savepoint('after_middle').execute();
      await afterMiddle.insertInto('items').values({ name: 'inner' }).execute();

      const rolledBack = await afterMiddle.rollbackToSavepoint('after_middle').execute();
      const released = await rolledBack.releaseSavepoint('after_middle').execute();
      await released.insertInto('items').values({ name: 'retry' }).execute();
      const outerReleased = await released.releaseSavepoint('after_outer').execute();
      await outerReleased.commit().execute();

      expect(await itemNames(db)).toEqual(['outer', 'middle', 'retry']);
    });

    it('when rolling back to the outer savepoint, then the nested work is undone as well', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'outer' }).execute();
      const afterOuter = await trx.savepoint('after_outer').execute();
      await afterOuter.insertInto('items').values({ name: 'middle' }).execute();
      const afterMiddle = await afterOuter.savepoint('after_middle').execute();
      await afterMiddle.insertInto('items').values({ name: 'inner' }).execute();

      await afterMiddle.rollbackToSavepoint('after_outer').execute();
      await trx.commit().execute();

      expect(await itemNames(db)).toEqual(['outer']);
    });

    it('when a savepoint was released and the transaction rolls back, then the released work is undone too', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      const savepoint = await trx.savepoint('sp').execute();
      await savepoint.insertInto('items').values({ name: 'released' }).execute();
      await savepoint.releaseSavepoint('sp').execute();
      await trx.rollback().execute();
      expect(await itemNames(db)).toEqual([]);
    });

    it('when a savepoint name holds a double quote, then it is quoted safely', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      const savepoint = await trx.savepoint('odd "name"; drop table items').execute();
      await savepoint.insertInto('items').values({ name: 'undone' }).execute();
      await savepoint.rollbackToSavepoint('odd "name"; drop table items').execute();
      await trx.commit().execute();
      expect(await itemNames(db)).toEqual([]);
    });
  });

  describe('one connection, one user at a time', () => {
    it('when 20 transactions read, pause and write a counter concurrently, then no increment is lost', async () => {
      const db = open(tempPath());
      await createCounter(db);

      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          db.transaction().execute(async (trx) => {
            const { value } = await trx.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
            await delay(index % 2 === 0 ? 0 : 2);
            await trx
              .updateTable('counter')
              .set({ value: (value as number) + 1 })
              .where('id', '=', 1)
              .execute();
          }),
        ),
      );

      expect(await counterValue(db)).toBe(20);
    });

    it('when transactions and plain queries interleave, then every transaction sees only its own writes until commit', async () => {
      const db = open(tempPath());
      await createCounter(db);
      const observed: number[] = [];

      await Promise.all([
        ...Array.from({ length: 10 }, () =>
          db.transaction().execute(async (trx) => {
            const before = await counterValue(trx);
            await trx
              .updateTable('counter')
              .set({ value: before + 1 })
              .where('id', '=', 1)
              .execute();
            await delay(1);
            expect(await counterValue(trx)).toBe(before + 1);
          }),
        ),
        ...Array.from({ length: 10 }, async () => observed.push(await counterValue(db))),
      ]);

      expect(await counterValue(db)).toBe(10);
      expect(observed).toHaveLength(10);
    });

    it('when a query is issued while a transaction is open, then it waits for the commit and sees the committed rows', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'from-transaction' }).execute();

      let settled = false;
      const pending = itemNames(db).finally(() => {
        settled = true;
      });
      await delay(50);
      expect(settled).toBe(false);

      await trx.insertInto('items').values({ name: 'still-in-transaction' }).execute();
      await trx.commit().execute();

      expect(await pending).toEqual(['from-transaction', 'still-in-transaction']);
    });

    it('when a query is issued while a transaction is open and it rolls back, then the query sees none of its rows', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'rolled-back' }).execute();
      const pending = itemNames(db);
      await delay(20);
      await trx.rollback().execute();
      expect(await pending).toEqual([]);
    });

    it('when a query fails, then the connection is released for the next one', async () => {
      const { db } = await openWithItems();
      const results = await Promise.allSettled([
        sql`select * from no_such_table`.execute(db),
        db.insertInto('items').values({ name: 'next' }).execute(),
        db.transaction().execute(async (trx) => {
          await sql`select * from no_such_table`.execute(trx);
        }),
        itemNames(db),
      ]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
      expect(results[3]).toEqual({ status: 'fulfilled', value: ['next'] });
    });
  });

  describe('another process on the same file', () => {
    /**
     * Runs a second process that opens its own NodeSqliteDialect on `path`, says "ready", then inserts a row
     * into `log` and reports how long the insert waited. A child process, because node:sqlite waits for locks
     * synchronously: a second connection in this process would block the event loop that must end the lock.
     */
    function startSecondWriter(path: string, busyTimeoutMs: number) {
      const script = `
        import { Kysely } from 'kysely';
        import { NodeSqliteDialect } from ${JSON.stringify(DIALECT_URL)};
        const db = new Kysely({ dialect: new NodeSqliteDialect({ path: process.env.DB_PATH, busyTimeoutMs: Number(process.env.BUSY_MS) }) });
        await db.selectFrom('log').selectAll().execute();
        process.stdout.write('ready\\n');
        const started = performance.now();
        try {
          await db.insertInto('log').values({ writer: 'second process' }).execute();
          process.stdout.write(JSON.stringify({ ok: true, waitedMs: performance.now() - started }) + '\\n');
        } catch (error) {
          process.stdout.write(JSON.stringify({ ok: false, errcode: error.errcode, message: error.message, waitedMs: performance.now() - started }) + '\\n');
        }
        await db.destroy();
      `;
      const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '--eval', script], {
        cwd: REPO_ROOT,
        env: { ...process.env, DB_PATH: path, BUSY_MS: String(busyTimeoutMs) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<{ code: number | null; report: { ok: boolean; waitedMs: number; errcode?: number; message?: string } }>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code) => {
          const line = stdout.trim().split('\n').at(-1) ?? '';
          try {
            resolve({ code, report: JSON.parse(line) });
          } catch {
            reject(new Error(`second process exited with ${code}: ${stdout}\n${stderr}`));
          }
        });
      });
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => {
          if (stdout.includes('ready\n')) resolve();
        });
        child.on('close', () => reject(new Error(`second process never became ready: ${stderr}`)));
      });
      ready.catch(() => undefined); // only the test that waits for "ready" cares
      cleanups.push(() => {
        child.kill();
      });
      return { ready, exited };
    }

    async function openWithLog(): Promise<{ db: Kysely<any>; path: string }> {
      const path = tempPath();
      const db = open(path);
      await db.schema
        .createTable('log')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('writer', 'text', (c) => c.notNull())
        .execute();
      return { db, path };
    }

    it('when another process writes while a transaction holds the write lock, then it waits for the commit instead of failing', async () => {
      const { db, path } = await openWithLog();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('log').values({ writer: 'first process' }).execute();

      const second = startSecondWriter(path, 5000);
      await second.ready;
      await delay(200);
      await trx.commit().execute();

      const { code, report } = await second.exited;
      expect(code).toBe(0);
      expect(report).toMatchObject({ ok: true });
      expect(report.waitedMs).toBeGreaterThan(100);
      const rows = await db.selectFrom('log').select('writer').orderBy('id').execute();
      expect(rows.map((row) => row.writer)).toEqual(['first process', 'second process']);
    });

    it('when the busy timeout is 0, then the other process fails at once with SQLITE_BUSY (so the wait above is the timeout at work)', async () => {
      const { db, path } = await openWithLog();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('log').values({ writer: 'first process' }).execute();

      const second = startSecondWriter(path, 0);
      const { report } = await second.exited;
      await trx.commit().execute();

      expect(report).toMatchObject({ ok: false, errcode: 5, message: expect.stringMatching(/database is locked/) });
      const rows = await db.selectFrom('log').select('writer').orderBy('id').execute();
      expect(rows.map((row) => row.writer)).toEqual(['first process']);
    });
  });

  describe('destroy', () => {
    it('when destroy() is called during a transaction, then it waits for the transaction to commit', async () => {
      const { db, path } = await openWithItems();
      const events: string[] = [];
      let markStarted!: () => void;
      const started = new Promise<void>((resolve) => (markStarted = resolve));

      const transaction = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'first' }).execute();
        markStarted();
        await delay(100);
        await trx.insertInto('items').values({ name: 'second' }).execute();
        events.push('transaction body done');
      });
      await started;
      const destroyed = db.destroy().then(() => events.push('destroyed'));

      await Promise.all([transaction, destroyed]);
      expect(events).toEqual(['transaction body done', 'destroyed']);

      const reopened = open(path);
      expect(await itemNames(reopened)).toEqual(['first', 'second']);
    });

    it('when a query is issued after destroy(), then it fails with an error instead of hanging', async () => {
      const { db } = await openWithItems();
      await db.destroy();
      await expect(itemNames(db)).rejects.toThrow(/destroyed/);
      await expect(db.transaction().execute(async () => undefined)).rejects.toThrow(/destroyed/);
    });

    it('when a query was waiting behind a transaction as destroy() was called, then it runs first (in order of arrival) and the database closes after it', async () => {
      const { db } = await openWithItems();
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ name: 'committed' }).execute();
      const waiting = itemNames(db).then(
        (names) => ({ names }),
        (error: unknown) => ({ error }),
      );
      await delay(10);
      const destroyed = db.destroy();
      await delay(10);
      await trx.commit().execute();

      await destroyed;
      expect(await waiting).toEqual({ names: ['committed'] });
      await expect(itemNames(db)).rejects.toThrow(/destroyed/);
    });

    it('when destroy() is called on a database never used, then it resolves', async () => {
      const db = open(tempPath());
      await expect(db.destroy()).resolves.toBeUndefined();
    });
  });

  describe('group commit', () => {
    /** Whether a second connection (another process, in effect) sees the item: only after a real COMMIT. */
    function committedElsewhere(path: string, name: string): boolean {
      const other = new DatabaseSync(path);
      try {
        return other.prepare('select 1 from items where name = ?').get(name) !== undefined;
      } finally {
        other.close();
      }
    }

    it('when 30 transactions finish while others wait, then each is committed (visible to another connection) by the time it resolves', async () => {
      const { db, path } = await openWithItems();
      const seenAtResolve: boolean[] = [];
      await Promise.all(
        Array.from({ length: 30 }, async (_, index) => {
          await db.transaction().execute(async (trx) => {
            await trx
              .insertInto('items')
              .values({ name: `item-${index}` })
              .execute();
            await delay(0);
          });
          seenAtResolve.push(committedElsewhere(path, `item-${index}`));
        }),
      );
      expect(seenAtResolve).toEqual(Array.from({ length: 30 }, () => true));
    });

    it('when one transaction of a group fails, then only its own writes are undone and the others commit', async () => {
      const { db, path } = await openWithItems();
      const blocker = await db.startTransaction().execute();
      const outcomes = Promise.allSettled(
        ['first', 'failing', 'third'].map((name) =>
          db.transaction().execute(async (trx) => {
            await trx.insertInto('items').values({ name }).execute();
            if (name === 'failing') throw new Error('changed my mind');
          }),
        ),
      );
      await delay(10);
      await blocker.commit().execute();
      const results = await outcomes;
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await itemNames(db)).toEqual(['first', 'third']);
      expect(committedElsewhere(path, 'third')).toBe(true);
      expect(committedElsewhere(path, 'failing')).toBe(false);
    });

    it('when a plain query comes after a transaction that handed the connection on, then it sees that transaction committed', async () => {
      const { db, path } = await openWithItems();
      const blocker = await db.startTransaction().execute();
      const written = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'grouped' }).execute();
      });
      const read = db
        .selectFrom('items')
        .select('name')
        .execute()
        .then((rows) => ({ names: rows.map((row) => row.name as string), elsewhere: committedElsewhere(path, 'grouped') }));
      await delay(10);
      await blocker.commit().execute();
      await written;
      expect(await read).toEqual({ names: ['grouped'], elsewhere: true });
    });

    it('when the COMMIT of a group fails, then every transaction of the group fails, none of their writes remain, and the connection goes on', async () => {
      // A long group delay: the three start in one turn of the event loop and commit together, however slow the machine.
      const { db } = await openWithItems({ maxGroupDelayMs: 60_000 });
      await db.schema
        .createTable('children')
        .addColumn('item_id', 'integer', (c) => c.notNull().references('items.id'))
        .execute();
      const results = await Promise.allSettled([
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ name: 'innocent' }).execute();
        }),
        // A deferred foreign key is checked only at the outer COMMIT: the one failure a RELEASE cannot catch.
        db.transaction().execute(async (trx) => {
          await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
          await trx.insertInto('children').values({ item_id: 999 }).execute();
        }),
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ name: 'last' }).execute();
        }),
      ]);
      // The COMMIT's own error reaches each of them (Kysely's rollback after a failed commit leaves the
      // connection alone: their work went with the group).
      expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'fulfilled'))).toEqual([
        expect.stringMatching(/FOREIGN KEY/),
        expect.stringMatching(/FOREIGN KEY/),
        expect.stringMatching(/FOREIGN KEY/),
      ]);
      expect(await itemNames(db)).toEqual([]);
      expect(await db.selectFrom('children').selectAll().execute()).toEqual([]);

      await db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'after' }).execute();
      });
      expect(await itemNames(db)).toEqual(['after']);
    });

    it('when group commit is off (maxGroupSize 1), then 20 concurrent increments are still all kept', async () => {
      const { db } = await openWithItems({ maxGroupSize: 1 });
      await createCounter(db);
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction().execute(async (trx) => {
            const value = await counterValue(trx);
            await delay(0);
            await trx
              .updateTable('counter')
              .set({ value: value + 1 })
              .where('id', '=', 1)
              .execute();
          }),
        ),
      );
      expect(await counterValue(db)).toBe(20);
    });
  });

  describe('prepared statement cache', () => {
    it('when more distinct statements run than the cache holds, then every one still returns its own result', async () => {
      const { db } = await openWithItems({ statementCacheSize: 3 });
      await db.insertInto('items').values({ name: 'cached', quantity: 5 }).execute();
      for (let round = 0; round < 2; round += 1) {
        for (let index = 0; index < 25; index += 1) {
          const { rows } = await sql<{ value: number }>`select quantity + ${sql.lit(index)} as value from items where name = ${'cached'}`.execute(db);
          expect(rows).toEqual([{ value: 5 + index }]);
        }
      }
    });

    it('when more distinct statements run than the default cache of 500, then they all work', async () => {
      const db = open(tempPath());
      for (let index = 0; index < 600; index += 1) {
        const { rows } = await sql<{ value: number }>`select ${sql.lit(index)} + ${1} as value`.execute(db);
        expect(rows).toEqual([{ value: index + 1 }]);
      }
    });

    it('when one statement runs again with new parameters, then the reused statement binds them afresh', async () => {
      const { db } = await openWithItems({ statementCacheSize: 1 });
      for (const name of ['a', 'b', 'c']) await db.insertInto('items').values({ name }).execute();
      for (const name of ['c', 'a', 'b']) {
        expect(await db.selectFrom('items').select('name').where('name', '=', name).execute()).toEqual([{ name }]);
      }
    });
  });

  describe('isUniqueViolation', () => {
    it('when a unique column is duplicated, then the error is a unique violation', async () => {
      const { db } = await openWithItems();
      await db.insertInto('items').values({ name: 'twin' }).execute();
      const error: unknown = await db
        .insertInto('items')
        .values({ name: 'twin' })
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    });

    it('when a primary key is duplicated, then the error is a unique violation', async () => {
      const { db } = await openWithItems();
      await db.insertInto('items').values({ id: 1, name: 'one' }).execute();
      const error: unknown = await db
        .insertInto('items')
        .values({ id: 1, name: 'uno' })
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    });

    it('when a composite primary key is duplicated inside a transaction, then the error is a unique violation', async () => {
      const db = open(tempPath());
      await sql`create table pairs (a text not null, b text not null, primary key (a, b))`.execute(db);
      const error: unknown = await db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('pairs').values({ a: 'x', b: 'y' }).execute();
          await trx.insertInto('pairs').values({ a: 'x', b: 'y' }).execute();
        })
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    });

    it.each([
      ['a NOT NULL violation', sql`insert into items (name) values (null)`],
      ['a missing table', sql`select * from no_such_table`],
      ['a syntax error', sql`selec 1`],
    ])('when the error is %s, then it is not a unique violation', async (_, query) => {
      const { db } = await openWithItems();
      const error: unknown = await query.execute(db).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(isUniqueViolation(error)).toBe(false);
    });

    it('when the error is a foreign key violation, then it is not a unique violation', async () => {
      const db = open(tempPath());
      await sql`create table parents (id text primary key)`.execute(db);
      await sql`create table children (parent_id text references parents (id))`.execute(db);
      const error: unknown = await sql`insert into children (parent_id) values (${'missing'})`.execute(db).catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(false);
    });
  });
});
