import type { Kysely } from 'kysely';
import { ConcurrentChange } from '../shared/errors.ts';
import type { Transaction } from './database.ts';
import type { Database } from './schema.ts';

/** PostgreSQL's SQLSTATEs for a transaction aborted because of another one: deadlock_detected, serialization_failure. */
const TRANSIENT_CONFLICT_CODES: ReadonlySet<string> = new Set(['40P01', '40001']);

/**
 * True when the database aborted a transaction because of a concurrent one (a deadlock or a serialization
 * failure): the transaction rolled back whole, and running it again may succeed. PostgreSQL only; SQLite has
 * one writer and waits (sqlite-dialect.ts) instead.
 */
export function isTransientConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && TRANSIENT_CONFLICT_CODES.has(code);
}

/**
 * Runs `work` in a transaction; if the database aborts it for a concurrent one (isTransientConflict), runs it
 * once more in a new transaction, and if that is aborted too, throws ConcurrentChange (a 409 the client may
 * retry). Only for the outermost transaction of a request, whose `work` has no effect outside the database
 * before it commits: everything it wrote, its events and the Idempotency-Key mark (markReservationCommitted)
 * roll back with it, so the second run starts from nothing.
 */
export async function transactionRetriedOnConflict<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (!isTransientConflict(error)) throw error;
  }
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (isTransientConflict(error)) throw new ConcurrentChange();
    throw error;
  }
}
