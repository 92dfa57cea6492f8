import type { Selectable } from 'kysely';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/** The qualifying events of 29 U.S.C. 1163 this service records (paragraphs (1) to (5); see cobra-rules.ts). */
export const COBRA_EVENT_TYPES = [
  'termination',
  'reduction_of_hours',
  'death',
  'divorce_or_legal_separation',
  'medicare_entitlement',
  'dependent_ceased_to_be_dependent',
] as const;
export type CobraEventType = (typeof COBRA_EVENT_TYPES)[number];

/** A qualifying event: what happened to whom, when, and from which day coverage was lost. */
export interface CobraEventTable {
  id: string;
  provider_id: string;
  employer_id: string;
  /** The covered employee. */
  member_id: string;
  /** The approved enrollment whose coverage change recorded it. */
  enrollment_id: string;
  event_type: CobraEventType;
  /** The day of the event: the enrollment's change_date, else its effective_start. */
  event_date: string;
  /** The first day without coverage. */
  coverage_lost_date: string;
  /** The maximum coverage period (cobra-periods.ts): 18, 29 (extended by a disability determination) or 36. */
  maximum_coverage_months: number;
  /** The last day of continuation coverage: event_date moved maximum_coverage_months months. */
  coverage_period_end: string;
  /** The disability determination that extended the event to 29 months (all four set together, or all null). */
  disability_person_id: string | null;
  disabled_on: string | null;
  disability_determined_on: string | null;
  disability_recorded_at: string | null;
  created_at: string;
  /** When a later change withdrew it (its enrollment's coverage cancelled before it began); null while it stands. */
  withdrawn_at: string | null;
  /** The enrollment whose change withdrew it. */
  withdrawn_by_enrollment_id: string | null;
  /** JSON text: the CobraEventLossRow[] it had recorded (they leave cobra_event_losses when it is withdrawn). */
  withdrawn_losses: string | null;
}

/**
 * One person's loss of one line, by one qualifying event. The primary key (member, event type, event date,
 * coverage lost date, line, person) records each loss once, however many sweeps, retries or enrollments come
 * across it; the same loss moved to another day is news for the administrator, and is recorded.
 */
export interface CobraEventLossTable {
  cobra_event_id: string;
  member_id: string;
  event_type: CobraEventType;
  event_date: string;
  coverage_lost_date: string;
  line_of_coverage: LineOfCoverage;
  /** The member's id for the member's own loss, else the dependent's. */
  person_id: string;
  position: number;
}

export type CobraEventRow = Selectable<CobraEventTable>;
export type CobraEventLossRow = Selectable<CobraEventLossTable>;
