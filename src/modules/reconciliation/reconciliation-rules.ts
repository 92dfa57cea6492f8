/**
 * Reconciliation (docs/decisions.md "Reconciliation"): where what a carrier group believes about a member's
 * line on a day (the carrier ledger, what reached it) differs from our truth (coverage in force). Pure
 * functions; the service reads both sides for a whole group at once.
 */
import type { LineOfCoverage } from '../plans/plan.table.ts';

/** One side of a line on the day: the coverage, as our records or the carrier's picture hold it. */
export interface LineCoverage {
  lineOfCoverage: LineOfCoverage;
  planId: string;
  enrolledPlanId: string;
  start: string | null;
  /** The last day; null open-ended (an add tells no end, and coverage running to its plan year's end has none to tell). */
  end: string | null;
  dependentIds: readonly string[];
  volumeCents: number | null;
}

/**
 * The kinds of difference, in the order they are listed:
 * - `missing`: we cover the member on the line and the carrier does not know it;
 * - `extra`: the carrier believes in coverage we do not have (a termination or a waiver it never heard of);
 * - `plan`: another plan; `dates`: another first day, or another last day where both sides have one; `dependents`: other dependents covered (the
 *   tier follows from them); `volume`: another amount of life or disability coverage.
 */
export const DISCREPANCY_KINDS = ['missing', 'extra', 'plan', 'dates', 'dependents', 'volume'] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((id) => set.has(id));
}

/** What differs between our coverage of a line and the carrier's picture of it on the same day (none: the same). */
export function discrepanciesOf(ours: LineCoverage | undefined, carrier: LineCoverage | undefined): DiscrepancyKind[] {
  if (ours === undefined) return carrier === undefined ? [] : ['extra'];
  if (carrier === undefined) return ['missing'];
  const kinds: DiscrepancyKind[] = [];
  if (ours.planId !== carrier.planId) kinds.push('plan');
  // An end of ours alone may be a replacement (the next coverage of the line starts the day after, which the
  // carrier hears as a change, not an end): ends are compared when both sides have one. An end the carrier
  // never heard of shows on the days after it, as `extra`.
  if (ours.start !== carrier.start || (ours.end !== null && carrier.end !== null && ours.end !== carrier.end)) kinds.push('dates');
  if (!sameSet(ours.dependentIds, carrier.dependentIds)) kinds.push('dependents');
  if (ours.volumeCents !== carrier.volumeCents) kinds.push('volume');
  return kinds;
}

/**
 * Our coverage's last day as a carrier hears it: coverage running to its plan year's last day was told as
 * open-ended (an add or a change carries no end; a plan year's end is not a termination), so it is compared as
 * null.
 */
export function toldEnd(effectiveEnd: string | null, planEnd: string): string | null {
  return effectiveEnd === null || effectiveEnd === planEnd ? null : effectiveEnd;
}
