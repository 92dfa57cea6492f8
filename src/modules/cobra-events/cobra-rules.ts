/**
 * COBRA qualifying events (29 U.S.C. 1163; the Code's twin is 26 U.S.C. 4980B(f)(3), read with 26 CFR
 * 54.4980B-4): which enrollment reasons are one, which lines of coverage they concern, and who lost what.
 * Pure functions of what an approval knows; the service records their answer.
 */
import type { EnrollmentReason } from '../enrollments/enrollment-rules.ts';
import { ENROLLMENT_REASONS } from '../enrollments/enrollment-rules.ts';
import type { TerminationReason } from '../members/member.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { CobraEventType } from './cobra-event.table.ts';
import { compareDates } from '../../shared/dates.ts';

export interface QualifyingEventRule {
  eventType: CobraEventType;
  /**
   * Whose loss of coverage makes it a qualifying event: 29 U.S.C. 1167(3) makes the covered employee a
   * qualified beneficiary only of termination and reduction of hours; of the others, the spouse and children.
   */
  qualifiedBeneficiaries: 'member_and_dependents' | 'dependents';
  /**
   * Recorded only when the member's own coverage ends as well: the event happens to the employee, and the same
   * reason also describes a dependent's (a spouse's death), which 1163 does not list.
   */
  requiresMemberLoss: boolean;
  citation: string;
}

const rule = (
  eventType: CobraEventType,
  qualifiedBeneficiaries: QualifyingEventRule['qualifiedBeneficiaries'],
  requiresMemberLoss: boolean,
  citation: string,
): QualifyingEventRule => ({ eventType, qualifiedBeneficiaries, requiresMemberLoss, citation });

/**
 * Enrollment reason -> qualifying event; null where the reason is none of 1163's events (gains of coverage,
 * a dependent's own changes, moves, open enrollment). Every reason is classified, so a new one cannot compile
 * unclassified. Bankruptcy of the employer (1163(6)) is out of scope: no enrollment reason records it.
 */
export const QUALIFYING_EVENTS: Record<EnrollmentReason, QualifyingEventRule | null> = {
  death: rule('death', 'dependents', true, '29 U.S.C. 1163(1): the death of the covered employee'),
  // A member's termination is decided by its termination_reason (TERMINATION_QUALIFYING_EVENTS below: gross misconduct is none).
  terminated: rule('termination', 'member_and_dependents', false, "29 U.S.C. 1163(2): the termination of the covered employee's employment"),
  employment_change: rule('reduction_of_hours', 'member_and_dependents', false, "29 U.S.C. 1163(2): reduction of hours of the covered employee's employment"),
  // FMLA leave is not a qualifying event while the plan keeps the coverage (26 CFR 54.4980B-10): only a loss records one.
  leave_of_absence: rule(
    'reduction_of_hours',
    'member_and_dependents',
    false,
    '29 U.S.C. 1163(2); 26 CFR 54.4980B-4 Q&A-1(e): an absence from work without termination is a reduction of hours',
  ),
  divorce: rule('divorce_or_legal_separation', 'dependents', false, "29 U.S.C. 1163(3): the covered employee's divorce or legal separation from the spouse"),
  medicare_eligible: rule('medicare_entitlement', 'dependents', false, '29 U.S.C. 1163(4): the covered employee becoming entitled to Medicare (title XVIII)'),
  dependent_aged_out: rule(
    'dependent_ceased_to_be_dependent',
    'dependents',
    false,
    '29 U.S.C. 1163(5): a dependent child ceasing to be a dependent child under the generally applicable requirements of the plan',
  ),
  new_child: null,
  adopted_child: null,
  marriage: null,
  dependent_lost_coverage: null,
  dependent_gained_coverage: null,
  dependent_relocated_in_network: null,
  dependent_court_order: null,
  carrier_sync: null,
  domestic_partnership: null,
  relocated: null,
  lost_coverage: null,
  new_hire: null,
  rehire: null,
  open_enrollment: null,
  passive_open_enrollment: null,
  dependent_employment_change: null,
  new_eligibility: null,
  gain_coverage: null,
  significant_plan_change: null,
  citizenship_change: null,
  release_from_incarceration: null,
  tax_advantaged_contribution_change: null,
};

/**
 * Whether the covered employee is a qualified beneficiary of an event of this type: 29 U.S.C. 1167(3)(B) makes
 * the employee one only of a termination or reduction of hours (1163(2)); the spouse and dependent children
 * who lose coverage are qualified beneficiaries of every event (1167(3)(A)). Every type is classified.
 */
export const EMPLOYEE_IS_QUALIFIED_BENEFICIARY: Record<CobraEventType, boolean> = {
  termination: true,
  reduction_of_hours: true,
  death: false,
  divorce_or_legal_separation: false,
  medicare_entitlement: false,
  dependent_ceased_to_be_dependent: false,
};

/** What a member's termination is for COBRA, by the member's termination_reason (docs/decisions.md "COBRA events"). */
export interface TerminationRule {
  /** The qualifying event, or null when the termination is none (gross misconduct). */
  event: QualifyingEventRule | null;
  /** The reason of the `qle` enrollment the termination records (a death is recorded as one, so its events, 834 and enrollment all say so). */
  enrollmentReason: 'terminated' | 'death';
}

const terminated = (event: QualifyingEventRule | null): TerminationRule => ({ event, enrollmentReason: 'terminated' });
const TERMINATION = rule(
  'termination',
  'member_and_dependents',
  false,
  "29 U.S.C. 1163(2): the termination of the covered employee's employment, for any reason but gross misconduct",
);

/**
 * The member's termination_reason -> the qualifying event the termination is. A termination without a reason
 * (HR did not say) is a termination: the gross-misconduct exception must be recorded to apply. Every reason is
 * classified, so a new one cannot compile unclassified.
 */
export const TERMINATION_QUALIFYING_EVENTS: Record<TerminationReason, TerminationRule> = {
  voluntary: terminated(TERMINATION),
  involuntary: terminated(TERMINATION),
  // 29 U.S.C. 1163(2): "other than by reason of such employee's gross misconduct": no qualifying event, for anyone.
  gross_misconduct: terminated(null),
  layoff: terminated(TERMINATION),
  retirement: terminated(TERMINATION),
  // 29 U.S.C. 1163(1): the death of the covered employee; the qualified beneficiaries are the spouse and children (1167(3)).
  death: { event: QUALIFYING_EVENTS.death, enrollmentReason: 'death' },
  reduction_in_hours: terminated(
    rule('reduction_of_hours', 'member_and_dependents', false, "29 U.S.C. 1163(2): reduction of hours of the covered employee's employment"),
  ),
  leave: terminated(TERMINATION),
  other: terminated(TERMINATION),
};

/** The rule of a termination with this reason (null: none given). */
export function terminationRuleOf(reason: TerminationReason | null): TerminationRule {
  return reason === null ? terminated(TERMINATION) : TERMINATION_QUALIFYING_EVENTS[reason];
}

/**
 * Lines of coverage that are group health plans for COBRA: plans providing medical care (29 U.S.C. 1167(1),
 * medical care as in 26 U.S.C. 213(d); 26 CFR 54.4980B-2 Q&A-1). The record is limited to medical, dental
 * and vision (docs/decisions.md "COBRA events", Lines). Every line is classified, so a new one cannot compile
 * unclassified.
 */
export const GROUP_HEALTH_LINES: Record<LineOfCoverage, { recorded: boolean; citation: string }> = {
  medical: { recorded: true, citation: '29 U.S.C. 1167(1): medical care' },
  dental: { recorded: true, citation: '29 U.S.C. 1167(1): dental care is medical care (26 U.S.C. 213(d))' },
  vision: { recorded: true, citation: '29 U.S.C. 1167(1): vision care is medical care (26 U.S.C. 213(d))' },
  life: { recorded: false, citation: 'pays on death, no medical care: not a group health plan' },
  accidental_death: { recorded: false, citation: 'pays on death or dismemberment, no medical care: not a group health plan' },
  short_term_disability: { recorded: false, citation: 'replaces income, no medical care: not a group health plan' },
  long_term_disability: { recorded: false, citation: 'replaces income, no medical care: not a group health plan' },
  accident: {
    recorded: false,
    citation: 'docs/decisions.md "COBRA events": medical, dental and vision only (whether an indemnity policy is medical care depends on its terms)',
  },
  critical_illness: {
    recorded: false,
    citation: 'docs/decisions.md "COBRA events": medical, dental and vision only (whether an indemnity policy is medical care depends on its terms)',
  },
  cancer: {
    recorded: false,
    citation: 'docs/decisions.md "COBRA events": medical, dental and vision only (whether an indemnity policy is medical care depends on its terms)',
  },
  hospital_indemnity: {
    recorded: false,
    citation: 'docs/decisions.md "COBRA events": medical, dental and vision only (whether an indemnity policy is medical care depends on its terms)',
  },
  healthcare_fsa: {
    recorded: false,
    citation:
      'docs/decisions.md "COBRA events": medical, dental and vision only (a health FSA is a group health plan with a limited obligation, 26 CFR 54.4980B-2 Q&A-8)',
  },
  limited_purpose_fsa: {
    recorded: false,
    citation:
      'docs/decisions.md "COBRA events": medical, dental and vision only (a health FSA is a group health plan with a limited obligation, 26 CFR 54.4980B-2 Q&A-8)',
  },
  dependent_care_fsa: { recorded: false, citation: 'dependent care is not medical care: not a group health plan' },
  hsa: { recorded: false, citation: "the employee's own account, not a plan the employer maintains" },
};

/** The recorded lines, in catalog order (the order of every loss list). */
export const COBRA_LINES: readonly LineOfCoverage[] = (Object.keys(GROUP_HEALTH_LINES) as LineOfCoverage[]).filter((line) => GROUP_HEALTH_LINES[line].recorded);

/** Coverage of one line by one enrolled plan: the member, and these dependents. */
export interface CoverageHeld {
  lineOfCoverage: LineOfCoverage;
  dependentIds: readonly string[];
  /** Its first day, where known (null: the plan's). */
  effectiveStart?: string | null;
}

/** Who lost one line: the member (`memberLost`) and the dependents, in the order they were covered. */
export interface LineLoss {
  lineOfCoverage: LineOfCoverage;
  memberLost: boolean;
  dependentIds: string[];
}

/**
 * Per recorded line, the persons covered before and not after, across all of the line's entries: a move to
 * another plan, group or carrier of the same line keeps everyone it covers, so it loses nothing (26 CFR
 * 54.4980B-4 Q&A-1(c): to lose coverage is to cease to be covered). Only lines covered before can be lost, and
 * only coverage that had begun: coverage that would have started on or after `firstDayWithout` is cancelled by
 * the change, never held (a divorce recorded back to before the coverage began).
 */
export function groupHealthLost(before: readonly CoverageHeld[], after: readonly CoverageHeld[], firstDayWithout?: string): LineLoss[] {
  const losses: LineLoss[] = [];
  const began = (item: CoverageHeld) =>
    firstDayWithout === undefined ||
    item.effectiveStart === undefined ||
    item.effectiveStart === null ||
    compareDates(item.effectiveStart, firstDayWithout) < 0;
  for (const line of COBRA_LINES) {
    const held = before.filter((item) => item.lineOfCoverage === line && began(item));
    if (held.length === 0) continue;
    const kept = after.filter((item) => item.lineOfCoverage === line);
    const keptDependents = new Set(kept.flatMap((item) => item.dependentIds));
    const dependentIds = [...new Set(held.flatMap((item) => item.dependentIds))].filter((id) => !keptDependents.has(id));
    const memberLost = kept.length === 0;
    if (memberLost || dependentIds.length > 0) losses.push({ lineOfCoverage: line, memberLost, dependentIds });
  }
  return losses;
}

function isEnrollmentReason(reason: string): reason is EnrollmentReason {
  return (ENROLLMENT_REASONS as readonly string[]).includes(reason);
}

/**
 * The qualifying event an enrollment with `reason` makes of these losses, or undefined: its reason must map
 * to one, and a qualified beneficiary of that event must lose coverage (an event is a qualifying event only if
 * it causes a loss, 29 U.S.C. 1163 and 26 CFR 54.4980B-4 Q&A-1(c)). A `medicare_eligible` enrollment that
 * names a dependent's own entitlement (`medicareEntitledDependentId`) is none. A member's termination passes the
 * member's `terminationReason` (null when none was given), which decides instead of the enrollment's reason.
 */
export function qualifyingEventOf(
  reason: string | null,
  losses: readonly LineLoss[],
  enrollment: { medicareEntitledDependentId: string | null; terminationReason?: TerminationReason | null } = { medicareEntitledDependentId: null },
): QualifyingEventRule | undefined {
  // A member's termination is what its termination_reason makes of it (TERMINATION_QUALIFYING_EVENTS).
  const found =
    enrollment.terminationReason !== undefined
      ? terminationRuleOf(enrollment.terminationReason).event
      : reason !== null && isEnrollmentReason(reason)
        ? QUALIFYING_EVENTS[reason]
        : null;
  if (!found) return undefined;
  // 29 U.S.C. 1163(4) is the covered employee's entitlement: a dependent's own Medicare entitlement ends that
  // dependent's coverage as a life event, no qualifying event (docs/decisions.md "COBRA events").
  if (reason === 'medicare_eligible' && enrollment.medicareEntitledDependentId !== null) return undefined;
  const memberLost = losses.some((loss) => loss.memberLost);
  if (found.requiresMemberLoss && !memberLost) return undefined;
  const dependentsLost = losses.some((loss) => loss.dependentIds.length > 0);
  const qualified = dependentsLost || (found.qualifiedBeneficiaries === 'member_and_dependents' && memberLost);
  return qualified ? found : undefined;
}

/** The day of the event: the enrollment's change_date, else its effective start, else the first day without coverage. */
export function qualifyingEventDate(enrollment: { changeDate: string | null; effectiveStart: string | null }, coverageLostDate: string): string {
  return enrollment.changeDate ?? enrollment.effectiveStart ?? coverageLostDate;
}
