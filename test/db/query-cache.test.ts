import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.ts';
import { cachedQuery, rememberReads } from '../../src/db/query-cache.ts';
import { findByIdInScope, inScope } from '../../src/db/scope.ts';
import type { Executor } from '../../src/db/database.ts';
import type { Scope } from '../../src/shared/tenancy.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const CREATED_AT = '2026-11-22T08:30:00.123Z';

describe(`cachedQuery on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let db: Kysely<Database>;

  beforeEach(async () => {
    database = await createTestDatabase();
    db = database.db;
    await db
      .insertInto('providers')
      .values([
        { id: 'prov_1', name: 'One', created_at: CREATED_AT },
        { id: 'prov_2', name: 'Two', created_at: CREATED_AT },
      ])
      .execute();
    const employer = (id: string, providerId: string) => ({
      id,
      provider_id: providerId,
      legal_name: `Employer ${id}`,
      address: JSON.stringify({ line1: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701' }),
      metadata: '{}',
      created_at: CREATED_AT,
    });
    await db
      .insertInto('employers')
      .values([employer('er_a', 'prov_1'), employer('er_b', 'prov_1'), employer('er_c', 'prov_2')])
      .execute();
  });

  afterEach(async () => {
    await database.destroy();
  });

  function employers(executor: Executor, scope: Scope) {
    return inScope(executor.selectFrom('employers').selectAll(), scope, 'employers', 'id');
  }
  const findEmployer = findByIdInScope(employers);

  it('when the same shape runs with other values, then each call gets the rows of its own values, as the uncached query would', async () => {
    for (const [scope, id] of [
      [{ providerId: 'prov_1', employerId: null }, 'er_a'],
      [{ providerId: 'prov_1', employerId: null }, 'er_b'],
      [{ providerId: 'prov_1', employerId: null }, 'er_c'],
      [{ providerId: 'prov_2', employerId: null }, 'er_c'],
      [{ providerId: 'prov_1', employerId: 'er_a' }, 'er_a'],
      [{ providerId: 'prov_1', employerId: 'er_a' }, 'er_b'],
      [{ providerId: 'prov_1', employerId: 'er_b' }, 'er_b'],
    ] as const) {
      const uncached = await employers(db, scope).where('id', '=', id).executeTakeFirst();
      expect(await findEmployer(db, scope, id)).toEqual(uncached);
    }
    expect((await findEmployer(db, { providerId: 'prov_1', employerId: null }, 'er_b'))?.legal_name).toBe('Employer er_b');
    expect(await findEmployer(db, { providerId: 'prov_1', employerId: 'er_a' }, 'er_b')).toBeUndefined();
    expect(await findEmployer(db, { providerId: 'prov_2', employerId: null }, 'er_a')).toBeUndefined();
  });

  it("when run inside a transaction, then it reads that transaction's own uncommitted writes", async () => {
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('employers').set({ legal_name: 'Renamed' }).where('id', '=', 'er_a').execute();
      expect((await findEmployer(trx, { providerId: 'prov_1', employerId: null }, 'er_a'))?.legal_name).toBe('Renamed');
    });
  });

  it("when an argument is unused or bound twice, then the query still binds each call's own values", async () => {
    const unused = cachedQuery((executor, id: string, _ignored: string) => executor.selectFrom('employers').select('id').where('id', '=', id));
    expect(await unused(db, 'er_a', 'x')).toEqual([{ id: 'er_a' }]);
    expect(await unused(db, 'er_b', 'y')).toEqual([{ id: 'er_b' }]);
    const twice = cachedQuery((executor, id: string) => executor.selectFrom('employers').select('id').where('id', '=', id).where('id', '>=', id));
    expect(await twice(db, 'er_a')).toEqual([{ id: 'er_a' }]);
    expect(await twice(db, 'er_c')).toEqual([{ id: 'er_c' }]);
  });

  it('when an argument is a list (an in list), then each length is its own shape and every call binds its own elements', async () => {
    const some = cachedQuery((executor, providerId: string, ids: readonly string[]) =>
      executor.selectFrom('employers').select('id').where('provider_id', '=', providerId).where('id', 'in', ids).orderBy('id'),
    );
    for (const [providerId, ids] of [
      ['prov_1', ['er_a']],
      ['prov_1', ['er_b']],
      ['prov_1', ['er_b', 'er_a']],
      ['prov_1', ['er_c', 'er_a']],
      ['prov_2', ['er_c', 'er_a', 'er_b']],
      ['prov_1', ['er_c', 'er_a', 'er_b']],
      ['prov_1', ['er_a', 'er_a']],
    ] as const) {
      const uncached = await db.selectFrom('employers').select('id').where('provider_id', '=', providerId).where('id', 'in', ids).orderBy('id').execute();
      expect(await some(db, providerId, ids), `${providerId} ${ids.join(',')}`).toEqual(uncached);
    }
    expect(await some(db, 'prov_1', ['er_b', 'er_a'])).toEqual([{ id: 'er_a' }, { id: 'er_b' }]);
    await expect(some(db, 'prov_1', [])).rejects.toThrow(/empty list/);
    // Past the longest list a shape takes (32), the query is built for the call: the same rows.
    const many = [...Array.from({ length: 40 }, (_value, index) => `er_none_${index}`), 'er_b'];
    expect(await some(db, 'prov_1', many)).toEqual([{ id: 'er_b' }]);
  });

  it('when a transaction remembers its reads, then a rememberable query answers its first rows again (as copies), per values; other queries and transactions read anew', async () => {
    const nameOf = (rememberable: boolean) =>
      cachedQuery((executor, id: string) => executor.selectFrom('employers').select(['id', 'legal_name']).where('id', '=', id), { rememberable });
    const remembered = nameOf(true);
    const plain = nameOf(false);
    const rename = (executor: Executor, id: string, legalName: string) =>
      executor.updateTable('employers').set({ legal_name: legalName }).where('id', '=', id).execute();
    await db.transaction().execute(async (trx) => {
      rememberReads(trx);
      const first = await remembered(trx, 'er_a');
      expect(first).toEqual([{ id: 'er_a', legal_name: 'Employer er_a' }]);
      first[0]!.legal_name = 'changed by the caller';
      await rename(trx, 'er_a', 'Renamed in the transaction');
      expect(await remembered(trx, 'er_a')).toEqual([{ id: 'er_a', legal_name: 'Employer er_a' }]);
      expect(await remembered(trx, 'er_b')).toEqual([{ id: 'er_b', legal_name: 'Employer er_b' }]);
      expect(await plain(trx, 'er_a')).toEqual([{ id: 'er_a', legal_name: 'Renamed in the transaction' }]);
    });
    await db.transaction().execute(async (trx) => {
      expect(await remembered(trx, 'er_a')).toEqual([{ id: 'er_a', legal_name: 'Renamed in the transaction' }]);
      await rename(trx, 'er_a', 'Renamed again');
      expect(await remembered(trx, 'er_a')).toEqual([{ id: 'er_a', legal_name: 'Renamed again' }]);
    });
    expect(await remembered(db, 'er_a')).toEqual([{ id: 'er_a', legal_name: 'Renamed again' }]);
  });

  it('when an argument is transformed before binding, then the query is refused instead of freezing a value into it', async () => {
    const transforms = cachedQuery((executor, name: string) => executor.selectFrom('employers').selectAll().where('legal_name', 'like', `${name}%`));
    await expect(transforms(db, 'Employer')).rejects.toThrow(/not transformed/);
  });
});
