import type { LineOfCoverage } from '../plans/plan.table.ts';
import { CHANGE_KINDS, type BenefitChangeStatus, type ChangeKind } from './benefit-change.table.ts';

/** One enrolled plan, as far as a carrier cares: what covers whom, from when to when, for how much. */
export interface CoverageItem {
  enrolledPlanId: string;
  planId: string;
  /** The plan `planId` renews (its predecessor), if any: moving from that plan to this one is not a plan change. */
  previousPlanId: string | null;
  lineOfCoverage: LineOfCoverage;
  effectiveStart: string | null;
  effectiveEnd: string | null;
  dependentIds: readonly string[];
  volumeCents: number | null;
  employerContributionCents: number | null;
  memberContributionCents: number | null;
}

/** What an approved enrollment does to one line of coverage (API.md section 7). */
export interface LineChange {
  lineOfCoverage: LineOfCoverage;
  status: BenefitChangeStatus;
  /** In CHANGE_KINDS order; empty unless status is 'change'. */
  changes: ChangeKind[];
  previous: CoverageItem | null;
  next: CoverageItem | null;
}

/**
 * The benefit changes of an enrollment: `previous` is the member's coverage in force before it (at most one
 * item per line), `next` the plans it elects (one per line), `waivedLines` the lines it waives. One entry per
 * line the enrollment touches, elected lines first in `next` order, then waived ones; lines it does not
 * mention keep their coverage and get no entry, and waiving a line the member never had changes nothing.
 */
export function diffCoverage(previous: readonly CoverageItem[], next: readonly CoverageItem[], waivedLines: readonly LineOfCoverage[]): LineChange[] {
  const previousByLine = new Map(previous.map((item) => [item.lineOfCoverage, item]));
  const out: LineChange[] = [];
  for (const item of next) {
    const before = previousByLine.get(item.lineOfCoverage) ?? null;
    if (before === null) {
      out.push({ lineOfCoverage: item.lineOfCoverage, status: 'new', changes: [], previous: null, next: item });
      continue;
    }
    const changes = changeKinds(before, item);
    out.push({ lineOfCoverage: item.lineOfCoverage, status: changes.length === 0 ? 'no_change' : 'change', changes, previous: before, next: item });
  }
  const elected = new Set(next.map((item) => item.lineOfCoverage));
  for (const line of new Set(waivedLines)) {
    const before = previousByLine.get(line);
    if (before === undefined || elected.has(line)) continue;
    out.push({ lineOfCoverage: line, status: 'removed', changes: [], previous: before, next: null });
  }
  return out;
}

function changeKinds(before: CoverageItem, after: CoverageItem): ChangeKind[] {
  const differs: Record<ChangeKind, boolean> = {
    // Next year's plan that renews the one before (its direct successor) is the same coverage.
    plan_change: before.planId !== after.planId && after.previousPlanId !== before.planId,
    // A mid-year change to the same plan keeps the plan year's end; a renewal moves it.
    date_change: before.effectiveEnd !== after.effectiveEnd,
    dependent_change: !sameSet(before.dependentIds, after.dependentIds),
    volume_change: before.volumeCents !== after.volumeCents,
    contribution_change:
      before.employerContributionCents !== after.employerContributionCents || before.memberContributionCents !== after.memberContributionCents,
  };
  return CHANGE_KINDS.filter((kind) => differs[kind]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((id) => right.has(id));
}
