import type { Selectable } from 'kysely';

/** Why coverage ended: the member's termination, or a loss of eligibility by hours or status (eligibility-loss.service.ts). */
export const COVERAGE_END_CAUSES = ['termination', 'eligibility_loss'] as const;
export type CoverageEndCause = (typeof COVERAGE_END_CAUSES)[number];

/** A termination applied to a member's coverage (see termination.service.ts); internal, not an API record. */
export interface CoverageTerminationTable {
  id: string;
  provider_id: string;
  member_id: string;
  /** The qle `terminated` enrollment carrying its `removed` benefit changes. */
  enrollment_id: string;
  cause: CoverageEndCause;
  /** The termination date, or for a loss of eligibility the day of the change of hours or status. */
  termination_date: string;
  /** The last day of the coverage it ended (the plan configuration's termination policy). */
  coverage_end: string;
  created_at: string;
  /** When its COBRA qualifying event was recorded (once the coverage was lost). */
  cobra_recorded_at: string | null;
  /** When it was undone before taking effect, or replaced by an earlier termination date (then no enrollment below). */
  undone_at: string | null;
  /** The enrollment that gave the coverage back, when it was undone before taking effect. */
  undone_by_enrollment_id: string | null;
}
export type CoverageTerminationRow = Selectable<CoverageTerminationTable>;

/** One enrolled plan a termination ended or cancelled, with the end it had before. */
export interface CoverageTerminationItemTable {
  termination_id: string;
  enrolled_plan_id: string;
  previous_end: string | null;
  ended_on: string;
  position: number;
}
export type CoverageTerminationItemRow = Selectable<CoverageTerminationItemTable>;
