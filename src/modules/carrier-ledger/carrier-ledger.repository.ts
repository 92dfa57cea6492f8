import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { CarrierLedgerRow } from './carrier-ledger.table.ts';

export async function insertLedgerRows(trx: Transaction<Database>, rows: readonly CarrierLedgerRow[]): Promise<void> {
  if (rows.length > 0) await insertRows(trx, 'carrier_ledger', rows, { rowsPerStatement: 500 });
}

/** A member's ledger rows on `lines` that the carrier did not refuse, oldest first (the order they were recorded). */
export function findStandingRows(db: Executor, memberId: string, lines: readonly LineOfCoverage[]): Promise<CarrierLedgerRow[]> {
  if (lines.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('carrier_ledger')
    .selectAll()
    .where('member_id', '=', memberId)
    .where('line_of_coverage', 'in', [...lines])
    .where('refused_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** What reached one carrier group about one member, in the order it reached it. */
export function findToldRows(db: Executor, providerId: string, groupId: string, memberId: string): Promise<CarrierLedgerRow[]> {
  return db
    .selectFrom('carrier_ledger')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('group_id', '=', groupId)
    .where('member_id', '=', memberId)
    .where('told_at', 'is not', null)
    .where('refused_at', 'is', null)
    .orderBy('told_at')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The rows of `changeIds` reached their carrier at `at` (rows told already keep their first time), and stand:
 * a change completed by hand after a refusal is the carrier holding it after all.
 */
export async function markTold(trx: Transaction<Database>, changeIds: readonly string[], at: string): Promise<void> {
  if (changeIds.length === 0) return;
  await trx
    .updateTable('carrier_ledger')
    .set((eb) => ({ told_at: eb.fn.coalesce('told_at', eb.val(at)), refused_at: null }))
    .where('benefit_change_id', 'in', [...changeIds])
    .execute();
}

/** The rows of `changeIds` did not reach their carrier after all (a 999/TA1 rejection, a change reopened): waiting again. */
export async function markUntold(trx: Transaction<Database>, changeIds: readonly string[]): Promise<void> {
  if (changeIds.length === 0) return;
  await trx
    .updateTable('carrier_ledger')
    .set({ told_at: null })
    .where('benefit_change_id', 'in', [...changeIds])
    .execute();
}

/** The carrier refused the rows of `changeIds` (a business refusal): they count for nothing. */
export async function markRefused(trx: Transaction<Database>, changeIds: readonly string[], at: string): Promise<void> {
  if (changeIds.length === 0) return;
  await trx
    .updateTable('carrier_ledger')
    .set({ refused_at: at })
    .where('benefit_change_id', 'in', [...changeIds])
    .where('refused_at', 'is', null)
    .execute();
}
