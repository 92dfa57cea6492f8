// Coverage as open enrollment reads it: what a member carries over into a passive window's enrollment, and what
// a window's enrollments changed.
import type { Executor } from '../../db/database.ts';
import { coverageInForceOn, latestPerLine } from './coverage-in-force.ts';

/**
 * The member's coverage in force on `date` (coverageInForceOn), one per line in the order the member elected
 * them, with who each covers: what a passive window carries over.
 */
export async function findCoveredLinesOn(db: Executor, memberId: string, date: string) {
  const plans = await db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'enrolled_plans.id',
      'enrolled_plans.plan_id',
      'enrolled_plans.position',
      'enrolled_plans.volume_cents',
      'enrolled_plans.primary_care_provider',
      'enrolled_plans.payroll_provider_external_id',
      'enrolled_plans.effective_end',
      'plans.line_of_coverage',
      'plans.effective_start as plan_start',
      'plans.effective_end as plan_end',
    ])
    .where('enrolled_plans.member_id', '=', memberId)
    .where(coverageInForceOn(date))
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc')
    .execute();
  // The latest-starting plan per line, in the order the member elected them.
  const lines = latestPerLine(plans).sort((a, b) => a.position - b.position);
  const dependents =
    lines.length === 0
      ? []
      : await db
          .selectFrom('enrolled_dependents')
          .innerJoin('dependents', 'dependents.id', 'enrolled_dependents.dependent_id')
          .select([
            'enrolled_dependents.enrolled_plan_id',
            'enrolled_dependents.dependent_id',
            'enrolled_dependents.volume_cents',
            'dependents.member_relationship',
            'dependents.dob',
            'dependents.has_disability',
            'dependents.disability_certified_on',
            'dependents.relationship_end_date',
          ])
          .where(
            'enrolled_dependents.enrolled_plan_id',
            'in',
            lines.map((row) => row.id),
          )
          .orderBy('enrolled_dependents.position')
          .execute();
  return lines.map((line) => ({ ...line, dependents: dependents.filter((d) => d.enrolled_plan_id === line.id) }));
}

/**
 * The benefit changes (other than no_change) of the window's enrollments, by member and line, with the plans
 * they move from and to: the window's change report.
 */
export function findWindowCoverageChanges(db: Executor, windowId: string) {
  return db
    .selectFrom('benefit_changes')
    .innerJoin('enrollments', 'enrollments.id', 'benefit_changes.enrollment_id')
    .leftJoin('enrolled_plans as previous', 'previous.id', 'benefit_changes.previous_enrollment_plan_id')
    .leftJoin('enrolled_plans as next', 'next.id', 'benefit_changes.next_enrollment_plan_id')
    .select([
      'benefit_changes.member_id',
      'benefit_changes.line_of_coverage',
      'benefit_changes.status',
      'benefit_changes.changes',
      'previous.plan_id as previous_plan',
      'next.plan_id as next_plan',
    ])
    .where('enrollments.open_enrollment_window_id', '=', windowId)
    .where('benefit_changes.status', '!=', 'no_change')
    .orderBy('benefit_changes.member_id')
    .orderBy('enrollments.created_at')
    .orderBy('benefit_changes.position')
    .execute();
}
