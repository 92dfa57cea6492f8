import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoFromUtcTimestamp, openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const generalParse = pg.types.getTypeParser(1184, 'text') as (value: string) => Date;

/** A timestamptz as PostgreSQL's UTC session writes it: trailing zeros of the fraction dropped, `+00`. */
function asPostgresWrites(iso: string): string {
  const [date, rest] = iso.split('T') as [string, string];
  const [time, fraction] = rest.slice(0, -1).split('.') as [string, string];
  const trimmed = fraction.replace(/0+$/, '');
  return `${date} ${time}${trimmed ? `.${trimmed}` : ''}+00`;
}

describe('timestamps read from PostgreSQL (isoFromUtcTimestamp)', () => {
  it('when PostgreSQL writes a UTC timestamp of milliseconds, then the ISO string is the one a Date gives, for 10,000 instants from year 1000 to 9999', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const from = Date.UTC(1000, 0, 1);
    const to = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    const instants = [from, to, Date.UTC(2026, 1, 28, 23, 59, 59, 999), Date.UTC(2028, 1, 29), Date.UTC(2026, 2, 2, 15, 0, 0, 57)];
    for (let i = 0; i < 10_000; i++) instants.push(from + Math.floor(random() * (to - from)));
    for (const instant of instants) {
      const text = asPostgresWrites(new Date(instant).toISOString());
      expect(isoFromUtcTimestamp(text), text).toBe(generalParse(text).toISOString());
    }
  });

  it('when the text is anything else (another offset, microseconds, a year before 1000, BC, infinity), then it is left to the general parser', () => {
    for (const text of [
      '2026-03-02 15:00:00.123456+00',
      '2026-03-02 15:00:00+01',
      '2026-03-02 15:00:00.5+05:30',
      '0999-12-31 23:59:59+00',
      '2026-03-02 15:00:00+00 BC',
      'infinity',
      '-infinity',
      '2026-03-02T15:00:00Z',
    ]) {
      expect(isoFromUtcTimestamp(text), text).toBeUndefined();
    }
  });
});

describe.skipIf(testDatabaseKind() !== 'postgres')('timestamps on PostgreSQL', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = openDatabase(database.url, { poolSize: 1 });
  });

  afterAll(async () => {
    await handle.close();
    await database.destroy();
  });

  it('when timestamps are stored and read back, then each reads as the ISO string of its instant, milliseconds and microseconds alike', async () => {
    const rows = await sql<{ stored: string }>`
      select unnest(array[
        '2026-03-02T15:00:00.000Z', '2026-03-02T15:00:00.057Z', '2026-12-31T23:59:59.999Z', '2026-03-02T15:00:00.123456Z', '1969-07-20T20:17:40.000Z'
      ]::timestamptz[]) as stored`.execute(handle.db);
    expect(rows.rows.map((row) => row.stored)).toEqual([
      '2026-03-02T15:00:00.000Z',
      '2026-03-02T15:00:00.057Z',
      '2026-12-31T23:59:59.999Z',
      '2026-03-02T15:00:00.123Z',
      '1969-07-20T20:17:40.000Z',
    ]);
  });
});
