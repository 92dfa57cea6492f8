/**
 * Coverage history: what a new coverage replaces and what that does to the coverage replaced. Approvals keep
 * the history by ending replaced coverage the day before its successor starts (docs/decisions.md "Enrollments"), so
 * that "coverage in force on a date" (coverage-in-force.ts) is always one entry per line.
 */
import type { Executor } from '../../db/database.ts';
import { addDays } from '../../shared/dates.ts';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import type { EnrolledDependentRow, EnrolledPlanRow } from '../enrollments/enrollment.table.ts';
import type { EventSource } from '../events/event-data.ts';
import type { LineOfCoverage, PlanRow } from '../plans/plan.table.ts';
import { coverageItemOf, enrollmentOfCoverage } from './coverage-entry.ts';
import { lastDayWhenReplaced } from './coverage-rules.ts';
import * as repository from './coverage.repository.ts';

/** A coverage item with its dependents' volumes (a change to one is a volume_change). */
export function coverageItemWithVolumes(
  row: EnrolledPlanRow,
  plan: Pick<PlanRow, 'group_id' | 'line_of_coverage' | 'previous_plan_id'>,
  dependents: readonly Pick<EnrolledDependentRow, 'dependent_id' | 'volume_cents'>[],
): CoverageItem {
  return {
    ...coverageItemOf(
      row,
      plan,
      dependents.map((d) => d.dependent_id),
    ),
    dependentVolumeCents: new Map(dependents.map((d) => [d.dependent_id, d.volume_cents])),
  };
}

/** The coverage a new coverage starting on `start` replaces, and the enrollments it belongs to (as their events describe them). */
export interface ReplacedCoverage {
  start: string;
  previous: CoverageItem[];
  enrollmentsOfPrevious: Map<string, EventSource<'enrollment'>>;
}

/**
 * The member's coverage that an enrollment starting on `start` replaces, on the lines it elects (`next`) or
 * waives: the coverage in force on `start` (other than the enrollment's own), and, for a plan that renews
 * another, the coverage on that plan the day before (next year's plan continues the coverage of the plan it
 * renews, which ended the day before it starts: a change, not a new line, though nothing of it needs ending).
 */
export async function findCoverageReplacedBy(
  trx: Executor,
  input: { memberId: string; enrollmentId: string; start: string; next: readonly CoverageItem[]; waivedLines: readonly LineOfCoverage[] },
): Promise<ReplacedCoverage> {
  const { memberId, enrollmentId, start, next } = input;
  const lines = [...new Set([...next.map((item) => item.lineOfCoverage), ...input.waivedLines])];
  const replaced = await repository.findCoverageInForce(trx, memberId, lines, start, enrollmentId);
  const covered = new Set(replaced.map((row) => row.line_of_coverage));
  const renewing = next.filter((item) => item.previousPlanId !== null && !covered.has(item.lineOfCoverage));
  const renewed =
    renewing.length === 0
      ? []
      : (
          await repository.findCoverageInForce(
            trx,
            memberId,
            renewing.map((item) => item.lineOfCoverage),
            addDays(start, -1),
            enrollmentId,
          )
        ).filter((row) => renewing.some((item) => item.lineOfCoverage === row.line_of_coverage && item.previousPlanId === row.plan_id));
  const inForce = [...replaced, ...renewed];
  const dependentRows = await repository.findDependentVolumesOf(
    trx,
    inForce.map((row) => row.id),
  );
  return {
    start,
    previous: inForce.map((row) =>
      coverageItemWithVolumes(
        row,
        row,
        dependentRows.filter((d) => d.enrolled_plan_id === row.id),
      ),
    ),
    enrollmentsOfPrevious: new Map(inForce.map((row) => [row.id, enrollmentOfCoverage(row)])),
  };
}

/**
 * The coverage a new coverage starting on `start` replaces ends the day before (lastDayWhenReplaced: the end
 * its removed benefit changes carry). Returns the enrollments whose coverage it ended (each once), as their
 * events describe them.
 */
export async function endCoverageReplacedBy(trx: Executor, { start, previous, enrollmentsOfPrevious }: ReplacedCoverage): Promise<EventSource<'enrollment'>[]> {
  const changed = new Map<string, EventSource<'enrollment'>>();
  for (const item of previous) {
    const lastDay = lastDayWhenReplaced(item, start);
    if (lastDay !== item.effectiveEnd) {
      await repository.endCoverage(trx, item.enrolledPlanId, lastDay);
      const enrollment = enrollmentsOfPrevious.get(item.enrolledPlanId)!;
      changed.set(enrollment.id, enrollment);
    }
  }
  return [...changed.values()];
}

/**
 * Coverage that coverage starting on `start` takes over, when that was not found as the coverage in force on
 * `start` (an approval reaching forward to later elections, enrollments/later-elections.ts): each entry ends the
 * day before `start` unless it ends sooner, so that one entry per line is in force on every date (cancelled when
 * it starts on `start`). Returns the new last day of each entry it ended, by enrolled plan id.
 */
export async function endCoverageBefore(
  trx: Executor,
  entries: readonly Pick<EnrolledPlanRow, 'id' | 'effective_end'>[],
  start: string,
): Promise<Map<string, string>> {
  const ended = new Map<string, string>();
  for (const entry of entries) {
    const lastDay = lastDayWhenReplaced({ effectiveEnd: entry.effective_end }, start);
    if (lastDay === entry.effective_end) continue;
    await repository.endCoverage(trx, entry.id, lastDay);
    ended.set(entry.id, lastDay);
  }
  return ended;
}
