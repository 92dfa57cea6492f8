/**
 * INS04 (005010X220A1 2000 INS04, Maintenance Reason Code, data element 1203) of a person's loop, from the event
 * behind the change: the reason of the enrollment that recorded it. One row per enrollment reason: the code for
 * people the event adds or changes (`joins`), and for people whose coverage it ends (`ends`). Coverage the
 * member's termination ends takes the code of its termination_reason whatever the enrollment
 * (TERMINATION_REASON_CODES; edi-loops.ts, endedByTermination); reinstatements 41.
 * The `satisfies` makes a new enrollment reason fail to compile until it has a row.
 */
import type { EnrollmentCategory } from '../enrollments/enrollment.table.ts';
import type { EnrollmentReason } from '../enrollments/enrollment-rules.ts';
import type { TerminationReason } from '../members/member.table.ts';
import type { MaintenanceReason } from './x12-codes.ts';

export interface EventReasons {
  joins: MaintenanceReason;
  ends: MaintenanceReason;
}

/** A selection the member made at a life event the guide has no code for: EC, and 07 for coverage it drops. */
const SELECTION: EventReasons = { joins: 'member_benefit_selection', ends: 'termination_of_benefits' };

export const EVENT_REASONS = {
  // INS04 02 Birth: the child and the family it joins.
  new_child: { joins: 'birth', ends: 'termination_of_benefits' },
  // INS04 05 Adoption.
  adopted_child: { joins: 'adoption', ends: 'termination_of_benefits' },
  // INS04 32 Marriage.
  marriage: { joins: 'marriage', ends: 'termination_of_benefits' },
  // INS04 01 Divorce: the former spouse leaves, the family's coverage changes.
  divorce: { joins: 'divorce', ends: 'divorce' },
  // INS04 03 Death: the person who died leaves, the family's coverage changes.
  death: { joins: 'death', ends: 'death' },
  // INS04 28 Initial Enrollment: the first enrollment of an employment.
  new_hire: { joins: 'initial_enrollment', ends: 'termination_of_benefits' },
  // INS04 28 Initial Enrollment: newly eligible (a change of class or hours), enrolled for the first time.
  new_eligibility: { joins: 'initial_enrollment', ends: 'termination_of_benefits' },
  // INS04 41 Re-enrollment: a rehired employee enrolled again.
  rehire: { joins: 're_enrollment', ends: 'termination_of_benefits' },
  // INS04 08 Termination of Employment (the service's own enrollment of a member's termination).
  terminated: { joins: 'termination_of_employment', ends: 'termination_of_employment' },
  // INS04 37 Leave of Absence with Benefits; 38 without, for coverage the leave ends.
  leave_of_absence: { joins: 'leave_of_absence_with_benefits', ends: 'leave_of_absence_without_benefits' },
  // INS04 43 Change of Location: a move in or out of a service area.
  relocated: { joins: 'change_of_location', ends: 'change_of_location' },
  dependent_relocated_in_network: { joins: 'change_of_location', ends: 'change_of_location' },
  // INS04 22 Plan Change: the plan itself changed significantly (the employer's or carrier's doing).
  significant_plan_change: { joins: 'plan_change', ends: 'termination_of_benefits' },
  // INS04 XN Notification Only for the family's loops (the member made no selection); 07 for the child who ages out.
  dependent_aged_out: { joins: 'notification_only', ends: 'termination_of_benefits' },
  // INS04 XN Notification Only: what the carrier itself reported (carrier_sync enrollments are not sent back).
  carrier_sync: { joins: 'notification_only', ends: 'termination_of_benefits' },
  // INS04 EC Member Benefit Selection: the plan year's elections, chosen in the window or carried over for the
  // member (docs/decisions.md "Carrier EDI (X12 834)", INS04). A plan year's end is not a termination of benefits.
  open_enrollment: SELECTION,
  passive_open_enrollment: SELECTION,
  // INS04 EC Member Benefit Selection: special enrollment rights and other life events the guide has no code for.
  domestic_partnership: SELECTION,
  dependent_lost_coverage: SELECTION,
  dependent_gained_coverage: SELECTION,
  dependent_court_order: SELECTION,
  lost_coverage: SELECTION,
  gain_coverage: SELECTION,
  employment_change: SELECTION,
  dependent_employment_change: SELECTION,
  citizenship_change: SELECTION,
  release_from_incarceration: SELECTION,
  medicare_eligible: SELECTION,
  tax_advantaged_contribution_change: SELECTION,
} as const satisfies Record<EnrollmentReason, EventReasons>;

/** The INS04 codes of an enrollment's changes: by its reason, else by its category (open enrollment, a carrier's sync, a life event). */
export function eventReasonsOf(enrollment: { category: EnrollmentCategory; reason: string | null }): EventReasons {
  if (enrollment.reason !== null && Object.hasOwn(EVENT_REASONS, enrollment.reason)) return EVENT_REASONS[enrollment.reason as EnrollmentReason];
  switch (enrollment.category) {
    case 'open_enrollment':
      return EVENT_REASONS.open_enrollment;
    case 'carrier_sync':
      return EVENT_REASONS.carrier_sync;
    case 'qle':
      return SELECTION;
  }
}

/**
 * INS04 of coverage the member's termination ends, by the member's termination_reason (docs/decisions.md
 * "Carrier EDI (X12 834)", INS04). The termination ends the coverage the loop carries, so a layoff or a leave
 * is sent as the guide's "without Benefits" code. Every reason is classified, so a new one cannot compile
 * without a code.
 */
export const TERMINATION_REASON_CODES = {
  // 005010X220A1 INS04 (1203): 03 Death.
  death: 'death',
  // 005010X220A1 INS04 (1203): 04 Retirement.
  retirement: 'retirement',
  // 005010X220A1 INS04 (1203): 40 Lay Off without Benefits (39 "with Benefits" would say the coverage goes on).
  layoff: 'lay_off_without_benefits',
  // 005010X220A1 INS04 (1203): 38 Leave of Absence without Benefits (37 "with Benefits" would say the coverage goes on).
  leave: 'leave_of_absence_without_benefits',
  // 005010X220A1 INS04 (1203): 08 Termination of Employment, for every other reason.
  voluntary: 'termination_of_employment',
  involuntary: 'termination_of_employment',
  gross_misconduct: 'termination_of_employment',
  reduction_in_hours: 'termination_of_employment',
  other: 'termination_of_employment',
} as const satisfies Record<TerminationReason, MaintenanceReason>;

/** INS04 of coverage the member's termination ends: by its reason, 08 Termination of Employment when none was given. */
export function terminationReasonCodeOf(reason: TerminationReason | null): MaintenanceReason {
  return reason === null ? 'termination_of_employment' : TERMINATION_REASON_CODES[reason];
}
