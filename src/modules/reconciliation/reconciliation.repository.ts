import type { Executor } from '../../db/database.ts';
import type { CarrierLedgerRow } from '../carrier-ledger/carrier-ledger.table.ts';

/**
 * The group's ledger rows the carrier did not refuse (optionally of one member): told ones in the order they
 * reached it, then those still waiting to be sent, in the order they were recorded.
 */
export function findGroupLedgerRows(db: Executor, providerId: string, groupId: string, memberId: string | undefined): Promise<CarrierLedgerRow[]> {
  let query = db.selectFrom('carrier_ledger').selectAll().where('provider_id', '=', providerId).where('group_id', '=', groupId).where('refused_at', 'is', null);
  if (memberId !== undefined) query = query.where('member_id', '=', memberId);
  return query.orderBy('told_at').orderBy('created_at').orderBy('id').execute();
}

/** The last day of each plan's year. */
export async function findPlanEnds(db: Executor, providerId: string, planIds: readonly string[]): Promise<Map<string, string>> {
  if (planIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('plans')
    .select(['id', 'effective_end'])
    .where('provider_id', '=', providerId)
    .where('id', 'in', [...new Set(planIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.effective_end]));
}
