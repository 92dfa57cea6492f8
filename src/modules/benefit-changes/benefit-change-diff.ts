import { compareDates } from '../../shared/dates.ts';
import { lastDayWhenReplaced } from '../coverage/coverage-rules.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { CHANGE_KINDS, type BenefitChangeStatus, type ChangeKind } from './benefit-change.table.ts';

/** One enrolled plan, as far as a carrier cares: what covers whom, from when to when, for how much. */
export interface CoverageItem {
  enrolledPlanId: string;
  planId: string;
  /** The plan's carrier group: the one its benefit changes are sent to. */
  groupId: string;
  /** The plan `planId` renews (its predecessor), if any: moving from that plan to this one is not a plan change. */
  previousPlanId: string | null;
  lineOfCoverage: LineOfCoverage;
  effectiveStart: string | null;
  effectiveEnd: string | null;
  dependentIds: readonly string[];
  volumeCents: number | null;
  /** The covered dependents' volumes in force, when the caller knows them (a change to one is a volume_change). */
  dependentVolumeCents?: ReadonlyMap<string, number | null>;
  employerContributionCents: number | null;
  memberContributionCents: number | null;
}

/** What an approved enrollment does to one line of coverage with one carrier group (docs/decisions.md "Benefit changes and carriers"). */
export interface LineChange {
  lineOfCoverage: LineOfCoverage;
  status: BenefitChangeStatus;
  /** In CHANGE_KINDS order; empty unless status is 'change'. */
  changes: ChangeKind[];
  previous: CoverageItem | null;
  next: CoverageItem | null;
  /**
   * The dates the carrier needs: the next coverage's start and end (new, change, no_change); for removed, the
   * previous coverage's start and its last day (lastDayWhenReplaced).
   */
  coverageStart: string | null;
  coverageEnd: string | null;
}

/**
 * The benefit changes of a coverage starting on `start` (docs/decisions.md "Benefit changes and carriers"):
 * `previous` is what the carriers were told about the member's lines it touches (the carrier ledger's
 * `toldCoverageAt`: usually one item per line, more when carriers of several groups hold the line), `next` the
 * plans it elects (one per line), `waivedLines` the lines it waives. One entry per line and carrier group it
 * touches, elected lines first in `next` order, then waived ones. On an elected line, every carrier of
 * another group that holds it is told it ends (`removed`) before the new plan's group hears of it (`new`, or
 * a `change` when that group holds the line already): each carrier hears about its own side of a move.
 * Lines it does not mention keep their coverage and get no entry, and waiving a line no carrier holds
 * changes nothing.
 */
export function diffCoverage(
  previous: readonly CoverageItem[],
  next: readonly CoverageItem[],
  waivedLines: readonly LineOfCoverage[],
  start: string,
): LineChange[] {
  const previousByLine = new Map<LineOfCoverage, CoverageItem[]>();
  for (const item of previous) previousByLine.set(item.lineOfCoverage, [...(previousByLine.get(item.lineOfCoverage) ?? []), item]);
  const out: LineChange[] = [];
  for (const item of next) {
    const befores = previousByLine.get(item.lineOfCoverage) ?? [];
    for (const before of befores) if (before.groupId !== item.groupId) out.push(removed(before, start));
    const before = befores.find((candidate) => candidate.groupId === item.groupId);
    if (before === undefined) {
      out.push(added(item));
      continue;
    }
    const changes = changeKinds(before, item);
    out.push({
      lineOfCoverage: item.lineOfCoverage,
      status: changes.length === 0 ? 'no_change' : 'change',
      changes,
      previous: before,
      next: item,
      coverageStart: item.effectiveStart,
      coverageEnd: item.effectiveEnd,
    });
  }
  const elected = new Set(next.map((item) => item.lineOfCoverage));
  for (const line of new Set(waivedLines)) {
    if (elected.has(line)) continue;
    for (const before of previousByLine.get(line) ?? []) out.push(removed(before, start));
  }
  return out;
}

function added(item: CoverageItem): LineChange {
  return {
    lineOfCoverage: item.lineOfCoverage,
    status: 'new',
    changes: [],
    previous: null,
    next: item,
    coverageStart: item.effectiveStart,
    coverageEnd: item.effectiveEnd,
  };
}

function removed(item: CoverageItem, start: string): LineChange {
  return {
    lineOfCoverage: item.lineOfCoverage,
    status: 'removed',
    changes: [],
    previous: item,
    next: null,
    coverageStart: item.effectiveStart,
    coverageEnd: lastDayWhenReplaced(item, start),
  };
}

/** What differs between two coverage items of one line and group, in CHANGE_KINDS order. */
export function changeKinds(before: CoverageItem, after: CoverageItem): ChangeKind[] {
  const differs: Record<ChangeKind, boolean> = {
    // Next year's plan that renews the one before (its direct successor) is the same coverage.
    plan_change: before.planId !== after.planId && after.previousPlanId !== before.planId,
    // A mid-year change to the same plan keeps the plan year's end; a renewal moves it.
    // A retroactive change also moves the start earlier (a newborn covered from birth, before the coverage told).
    date_change:
      before.effectiveEnd !== after.effectiveEnd ||
      (before.effectiveStart !== null && after.effectiveStart !== null && compareDates(after.effectiveStart, before.effectiveStart) < 0),
    dependent_change: !sameSet(before.dependentIds, after.dependentIds),
    volume_change: before.volumeCents !== after.volumeCents || dependentVolumeChanged(before, after),
    contribution_change:
      before.employerContributionCents !== after.employerContributionCents || before.memberContributionCents !== after.memberContributionCents,
  };
  return CHANGE_KINDS.filter((kind) => differs[kind]);
}

/** Whether a dependent covered before and after has another volume in force (known on both sides). */
function dependentVolumeChanged(before: CoverageItem, after: CoverageItem): boolean {
  const was = before.dependentVolumeCents;
  const is = after.dependentVolumeCents;
  if (was === undefined || is === undefined) return false;
  return [...is].some(([id, volume]) => was.has(id) && was.get(id) !== volume);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((id) => right.has(id));
}
