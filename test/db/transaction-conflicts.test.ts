import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTransientConflict, transactionRetriedOnConflict } from '../../src/db/transaction-conflicts.ts';
import { registerErrorHandler } from '../../src/http/errors.ts';
import { ConcurrentChange } from '../../src/shared/errors.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const NOW = '2026-03-02T15:00:00.000Z';

/** What pg throws when PostgreSQL aborts a transaction (its SQLSTATE in `code`). */
function databaseError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isTransientConflict', () => {
  it.each([
    ['a deadlock (40P01)', databaseError('40P01', 'deadlock detected'), true],
    ['a serialization failure (40001)', databaseError('40001', 'could not serialize access due to concurrent update'), true],
    ['a unique violation (23505)', databaseError('23505', 'duplicate key value violates unique constraint'), false],
    ['SQLite busy (a number, not a SQLSTATE)', Object.assign(new Error('database is locked'), { code: 5 }), false],
    ['an error without a code', new Error('boom'), false],
    ['not an error', undefined, false],
  ])('when the error is %s, then it is %s', (_name, error, expected) => {
    expect(isTransientConflict(error)).toBe(expected);
  });
});

describe(`a request's transaction retried once on a conflict, on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.destroy();
  });

  const providerNames = async () => (await database.db.selectFrom('providers').select('name').orderBy('name').execute()).map((row) => row.name);

  it('when the first run is aborted as a deadlock, then it runs again from nothing and its result is returned', async () => {
    let runs = 0;
    const result = await transactionRetriedOnConflict(database.db, async (trx) => {
      runs += 1;
      await trx
        .insertInto('providers')
        .values({ id: `prov_${runs}`, name: `Run ${runs}`, created_at: NOW })
        .execute();
      if (runs === 1) throw databaseError('40P01', 'deadlock detected');
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(2);
    expect(await providerNames()).toEqual(['Run 2']);
  });

  it('when both runs are aborted, then the caller gets ConcurrentChange, a 409 invalid_state, and nothing was written', async () => {
    let runs = 0;
    const outcome = transactionRetriedOnConflict(database.db, async (trx) => {
      runs += 1;
      await trx
        .insertInto('providers')
        .values({ id: `prov_${runs}`, name: `Run ${runs}`, created_at: NOW })
        .execute();
      throw databaseError('40001', 'could not serialize access due to concurrent update');
    });
    const error = await outcome.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConcurrentChange);
    expect(error).toMatchObject({ type: 'invalid_state', statusCode: 409 });
    expect(runs).toBe(2);
    expect(await providerNames()).toEqual([]);
  });

  it('when the run fails for another reason, then it is not run again and the error is the caller’s', async () => {
    let runs = 0;
    const failure = new Error('not a conflict');
    await expect(
      transactionRetriedOnConflict(database.db, async () => {
        runs += 1;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(runs).toBe(1);
  });
});

describe('the error handler', () => {
  it.each([
    ['a deadlock no retry absorbed', databaseError('40P01', 'deadlock detected')],
    ['a serialization failure no retry absorbed', databaseError('40001', 'could not serialize access')],
    ['ConcurrentChange', new ConcurrentChange()],
  ])('when a request ends in %s, then the answer is a 409 invalid_state saying to send it again, never a 500', async (_name, error) => {
    const app = Fastify();
    registerErrorHandler(app);
    app.get('/collide', async () => {
      throw error;
    });
    const response = await app.inject({ method: 'GET', url: '/collide' });
    await app.close();
    expect(response.statusCode).toBe(409);
    const body = response.json<{ type: string; message: string }>();
    expect(body.type).toBe('invalid_state');
    expect(body.message).toMatch(/send the request again/);
    expect(body.message).not.toMatch(/deadlock|serialize/);
  });
});
