/**
 * What a change, a termination or its undoing does to one coverage entry (an enrolled plan's dates), as pure
 * functions of calendar dates ('YYYY-MM-DD'). Coverage whose last day is before its first never takes effect:
 * that is how cancelled coverage is kept (its history stays, no date finds it in force).
 */
import { addDays, compareDates } from '../../shared/dates.ts';
import { coverageEndOnTermination, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';

export interface CoverageDates {
  effectiveStart: string | null;
  effectiveEnd: string | null;
}

/** The last day of `item` once coverage starting on `start` replaces it: the day before, unless it ends sooner. */
export function lastDayWhenReplaced(item: Pick<CoverageDates, 'effectiveEnd'>, start: string): string {
  const dayBefore = addDays(start, -1);
  return item.effectiveEnd !== null && compareDates(item.effectiveEnd, dayBefore) <= 0 ? item.effectiveEnd : dayBefore;
}

/** What a termination whose coverage ends on `coverageEnd` does to one coverage entry. */
export type TerminationEffect =
  /** Runs past the end: it ends on `lastDay` (= coverageEnd). */
  | { kind: 'end'; lastDay: string }
  /** Would start after the end: cancelled, its last day the day before its first. */
  | { kind: 'cancel'; lastDay: string };

/**
 * A termination ends every coverage on the plan configuration's coverage end date (docs/decisions.md "Terminations"):
 * coverage running past it ends then, coverage starting after it is cancelled, coverage that already ends by then is
 * left alone (undefined).
 */
export function terminationEffect(item: CoverageDates, coverageEnd: string): TerminationEffect | undefined {
  if (item.effectiveEnd !== null && compareDates(item.effectiveEnd, coverageEnd) <= 0) return undefined;
  if (item.effectiveStart !== null && compareDates(item.effectiveStart, coverageEnd) > 0) {
    const lastDay = addDays(item.effectiveStart, -1);
    // Already cancelled (or ending before it starts): nothing more to do.
    if (item.effectiveEnd !== null && compareDates(item.effectiveEnd, lastDay) <= 0) return undefined;
    return { kind: 'cancel', lastDay };
  }
  return { kind: 'end', lastDay: coverageEnd };
}

/**
 * The first day of an enrollment not yet approved: its own effective_start, else the earliest start of its
 * enrolled plans, else undefined (it would start on the day it is approved).
 */
export function enrollmentStart(effectiveStart: string | null, planStarts: readonly string[]): string | undefined {
  if (effectiveStart !== null) return effectiveStart;
  return [...planStarts].sort(compareDates)[0];
}

/** Whether a not-yet-approved enrollment starting on `start` is one a termination ending coverage on `coverageEnd` cancels. */
export function cancelledByTermination(start: string | undefined, coverageEnd: string): boolean {
  return start !== undefined && compareDates(start, coverageEnd) > 0;
}

/**
 * A termination takes effect on the first day without coverage (the day after its coverage end). Until
 * then, undoing it (clearing termination_date or moving it later) gives back what it ended; from then on
 * the coverage is lost and a return is a rehire (new enrollments).
 */
export function undoableOn(coverageEnd: string, today: string): boolean {
  return compareDates(today, coverageEnd) <= 0;
}

/** Whether coverage ending on `coverageEnd` has been lost by `day` (its COBRA qualifying event is due). */
export function coverageLostBy(coverageEnd: string, day: string): boolean {
  return compareDates(coverageEnd, day) < 0;
}

/**
 * The last day of coverage on a plan for a member terminated on `terminationDate`: the termination policy of
 * the plan configuration that applies to the member (selectPlanConfiguration), the termination date itself
 * when none does.
 */
export function terminationCoverageEnd(terminationDate: string, subclassIds: readonly string[], configurationsOfPlan: readonly PlanConfigurationRow[]): string {
  const configuration = selectPlanConfiguration(subclassIds, configurationsOfPlan);
  return coverageEndOnTermination(terminationDate, configuration?.termination_policy ?? 'termination_date');
}
