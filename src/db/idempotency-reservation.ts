import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../shared/errors.ts';
import type { Executor } from './database.ts';

/** The Idempotency-Key reservation a request holds while it runs (see http/idempotency.ts). */
export interface IdempotencyReservation {
  readonly apiKeyId: string;
  readonly key: string;
  /** The holder's random token: a retry that takes the reservation over gets a new one. */
  readonly owner: string;
  /**
   * True while the request runs; false from the moment its response is being kept, so that work it left
   * behind (a job it woke, which inherits its async context) is never taken for the request's own.
   */
  open: boolean;
}

const current = new AsyncLocalStorage<IdempotencyReservation>();

/**
 * Runs `rest` (the remainder of the request) with its reservation as the current one. Every continuation after
 * an `await` runs in the context of the function that awaited, so each write transaction sees the reservation
 * of the request that started it, also when transactions of several requests share one SQLite commit group.
 */
export function runWithReservation(reservation: IdempotencyReservation, rest: () => void): void {
  current.run(reservation, rest);
}

/**
 * Marks the current request's reservation committed, inside the write transaction `trx`: the mark commits if
 * and only if the write does, so after a crash a retry can tell a request that changed something (never run
 * again) from one that did not (run it). Throws, rolling the transaction back, when the reservation is no
 * longer this request's: a retry took it over (the lease ran out) and runs the request itself. Every write
 * transaction of a request calls this through ChangeCommit.commit (modules/change-commit/change-commit.ts), also
 * when it records no event. Does nothing outside a request
 * with an Idempotency-Key.
 */
export async function markReservationCommitted(trx: Executor, now: Date): Promise<void> {
  const reservation = current.getStore();
  if (!reservation?.open) return;
  const result = await trx
    .updateTable('idempotency_keys')
    .set({ state: 'committed', leased_at: now.toISOString() })
    .where('api_key_id', '=', reservation.apiKeyId)
    .where('idempotency_key', '=', reservation.key)
    .where('owner', '=', reservation.owner)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) {
    throw new AppError(
      'idempotency_error',
      'A retry with this Idempotency-Key took over while this request was still running, so this request changed nothing; the retry carries it out.',
    );
  }
}
