/**
 * One coverage entry (an enrolled plan with what its plan and enrollment say about it), read the same way by
 * approvals, terminations and age-outs.
 */
import type { Executor } from '../../db/database.ts';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import type { EnrolledPlanRow, EnrollmentRow, EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import type { EventSource } from '../events/event-data.ts';
import type { LineOfCoverage, PlanRow } from '../plans/plan.table.ts';

/** An enrolled plan with its plan's line, group and predecessor, and what its enrollment's events carry. */
export type CoverageEntry = EnrolledPlanRow & {
  line_of_coverage: LineOfCoverage;
  group_id: string;
  previous_plan_id: string | null;
  enrollment_employer_id: string;
  enrollment_status: EnrollmentStatus;
  enrollment_category: EnrollmentRow['category'];
  enrollment_window_id: string | null;
  enrollment_rules_override_reason: string | null;
};

/** Enrolled plans joined with their enrollment and plan, selecting the CoverageEntry columns; add the filters. */
export function selectCoverageEntries(db: Executor) {
  return db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .selectAll('enrolled_plans')
    .select([
      'plans.line_of_coverage',
      'plans.group_id',
      'plans.previous_plan_id',
      'enrollments.employer_id as enrollment_employer_id',
      'enrollments.status as enrollment_status',
      'enrollments.category as enrollment_category',
      'enrollments.open_enrollment_window_id as enrollment_window_id',
      'enrollments.rules_override_reason as enrollment_rules_override_reason',
    ]);
}

/** An enrolled plan as the benefit-change diff sees it (`effectiveEnd` overrides its end: before or after a change). */
export function coverageItemOf(
  row: EnrolledPlanRow,
  plan: Pick<PlanRow, 'group_id' | 'line_of_coverage' | 'previous_plan_id'>,
  dependentIds: readonly string[],
  effectiveEnd: string | null = row.effective_end,
): CoverageItem {
  return {
    enrolledPlanId: row.id,
    planId: row.plan_id,
    groupId: plan.group_id,
    previousPlanId: plan.previous_plan_id,
    lineOfCoverage: plan.line_of_coverage,
    effectiveStart: row.effective_start,
    effectiveEnd,
    dependentIds,
    volumeCents: row.volume_cents,
    employerContributionCents: row.employer_contribution_cents,
    memberContributionCents: row.member_contribution_cents,
  };
}

/** The enrollment a coverage entry belongs to, as its `updated` event describes it. */
export function enrollmentOfCoverage(row: CoverageEntry): EventSource<'enrollment'> {
  return {
    id: row.enrollment_id,
    provider_id: row.provider_id,
    employer_id: row.enrollment_employer_id,
    member_id: row.member_id,
    status: row.enrollment_status,
    category: row.enrollment_category,
    open_enrollment_window_id: row.enrollment_window_id,
    rules_override_reason: row.enrollment_rules_override_reason,
  };
}
