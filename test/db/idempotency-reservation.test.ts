import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markReservationCommitted, runWithReservation, type IdempotencyReservation } from '../../src/db/idempotency-reservation.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const NOW = '2026-03-02T15:00:00.000Z';
const API_KEY_ID = 'key_reservations';

describe(`Idempotency-Key reservations marked by write transactions on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
    const db = database.db;
    await db.insertInto('providers').values({ id: 'prov_1', name: 'Provider', created_at: NOW }).execute();
    await db
      .insertInto('api_keys')
      .values({
        id: API_KEY_ID,
        provider_id: 'prov_1',
        role: 'admin',
        employer_id: null,
        name: null,
        lookup: 'lookup',
        key_hash: 'hash',
        redacted: 'r',
        created_at: NOW,
        revoked_at: null,
      })
      .execute();
  });

  afterEach(async () => {
    await database.destroy();
  });

  async function reserve(key: string, owner: string): Promise<void> {
    await database.db
      .insertInto('idempotency_keys')
      .values({
        api_key_id: API_KEY_ID,
        idempotency_key: key,
        request_hash: 'h',
        state: 'in_progress',
        response_status: null,
        response_body: null,
        created_at: NOW,
        owner,
        leased_at: NOW,
      })
      .execute();
  }

  async function reservations(): Promise<{ key: string; state: string; owner: string | null }[]> {
    const rows = await database.db.selectFrom('idempotency_keys').select(['idempotency_key', 'state', 'owner']).orderBy('idempotency_key').execute();
    return rows.map((row) => ({ key: row.idempotency_key, state: row.state, owner: row.owner }));
  }

  async function writtenSettings(): Promise<string[]> {
    return (await database.db.selectFrom('settings').select('key').orderBy('key').execute()).map((row) => row.key);
  }

  /** A request's write: a row and the mark, in one transaction, run inside the request's reservation. */
  function writeAs(reservation: IdempotencyReservation | undefined, name: string): Promise<void> {
    const write = () =>
      database.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('settings')
          .values({ key: `written-${name}`, value: name })
          .execute();
        await markReservationCommitted(trx, new Date(NOW));
      });
    if (!reservation) return write();
    return new Promise((resolve, reject) => runWithReservation(reservation, () => void write().then(resolve, reject)));
  }

  const reservationOf = (key: string, owner = `owner-${key}`): IdempotencyReservation => ({ apiKeyId: API_KEY_ID, key, owner, open: true });

  it("when requests' transactions run in one commit group, then each marks its own key, and one whose key was taken over rolls back alone", async () => {
    for (const key of ['a', 'b', 'c']) await reserve(key, `owner-${key}`);
    await database.db.updateTable('idempotency_keys').set({ owner: 'the-retry' }).where('idempotency_key', '=', 'c').execute();

    // Held while the three start, so that they queue and then run back to back (on SQLite: savepoints of one group).
    const blocker = await database.db.startTransaction().execute();
    const outcomes = Promise.allSettled(['a', 'c', 'b'].map((key) => writeAs(reservationOf(key), key)));
    await delay(10);
    await blocker.commit().execute();
    const results = await outcomes;

    expect(results.map((result) => (result.status === 'rejected' ? (result.reason as { type?: string }).type : result.status))).toEqual([
      'fulfilled',
      'idempotency_error',
      'fulfilled',
    ]);
    expect(await reservations()).toEqual([
      { key: 'a', state: 'committed', owner: 'owner-a' },
      { key: 'b', state: 'committed', owner: 'owner-b' },
      { key: 'c', state: 'in_progress', owner: 'the-retry' },
    ]);
    expect(await writtenSettings()).toEqual(['written-a', 'written-b']);
  });

  it('when no request holds a reservation (a job, the CLI) or its response is being kept, then the write goes ahead and marks nothing', async () => {
    await reserve('a', 'owner-a');

    await writeAs(undefined, 'job');
    await writeAs({ ...reservationOf('a', 'someone-else'), open: false }, 'after-response');

    expect(await reservations()).toEqual([{ key: 'a', state: 'in_progress', owner: 'owner-a' }]);
    expect(await writtenSettings()).toEqual(['written-after-response', 'written-job']);
  });
});
