import { PostgresAdapter, type SelectQueryBuilder } from 'kysely';
import { cachedQuery } from './query-cache.ts';
import type { Scope } from '../shared/tenancy.ts';
import type { Executor, Transaction } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Confines a query to what the caller may see: one provider always, and one employer for employer-scoped
 * keys. `employerColumn` is the column holding the employer id (`id` on the employers table itself), or null
 * for provider-wide records such as carriers.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's builders are generic over any table here.
export function inScope<QB extends SelectQueryBuilder<any, any, any>>(query: QB, scope: Scope, table: string, employerColumn: string | null): QB {
  let scoped = query.where(`${table}.provider_id`, '=', scope.providerId);
  if (scope.employerId !== null && employerColumn !== null) {
    scoped = scoped.where(`${table}.${employerColumn}`, '=', scope.employerId);
  }
  return scoped as QB;
}

/**
 * `SELECT ... FOR UPDATE` on PostgreSQL; SQLite needs none, its transactions already hold the write lock. It takes
 * the transaction, not any executor: a lock taken outside one is released at once, so it must not typecheck.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
export function forUpdate<QB extends SelectQueryBuilder<any, any, any>>(trx: Transaction<Database>, query: QB): QB {
  return trx.getExecutor().adapter instanceof PostgresAdapter ? (query.forUpdate() as QB) : query;
}

/**
 * `SELECT ... FOR NO KEY UPDATE` on PostgreSQL: the lock for changing a row but not its key. Unlike FOR UPDATE
 * it lets other transactions insert rows that reference this one (their foreign key check takes KEY SHARE), so
 * a change that records events (and so webhook deliveries referencing every endpoint) cannot deadlock another.
 * Like forUpdate, it takes the transaction the lock lives in.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
export function forNoKeyUpdate<QB extends SelectQueryBuilder<any, any, any>>(trx: Transaction<Database>, query: QB): QB {
  return trx.getExecutor().adapter instanceof PostgresAdapter ? (query.forNoKeyUpdate() as QB) : query;
}

/**
 * The `find<Record>ById` of a module, over its scoped query: compiled once per shape (see cachedQuery), since
 * every GET, PATCH and action on a record runs it.
 */
export function findByIdInScope<Row>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  scoped: (db: Executor, scope: Scope) => SelectQueryBuilder<any, any, Row>,
): (db: Executor, scope: Scope, id: string) => Promise<Row | undefined> {
  const query = cachedQuery((db, providerId: string, employerId: string | null, id: string) => scoped(db, { providerId, employerId }).where('id', '=', id));
  return async (db, scope, id) => (await query(db, scope.providerId, scope.employerId, id))[0];
}
