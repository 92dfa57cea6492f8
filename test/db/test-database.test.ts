import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKind } from '../helpers/database.ts';

// The database this test project runs on answers and is migrated (the spawned runs of
// test/api/test-postgres-fallback.test.ts run this file).
describe('the test database', () => {
  it('when made, then it is migrated and answers', async () => {
    const database = await createTestDatabase();
    try {
      const row = await database.db
        .selectFrom('settings')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(row.count)).toBeGreaterThanOrEqual(0);
      expect(database.url.startsWith(testDatabaseKind() === 'postgres' ? 'postgres' : 'sqlite')).toBe(true);
    } finally {
      await database.destroy();
    }
  });
});
