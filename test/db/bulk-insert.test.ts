import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertRows } from '../../src/db/bulk-insert.ts';
import type { NotificationRow } from '../../src/modules/notifications/notification.table.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const CREATED_AT = '2026-11-25T08:00:00.000Z';

const notification = (n: number, occurrenceKey: string | null = `key:${n}`): NotificationRow => ({
  id: `ntf_${String(n).padStart(6, '0')}`,
  provider_id: 'prov_1',
  employer_id: null,
  notification_type: 'open_enrollment_reminder',
  related_object_type: 'member',
  related_object_id: `mem_${n}`,
  payload: JSON.stringify({ n, quote: 'it\'s "quoted"' }),
  owner: 'member',
  occurrence_key: occurrenceKey,
  created_at: CREATED_AT,
});

describe(`insertRows on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
    await database.db.insertInto('providers').values({ id: 'prov_1', name: 'One', created_at: CREATED_AT }).execute();
  });
  afterEach(async () => {
    await database.destroy();
  });

  const stored = () => database.db.selectFrom('notifications').selectAll().orderBy('id').execute();

  it('when rows span several statements, then every row is stored with its values as given', async () => {
    const rows = Array.from({ length: 7 }, (_, n) => notification(n));
    await insertRows(database.db, 'notifications', rows, { rowsPerStatement: 3 });
    const read = await stored();
    expect(read).toHaveLength(7);
    expect(read.map((row) => ({ ...row, payload: JSON.parse(row.payload) }))).toEqual(rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) })));
  });

  it('when conflicts are skipped and ids returned, then only the rows it inserted come back, in a transaction too', async () => {
    await insertRows(database.db, 'notifications', [notification(1), notification(2)], { rowsPerStatement: 10 });
    const returned = await database.db.transaction().execute((trx) =>
      insertRows(trx, 'notifications', [notification(3, 'key:1'), notification(4), notification(5, 'key:2'), notification(6)], {
        rowsPerStatement: 2,
        skipConflictsOn: 'occurrence_key',
        returning: 'id',
      }),
    );
    expect([...returned].sort()).toEqual(['ntf_000004', 'ntf_000006']);
    expect((await stored()).map((row) => row.id)).toEqual(['ntf_000001', 'ntf_000002', 'ntf_000004', 'ntf_000006']);
  });

  it('when conflicts update, then a row repeating the key updates the named columns of the stored row and keeps the rest', async () => {
    await insertRows(database.db, 'notifications', [notification(1), notification(2)]);
    const again = { ...notification(3, 'key:1'), payload: '{"updated":true}', owner: 'employer' as const };
    await database.db.transaction().execute((trx) =>
      insertRows(trx, 'notifications', [again, notification(4)], {
        rowsPerStatement: 1,
        updateConflictsOn: { columns: ['occurrence_key'], set: ['payload'] },
      }),
    );
    const read = await stored();
    expect(read.map((row) => [row.id, row.occurrence_key, JSON.parse(row.payload), row.owner])).toEqual([
      ['ntf_000001', 'key:1', { updated: true }, 'member'],
      ['ntf_000002', 'key:2', JSON.parse(notification(2).payload), 'member'],
      ['ntf_000004', 'key:4', JSON.parse(notification(4).payload), 'member'],
    ]);
  });

  it('when both skipping and updating conflicts are asked for, then it is refused before anything is sent', async () => {
    await expect(
      insertRows(database.db, 'notifications', [notification(1)], {
        skipConflictsOn: 'occurrence_key',
        updateConflictsOn: { columns: ['occurrence_key'], set: ['payload'] },
      }),
    ).rejects.toThrow(/not both/);
    expect(await stored()).toHaveLength(0);
  });

  it('when the conflict is named by a list of columns, then rows repeating it are skipped the same way', async () => {
    await insertRows(database.db, 'notifications', [notification(1)]);
    const returned = await insertRows(database.db, 'notifications', [notification(2, 'key:1'), notification(3)], {
      skipConflictsOn: ['occurrence_key'],
      returning: 'id',
    });
    expect(returned).toEqual(['ntf_000003']);
  });

  it('when there are no rows, then nothing is sent', async () => {
    expect(await insertRows(database.db, 'notifications', [], { rowsPerStatement: 10, returning: 'id' })).toEqual([]);
  });

  it('when a row lacks a column of the first or has one more, then nothing of that statement is written and it says so', async () => {
    const { occurrence_key: _dropped, ...lacking } = notification(2);
    await expect(insertRows(database.db, 'notifications', [notification(1), lacking as NotificationRow], { rowsPerStatement: 10 })).rejects.toThrow(
      /lacks the column "occurrence_key"/,
    );
    await expect(insertRows(database.db, 'notifications', [lacking as NotificationRow, notification(1)], { rowsPerStatement: 10 })).rejects.toThrow(
      /columns the first row lacks/,
    );
    expect(await stored()).toHaveLength(0);
  });

  it('when a column name is not a plain identifier, then it is refused before anything is sent', async () => {
    const odd = { ...notification(1), 'id" ; drop table notifications; --': 'x' } as unknown as NotificationRow;
    await expect(insertRows(database.db, 'notifications', [odd], { rowsPerStatement: 10 })).rejects.toThrow(/not a plain identifier/);
    expect(await stored()).toHaveLength(0);
  });
});
