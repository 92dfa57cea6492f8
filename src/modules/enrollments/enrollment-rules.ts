import { addDays, compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import { volumeErrors } from './volume-decisions.ts';
import {
  ageOutDate,
  employmentIneligibility,
  isChildEligibleOn,
  describeNewHireStartChoice,
  isAllowedNewHireStart,
  newHireStartChoice,
  selectPlanConfiguration,
  waitingPeriodEnd,
  type AgeOutRule,
  type CoverageStartRule,
} from '../plan-configurations/eligibility.ts';
import { isChildLike, isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';
import { spouseRuleSource, spouseStandingOn } from '../dependents/spouse-rules.ts';
import { fromBasisPoints } from '../plans/pricing.ts';
import type { VolumeRules } from '../plans/plan.schemas.ts';
import type { LineOfCoverage, RateBasis } from '../plans/plan.table.ts';
import { waitingPeriodBasis } from '../members/rehire-rules.ts';

/** Enrollment.reason: the contract's values (docs/api.md "Enrollment"). */
export const ENROLLMENT_REASONS = [
  'new_child',
  'adopted_child',
  'marriage',
  'dependent_lost_coverage',
  'dependent_gained_coverage',
  'dependent_relocated_in_network',
  'dependent_court_order',
  'divorce',
  'carrier_sync',
  'domestic_partnership',
  'relocated',
  'lost_coverage',
  'death',
  'new_hire',
  'terminated',
  'rehire',
  'leave_of_absence',
  'open_enrollment',
  'passive_open_enrollment',
  'employment_change',
  'dependent_employment_change',
  'new_eligibility',
  'gain_coverage',
  'significant_plan_change',
  'dependent_aged_out',
  'citizenship_change',
  'release_from_incarceration',
  'medicare_eligible',
  'tax_advantaged_contribution_change',
] as const;
export type EnrollmentReason = (typeof ENROLLMENT_REASONS)[number];

/** Reasons that are not qualifying life events. */
const NOT_QLE: readonly EnrollmentReason[] = ['open_enrollment', 'passive_open_enrollment', 'carrier_sync'];

export function isQleReason(reason: string | null): reason is EnrollmentReason {
  return reason !== null && (ENROLLMENT_REASONS as readonly string[]).includes(reason) && !NOT_QLE.includes(reason as EnrollmentReason);
}

/** CoverageWaiver.reason: a value set the contract leaves open (docs/decisions.md "Records and fields"). */
export const COVERAGE_WAIVER_REASONS = [
  'covered_as_dependent',
  'covered_by_spouse',
  'other_employer_coverage',
  'individual_coverage',
  'medicare',
  'medicaid',
  'tricare',
  'cost',
  'other',
] as const;

export interface ConfigurationFacts {
  id: string;
  required_subclass_id: string | null;
  waiting_period_days: number;
  dependent_age_limit: number;
  dependent_age_out_rule: AgeOutRule;
  coverage_start_rule: CoverageStartRule;
  minimum_hours_per_week: number | null;
  /** JSON text of the eligible employment statuses, or null for any. */
  eligible_employment_statuses: string | null;
  waiting_period_waiver_allowed: boolean | number;
}

export interface PlanFacts {
  id: string;
  employerId: string;
  /** The plan's carrier group. */
  groupId: string;
  lineOfCoverage: LineOfCoverage;
  effectiveStart: string;
  effectiveEnd: string;
  requiresPrimaryCareProvider: boolean;
  configurations: readonly ConfigurationFacts[];
  volumeRules: VolumeRules | null;
  rateBasis: RateBasis;
}

export interface DependentFacts {
  id: string;
  memberId: string;
  relationship: DependentRelationship;
  dob: string;
  /** The last day a current disability certification counts (disabilityCertifiedThrough), or null. */
  disabilityCertifiedThrough: string | null;
  /** A spouse-like dependent's divorce or dissolution date (the last day of the relationship), or null. */
  relationshipEndDate: string | null;
}

export interface SubmissionFacts {
  member: {
    id: string;
    employerId: string;
    hireDate: string;
    /** The rule of the member's latest rehire (members/rehire-rules.ts), null if never rehired. */
    rehireRule: string | null;
    terminationDate: string | null;
    subclassIds: readonly string[];
    hoursWorked: number | null;
    employmentStatus: string | null;
  };
  /** A new_hire or rehire enrollment without a rules_override: coverage starts as the configuration's coverage_start_rule says. */
  newHireStart: boolean;
  enrollment: {
    category: 'qle' | 'open_enrollment' | 'carrier_sync';
    reason: string | null;
    changeDate: string | null;
    effectiveStart: string | null;
    /** An admin's rules_override is set: it waives the waiting period where the configuration allows it. */
    overridden: boolean;
  };
  plans: readonly {
    /** Undefined when the plan does not exist for the caller. */
    plan: PlanFacts | undefined;
    coverageStart: string | null;
    coverageEnd: string | null;
    hasPrimaryCareProvider: boolean;
    dependents: readonly { dependent: DependentFacts | undefined; requestedVolumeCents: number | null }[];
    requestedVolumeCents: number | null;
    /** Beneficiary designations (life and AD&D plans), their shares in basis points. */
    designations: readonly { designation: 'primary' | 'contingent'; basisPoints: number }[];
  }[];
  waivers: readonly { lineOfCoverage: LineOfCoverage; dependentId: string | null; dependent: DependentFacts | undefined }[];
}

/** Every reason the enrollment cannot be submitted, each at its field path (docs/decisions.md "Enrollments"). */
export function submissionErrors(facts: SubmissionFacts): InputError[] {
  const errors: InputError[] = [];
  const { member, enrollment } = facts;
  if (enrollment.effectiveStart === null) errors.push(inputError(['effective_start'], 'An enrollment needs an effective_start to be submitted.'));

  if (enrollment.category === 'qle') {
    if (!isQleReason(enrollment.reason)) {
      errors.push(inputError(['reason'], 'A qle enrollment needs the qualifying life event as its reason.'));
    }
    // Its window, who it may add or drop and when coverage starts: the life event table (life-events.ts).
    if (enrollment.changeDate === null) errors.push(inputError(['change_date'], 'A qle enrollment needs the change_date of the event.'));
  }

  const linesElected = new Map<LineOfCoverage, number>();
  const electedByLine = new Map<LineOfCoverage, number[]>();
  facts.plans.forEach((elected, index) => {
    const at = (...path: (string | number)[]) => ['enrolled_plans', index, ...path];
    const plan = elected.plan;
    if (!plan || plan.employerId !== member.employerId) {
      errors.push(inputError(at('plan'), "No such plan for the member's employer."));
      return;
    }
    if (!linesElected.has(plan.lineOfCoverage)) linesElected.set(plan.lineOfCoverage, index);
    electedByLine.set(plan.lineOfCoverage, [...(electedByLine.get(plan.lineOfCoverage) ?? []), index]);
    const configuration = selectPlanConfiguration(member.subclassIds, plan.configurations);
    if (!configuration) {
      errors.push(inputError(at('plan'), 'The member is not eligible for this plan (no plan configuration applies to them).'));
    } else {
      const statuses = configuration.eligible_employment_statuses === null ? null : (JSON.parse(configuration.eligible_employment_statuses) as string[]);
      const ineligible = employmentIneligibility(member, {
        minimum_hours_per_week: configuration.minimum_hours_per_week,
        eligible_employment_statuses: statuses,
      });
      if (ineligible !== undefined) errors.push(inputError(at('plan'), `The member is not eligible for this plan: ${ineligible}`));
    }
    const start = elected.coverageStart;
    if (start !== null) {
      if (compareDates(start, plan.effectiveStart) < 0 || compareDates(start, plan.effectiveEnd) > 0) {
        errors.push(
          inputError(
            at('effective_start'),
            `The plan is offered from ${plan.effectiveStart} to ${plan.effectiveEnd}: expected a start from ${plan.effectiveStart} to ${plan.effectiveEnd}.`,
          ),
        );
      }
      if (elected.coverageEnd !== null && compareDates(elected.coverageEnd, start) < 0) {
        errors.push(inputError(at('effective_end'), 'Coverage cannot end before it starts.'));
      } else if (elected.coverageEnd !== null && compareDates(elected.coverageEnd, plan.effectiveEnd) > 0) {
        errors.push(inputError(at('effective_end'), `Coverage cannot end after the plan year, which ends on ${plan.effectiveEnd}.`));
      }
      if (configuration) {
        // A rehire that starts no new waiting period, or a waiver, counts none (members/rehire-rules.ts).
        const basis = waitingPeriodBasis(member, configuration, { overridden: enrollment.overridden });
        const eligibleFrom = waitingPeriodEnd(basis.from, basis.days);
        const newHireChoice = facts.newHireStart ? newHireStartChoice(basis.from, basis.days, configuration.coverage_start_rule, plan.effectiveEnd) : undefined;
        if (newHireChoice !== undefined && !isAllowedNewHireStart(start, newHireChoice)) {
          errors.push(
            inputError(
              at('effective_start'),
              `A new hire's coverage on this plan starts as coverage_start_rule ${configuration.coverage_start_rule} says from the hire date ${basis.from} and a ${basis.days}-day waiting period: ${describeNewHireStartChoice(newHireChoice)}.`,
            ),
          );
        } else if (compareDates(start, eligibleFrom) < 0) {
          errors.push(
            inputError(at('effective_start'), `The waiting period ends on ${eligibleFrom}; coverage cannot start before: expected ${eligibleFrom} or later.`),
          );
        }
      }
      if (member.terminationDate !== null && compareDates(start, member.terminationDate) > 0) {
        errors.push(
          inputError(
            at('effective_start'),
            `The member was terminated on ${member.terminationDate}; coverage cannot start after: expected ${member.terminationDate} at the latest.`,
          ),
        );
      }
    }
    if (plan.volumeRules !== null) errors.push(...volumeErrors(plan.volumeRules, elected, at));
    if (plan.rateBasis !== 'flat') {
      // Priced per unit of volume: every covered person has one.
      const unit = plan.rateBasis === 'per_1000_volume' ? '$1,000 of volume' : '$100 of monthly benefit';
      if (elected.requestedVolumeCents === null) errors.push(inputError(at('requested_volume'), `Required: the plan is rated per ${unit}.`));
      elected.dependents.forEach(({ requestedVolumeCents }, index) => {
        if (requestedVolumeCents === null)
          errors.push(inputError(at('enrolled_dependents', index, 'requested_volume'), `Required: the plan is rated per ${unit}.`));
      });
    }
    for (const kind of ['primary', 'contingent'] as const) {
      const shares = elected.designations.filter((designation) => designation.designation === kind);
      const total = shares.reduce((sum, share) => sum + share.basisPoints, 0);
      if (shares.length > 0 && total !== 10_000) {
        errors.push(
          inputError(
            at('beneficiary_designations'),
            `The ${kind} beneficiaries' shares add up to ${fromBasisPoints(total)}%; they must add up to exactly 100.00%.`,
          ),
        );
      }
    }
    if (plan.requiresPrimaryCareProvider && !elected.hasPrimaryCareProvider) {
      errors.push(inputError(at('primary_care_provider'), 'This plan requires a primary care provider.'));
    }
    const seen = new Set<string>();
    let spouseIndex: number | undefined;
    elected.dependents.forEach(({ dependent }, dependentIndex) => {
      const path = at('enrolled_dependents', dependentIndex, 'dependent');
      if (!dependent || dependent.memberId !== member.id) {
        errors.push(inputError(path, 'No such dependent of the member.'));
        return;
      }
      if (seen.has(dependent.id)) errors.push(inputError(path, 'The dependent is listed twice on this plan.'));
      seen.add(dependent.id);
      const spouseError = spouseErrorOn(dependent, start, spouseIndex, dependentIndex);
      if (spouseError !== undefined) errors.push(inputError(path, spouseError));
      else if (isSpouseLike(dependent.relationship)) spouseIndex ??= dependentIndex;
      if (configuration && start !== null && isChildLike(dependent.relationship)) {
        const { dependent_age_limit: limit, dependent_age_out_rule: rule } = configuration;
        if (compareDates(dependent.dob, start) > 0) {
          errors.push(inputError(path, 'The dependent is born after coverage starts.'));
        } else if (!isChildEligibleOn(dependent.dob, limit, rule, start, dependent.disabilityCertifiedThrough)) {
          errors.push(
            inputError(
              path,
              dependent.disabilityCertifiedThrough === null
                ? `The dependent aged out of this plan on ${ageOutDate(dependent.dob, limit, rule)} (age limit ${limit}); a disabled child stays covered with has_disability and a current disability_certified_on.`
                : `The dependent aged out of this plan on ${ageOutDate(dependent.dob, limit, rule)} (age limit ${limit}) and the disability certification counted only through ${dependent.disabilityCertifiedThrough}: record a new disability_certified_on.`,
            ),
          );
        }
      }
    });
  });

  for (const indices of electedByLine.values()) errors.push(...planYearErrors(facts, indices));

  facts.waivers.forEach((waiver, index) => {
    const elected = linesElected.get(waiver.lineOfCoverage);
    if (elected !== undefined) {
      errors.push(
        inputError(
          ['coverage_waivers', index, 'line_of_coverage'],
          `The line ${waiver.lineOfCoverage} is both elected (enrolled_plans.${elected}) and waived.`,
        ),
      );
    }
    if (waiver.dependentId !== null && (!waiver.dependent || waiver.dependent.memberId !== member.id)) {
      errors.push(inputError(['coverage_waivers', index, 'dependent'], 'No such dependent of the member.'));
    }
  });
  return errors;
}

/**
 * A spouse-like dependent on one election (docs/decisions.md "Dependents, beneficiaries and pay rates", One
 * spouse or partner; the rows and their source: dependents/spouse-rules.ts): covered only through the
 * relationship_end_date (the divorce or dissolution date, that day included), an ex_spouse only with that date
 * known, and one spouse or partner per election (`firstSpouseIndex`, the one already on it).
 */
function spouseErrorOn(dependent: DependentFacts, start: string | null, firstSpouseIndex: number | undefined, index: number): string | undefined {
  if (!isSpouseLike(dependent.relationship)) return undefined;
  // Without a coverage start (refused at effective_start) only the one-per-plan rule is judged.
  const standing = start === null ? 'current' : spouseStandingOn(dependent.relationship, dependent.relationshipEndDate, start);
  const source = `Source: ${spouseRuleSource(dependent.relationship)}.`;
  if (standing === 'end_date_unknown')
    return `An ex_spouse is an eligible dependent only through the divorce date: record it as the dependent's relationship_end_date. ${source}`;
  if (standing === 'ended')
    return `The relationship ended on ${dependent.relationshipEndDate} (relationship_end_date): the dependent is not an eligible spouse or partner for coverage starting on ${start}. ${source}`;
  if (firstSpouseIndex !== undefined && firstSpouseIndex !== index)
    return `One spouse or partner per plan: enrolled_dependents.${firstSpouseIndex} is already the member's spouse or partner on this plan. ${source}`;
  return undefined;
}

/**
 * A birth, an adoption or a placement for adoption covers the child from the event on (29 U.S.C. 1181(f)(2)(C);
 * 26 CFR 54.9801-6(b)), also past the end of the plan year it falls in: such an enrollment may name, on one line,
 * the plan of each plan year it spans (this year's plan from the event, the next year's from its first day), each
 * covering the child in its own plan year. Every other enrollment elects one plan per line.
 */
export const PLAN_YEAR_SPAN_REASONS: readonly EnrollmentReason[] = ['new_child', 'adopted_child'];

const PLAN_YEAR_SPAN_SOURCE = '29 U.S.C. 1181(f)(2)(C); 26 CFR 54.9801-6(b)';

/**
 * The plans elected on one line (`indices` into `facts.plans`, plans that exist): one, or for a
 * PLAN_YEAR_SPAN_REASONS enrollment one per plan year, in consecutive plan years of one carrier group, each but the
 * last running to its plan year's end and each but the first starting on its plan year's first day (no gap, no
 * overlap). A plan year's own dates and the persons on it are checked like any election.
 */
function planYearErrors(facts: SubmissionFacts, indices: readonly number[]): InputError[] {
  if (indices.length < 2) return [];
  const { enrollment } = facts;
  const planOf = (index: number) => facts.plans[index]!.plan!;
  const line = planOf(indices[0]!).lineOfCoverage;
  if (enrollment.category !== 'qle' || !PLAN_YEAR_SPAN_REASONS.includes(enrollment.reason as EnrollmentReason)) {
    return indices
      .slice(1)
      .map((index) =>
        inputError(
          ['enrolled_plans', index, 'plan'],
          `Only one plan per line of coverage: enrolled_plans.${indices[0]} is already ${line}. Only a new_child or adopted_child enrollment names the plan of each plan year it spans (${PLAN_YEAR_SPAN_SOURCE}).`,
        ),
      );
  }
  const startOf = (index: number) => facts.plans[index]!.coverageStart ?? planOf(index).effectiveStart;
  const ordered = [...indices].sort((a, b) => compareDates(startOf(a), startOf(b)) || a - b);
  const errors: InputError[] = [];
  for (const [position, index] of ordered.entries()) {
    if (position === 0) continue;
    const previousIndex = ordered[position - 1]!;
    const previous = planOf(previousIndex);
    const plan = planOf(index);
    const nextYear = addDays(previous.effectiveEnd, 1);
    if (plan.effectiveStart !== nextYear) {
      errors.push(
        inputError(
          ['enrolled_plans', index, 'plan'],
          `A ${enrollment.reason} enrollment names one ${line} plan per plan year it spans: this plan's year starts on ${plan.effectiveStart}, not on ${nextYear}, the day after the plan year of enrolled_plans.${previousIndex} ends (${PLAN_YEAR_SPAN_SOURCE}).`,
        ),
      );
      continue;
    }
    if (plan.groupId !== previous.groupId) {
      errors.push(
        inputError(
          ['enrolled_plans', index, 'plan'],
          `The plans of the plan years a ${enrollment.reason} enrollment spans are of one carrier group, that of enrolled_plans.${previousIndex}: a move to another carrier is an election of the new plan year's open enrollment.`,
        ),
      );
    }
    const start = facts.plans[index]!.coverageStart;
    if (start !== null && start !== plan.effectiveStart) {
      errors.push(
        inputError(
          ['enrolled_plans', index, 'effective_start'],
          `The next plan year's plan covers from its first day, the day after enrolled_plans.${previousIndex} ends: expected ${plan.effectiveStart} (${PLAN_YEAR_SPAN_SOURCE}).`,
        ),
      );
    }
    if (facts.plans[previousIndex]!.coverageEnd !== previous.effectiveEnd) {
      errors.push(
        inputError(
          ['enrolled_plans', previousIndex, 'effective_end'],
          `Coverage runs to the end of its plan year, ${previous.effectiveEnd}, when the next plan year's plan (enrolled_plans.${index}) follows (${PLAN_YEAR_SPAN_SOURCE}).`,
        ),
      );
    }
  }
  return errors;
}
