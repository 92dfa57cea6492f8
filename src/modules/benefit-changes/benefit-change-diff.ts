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
 * The benefit changes of an enrollment whose coverage starts on `start`: `previous` is the member's coverage
 * in force before it (at most one item per line), `next` the plans it elects (one per line), `waivedLines` the
 * lines it waives. One entry per line and carrier group the enrollment touches, elected lines first in `next`
 * order, then waived ones. A line that moves to a plan of another group is two entries, `removed` for the old
 * group then `new` for the new one: each carrier hears about its own side of the move. Lines it does not
 * mention keep their coverage and get no entry, and waiving a line the member never had changes nothing.
 */
export function diffCoverage(
  previous: readonly CoverageItem[],
  next: readonly CoverageItem[],
  waivedLines: readonly LineOfCoverage[],
  start: string,
): LineChange[] {
  const previousByLine = new Map(previous.map((item) => [item.lineOfCoverage, item]));
  const out: LineChange[] = [];
  for (const item of next) {
    const before = previousByLine.get(item.lineOfCoverage) ?? null;
    if (before === null) {
      out.push(added(item));
      continue;
    }
    if (before.groupId !== item.groupId) {
      out.push(removed(before, start), added(item));
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
    const before = previousByLine.get(line);
    if (before === undefined || elected.has(line)) continue;
    out.push(removed(before, start));
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

function changeKinds(before: CoverageItem, after: CoverageItem): ChangeKind[] {
  const differs: Record<ChangeKind, boolean> = {
    // Next year's plan that renews the one before (its direct successor) is the same coverage.
    plan_change: before.planId !== after.planId && after.previousPlanId !== before.planId,
    // A mid-year change to the same plan keeps the plan year's end; a renewal moves it.
    date_change: before.effectiveEnd !== after.effectiveEnd,
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
