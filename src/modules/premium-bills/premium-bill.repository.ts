import type { Executor } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { PremiumBillRow } from './premium-bill.table.ts';

function premiumBills(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('premium_bills').selectAll(), scope, 'premium_bills', 'employer_id');
}

export async function insertPremiumBill(db: Executor, row: PremiumBillRow): Promise<void> {
  await db.insertInto('premium_bills').values(row).execute();
}

/** A bill of the group, in scope. */
export function findPremiumBill(db: Executor, scope: Scope, groupId: string, id: string): Promise<PremiumBillRow | undefined> {
  return premiumBills(db, scope).where('group_id', '=', groupId).where('id', '=', id).executeTakeFirst();
}

/** The group's bills, newest first. */
export function listPremiumBills(db: Executor, scope: Scope, groupId: string, page: PageRequest): Promise<Page<PremiumBillRow>> {
  return paginate(premiumBills(db, scope).where('group_id', '=', groupId), page);
}

/**
 * What the group's earlier bills billed: the latest posted bill of each month from `fromPeriod` to the month
 * before `beforePeriod` (a bill posted again for its month replaces the earlier one), its `billed` JSON.
 */
export async function findBilledBefore(db: Executor, groupId: string, fromPeriod: string, beforePeriod: string): Promise<string[]> {
  if (fromPeriod >= beforePeriod) return [];
  const rows = await db
    .selectFrom('premium_bills')
    .select(['period', 'billed', 'created_at', 'id'])
    .where('group_id', '=', groupId)
    .where('period', '>=', fromPeriod)
    .where('period', '<', beforePeriod)
    .orderBy('period')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return [...Map.groupBy(rows, (row) => row.period).values()].map((ofPeriod) => ofPeriod[0]!.billed);
}

/**
 * Benefit changes of the group recorded from `recordedFrom` to before `recordedBefore` (timestamps; the provider's
 * page index finds them) that tell something (new, change,
 * removed): the candidates for our retroactive changes (the rules keep those taking effect before the window).
 */
export function findChangesRecordedSince(db: Executor, providerId: string, groupId: string, recordedFrom: string, recordedBefore: string) {
  return db
    .selectFrom('benefit_changes')
    .select(['id', 'member_id', 'line_of_coverage', 'status', 'coverage_start', 'coverage_end'])
    .where('provider_id', '=', providerId)
    .where('created_at', '>=', recordedFrom)
    .where('created_at', '<', recordedBefore)
    .where('group_id', '=', groupId)
    .where('status', 'in', ['new', 'change', 'removed'])
    .orderBy('member_id')
    .orderBy('created_at')
    .execute();
}

/**
 * The group's plans with their configurations' deduction codes: one row per configuration (configuration_id null
 * for a plan without one), with the plan's line of coverage. What maps payroll's codes to the group.
 */
export function findGroupDeductionCodes(db: Executor, groupId: string) {
  return db
    .selectFrom('plans')
    .leftJoin('plan_configurations', 'plan_configurations.plan_id', 'plans.id')
    .select(['plans.line_of_coverage', 'plan_configurations.id as configuration_id', 'plan_configurations.deduction_code'])
    .where('plans.group_id', '=', groupId)
    .execute();
}
