/**
 * The carrier ledger (docs/architecture.md "The carrier ledger"; docs/decisions.md "Benefit changes and
 * carriers"): per member, carrier group and line, what the carrier has been told. Every benefit change writes
 * the coverage it tells (`recordTold`), which counts as told once the change reaches the carrier
 * (`syncWithDelivery`, called by every delivery transition of benefit-change.repository.ts). Benefit changes
 * are computed against it (`toldCoverageAt`, coverage-change-recorder.ts), never against our own coverage
 * before a change; coverage in force never reads it.
 */
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { newId } from '../../shared/ids.ts';
import type { CoverageItem, LineChange } from '../benefit-changes/benefit-change-diff.ts';
import type { DeliveryState } from '../benefit-changes/benefit-change.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { believedOn, ledgerKey, type LedgerByKey, type LedgerEntry } from './carrier-ledger-rules.ts';
import * as repository from './carrier-ledger.repository.ts';
import type { CarrierLedgerRow, LedgerSource } from './carrier-ledger.table.ts';

/** A CoverageItem as stored (JSON has no Map). */
type StoredItem = Omit<CoverageItem, 'dependentVolumeCents'> & { dependentVolumeCents?: [string, number | null][] };

function storedItem(item: CoverageItem): StoredItem {
  const { dependentVolumeCents, ...rest } = item;
  return dependentVolumeCents === undefined ? rest : { ...rest, dependentVolumeCents: [...dependentVolumeCents] };
}

function itemOf(row: CarrierLedgerRow): CoverageItem {
  const { dependentVolumeCents, ...rest } = JSON.parse(row.item) as StoredItem;
  return dependentVolumeCents === undefined ? rest : { ...rest, dependentVolumeCents: new Map(dependentVolumeCents) };
}

export function entryOf(row: CarrierLedgerRow): LedgerEntry {
  return { groupId: row.group_id, lineOfCoverage: row.line_of_coverage, start: row.coverage_start, end: row.coverage_end, item: itemOf(row) };
}

/** What a line change tells its carrier: an add or a change the next coverage, open-ended; a removal the last day. */
export function entryToldBy(change: LineChange): LedgerEntry {
  if (change.status === 'removed') {
    const previous = change.previous!;
    return {
      groupId: previous.groupId,
      lineOfCoverage: change.lineOfCoverage,
      start: change.coverageStart,
      end: change.coverageEnd,
      item: { ...previous, effectiveEnd: change.coverageEnd },
    };
  }
  const next = change.next!;
  return { groupId: next.groupId, lineOfCoverage: change.lineOfCoverage, start: next.effectiveStart, end: null, item: next };
}

interface Owner {
  providerId: string;
  employerId: string;
  memberId: string;
}

function ledgerRow(
  owner: Owner,
  entry: LedgerEntry,
  source: LedgerSource,
  benefitChangeId: string | null,
  at: string,
  toldAt: string | null,
): CarrierLedgerRow {
  return {
    id: newId('carrier_ledger'),
    provider_id: owner.providerId,
    employer_id: owner.employerId,
    group_id: entry.groupId,
    member_id: owner.memberId,
    line_of_coverage: entry.lineOfCoverage,
    benefit_change_id: benefitChangeId,
    source,
    enrolled_plan_id: entry.item.enrolledPlanId,
    plan_id: entry.item.planId,
    coverage_start: entry.start,
    coverage_end: entry.end,
    item: JSON.stringify(storedItem(entry.item)),
    told_at: toldAt,
    refused_at: null,
    created_at: at,
  };
}

/**
 * Writes what each recorded benefit change tells its carrier (in the transaction that records them), told
 * at once for changes with nothing to send (already `completed`: no_change).
 */
export async function recordTold(
  trx: Transaction<Database>,
  owner: Owner,
  changes: readonly { benefitChangeId: string; change: LineChange; completed: boolean }[],
  at: string,
): Promise<void> {
  await repository.insertLedgerRows(
    trx,
    changes.map(({ benefitChangeId, change, completed }) =>
      ledgerRow(owner, entryToldBy(change), 'benefit_change', benefitChangeId, at, completed ? at : null),
    ),
  );
}

/** Coverage the carrier already holds (a `carrier_sync` enrollment): told, open-ended, from its start. */
export async function recordHeldCoverage(trx: Transaction<Database>, owner: Owner, items: readonly CoverageItem[], at: string): Promise<void> {
  await repository.insertLedgerRows(
    trx,
    items.map((item) =>
      ledgerRow(
        owner,
        { groupId: item.groupId, lineOfCoverage: item.lineOfCoverage, start: item.effectiveStart, end: null, item },
        'carrier_sync',
        null,
        at,
        at,
      ),
    ),
  );
}

/**
 * The carriers' picture of the member's `lines` once every recorded change reaches them: per group and line,
 * every entry recorded (told or waiting), oldest first, but none a carrier refused.
 */
export async function expectedCoverage(db: Executor, memberId: string, lines: readonly LineOfCoverage[]): Promise<LedgerByKey> {
  const entries = (await repository.findStandingRows(db, memberId, [...new Set(lines)])).map(entryOf);
  return Map.groupBy(entries, (entry) => ledgerKey(entry.groupId, entry.lineOfCoverage));
}

/**
 * Keeps the ledger in step with a delivery transition of benefit changes (benefit-change.repository.ts calls
 * it for every one): `sent` or `completed` reached the carrier; `rejected` is the carrier's refusal; back to
 * waiting (a 999/TA1 rejection, a completion reopened) did not reach it.
 */
export async function syncWithDelivery(trx: Transaction<Database>, changeIds: readonly string[], state: DeliveryState, at: string): Promise<void> {
  switch (state) {
    case 'sent':
    case 'completed':
      return repository.markTold(trx, changeIds, at);
    case 'rejected':
      return repository.markRefused(trx, changeIds, at);
    case 'manual':
    case 'queued':
    case 'awaiting_file':
      return repository.markUntold(trx, changeIds);
  }
}

/** What a carrier group believes about one line of a member's coverage on a day. */
export interface CarrierBelief {
  lineOfCoverage: LineOfCoverage;
  planId: string;
  enrolledPlanId: string;
  dependentIds: readonly string[];
  volumeCents: number | null;
  /** The first day told, and the last (null: open-ended). */
  start: string | null;
  end: string | null;
}

/**
 * What carrier group `groupId` believes about member `memberId` on `day`, line by line: the coverage it was
 * told (delivered, accepted, completed by hand; not sent back by a 999/TA1, not refused) that covers `day`.
 * The reconciliation reads this; nothing that decides coverage does.
 */
export async function carrierBelief(db: Executor, input: { providerId: string; groupId: string; memberId: string; day: string }): Promise<CarrierBelief[]> {
  const told = (await repository.findToldRows(db, input.providerId, input.groupId, input.memberId)).map(entryOf);
  const beliefs: CarrierBelief[] = [];
  for (const [line, toldOfLine] of Map.groupBy(told, (entry) => entry.lineOfCoverage)) {
    const entry = believedOn(toldOfLine, input.day);
    if (entry === undefined) continue;
    beliefs.push({
      lineOfCoverage: line,
      planId: entry.item.planId,
      enrolledPlanId: entry.item.enrolledPlanId,
      dependentIds: entry.item.dependentIds,
      volumeCents: entry.item.volumeCents,
      start: entry.start,
      end: entry.end,
    });
  }
  return beliefs;
}
