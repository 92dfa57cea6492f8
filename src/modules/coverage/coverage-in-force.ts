/**
 * What "coverage" is, in one place: the definition every reader of coverage uses (GET /members/{id}/coverage,
 * approvals finding what a change replaces, terminations, the daily sweep's age-outs, open enrollment's
 * carry-over and reports).
 */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/**
 * Enrollments whose enrolled plans are coverage: approved (handed to the carriers), synced (the carriers hold
 * it) and failed (a carrier rejected one of its lines after approval: its other lines stand).
 */
export const COVERAGE_STATUSES = ['approved', 'synced', 'failed'] as const satisfies readonly EnrollmentStatus[];

type CoverageRow = ExpressionBuilder<Database, 'enrolled_plans' | 'enrollments'>;

/**
 * An enrolled plan (joined with its enrollment) is coverage when its enrollment is one of COVERAGE_STATUSES
 * and, in a failed enrollment, the carrier did not reject the benefit change that elected it: a rejected line
 * is not coverage. Approved and synced enrollments have no rejected change (a rejection fails the enrollment),
 * so only failed ones pay for the lookup.
 */
export function isCoverage() {
  return (eb: CoverageRow) =>
    eb.or([
      eb('enrollments.status', 'in', ['approved', 'synced']),
      eb.and([
        eb('enrollments.status', '=', 'failed'),
        eb.not(
          eb.exists(
            eb
              .selectFrom('benefit_changes')
              .select('benefit_changes.id')
              .whereRef('benefit_changes.next_enrollment_plan_id', '=', 'enrolled_plans.id')
              .where('benefit_changes.delivery_state', '=', 'rejected'),
          ),
        ),
      ]),
    ]);
}

/** Coverage (isCoverage) whose dates contain `date`. */
export function coverageInForceOn(date: string) {
  return (eb: CoverageRow) =>
    eb.and([
      isCoverage()(eb),
      eb('enrolled_plans.effective_start', '<=', date),
      eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>=', date)]),
    ]);
}

/**
 * One entry per line from coverage rows ordered latest-starting first (then latest recorded): the coverage
 * of that line. Two entries on one line on a date happen only while a replaced coverage has not been ended.
 */
export function latestPerLine<T extends { line_of_coverage: LineOfCoverage }>(rows: readonly T[]): T[] {
  const latest = new Map<LineOfCoverage, T>();
  for (const row of rows) if (!latest.has(row.line_of_coverage)) latest.set(row.line_of_coverage, row);
  return [...latest.values()];
}
