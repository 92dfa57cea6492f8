/**
 * What save_and_submit checks (docs/decisions.md "Enrollments" and "Life events"): the facts are gathered once
 * (the window of the submission day, plans, configurations, dependents, the member's subclasses, and for a life
 * event the coverage before and after on each line), then the pure rules (`submissionErrors`, `lifeEventErrors`)
 * return every refusal at its field path, so that one 400 lists them all.
 */
import type { Executor } from '../../db/database.ts';
import { compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import { findCoverageInForce } from '../coverage/coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import { disabilityCertifiedThrough, isChildEligibleOn, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { spouseStandingOn } from '../dependents/spouse-rules.ts';
import { isChildLike, isSpouseLike } from '../plans/coverage-tier.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { parseVolumeRules } from '../plans/plan.service.ts';
import type { LineOfCoverage, PlanRow } from '../plans/plan.table.ts';
import { isNewHireStart } from './election-builder.ts';
import { submissionErrors, type DependentFacts, type SubmissionFacts } from './enrollment-rules.ts';
import * as repository from './enrollment.repository.ts';
import type { EnrolledPlanRow, EnrollmentRow } from './enrollment.table.ts';
import { lifeEventErrors, lifeEventRule, type LifeEventReason, type LineBeforeAfter } from './life-events.ts';
import { findDependentsByIds } from '../dependents/dependent.repository.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import { findOpenWindowOn, findWindowOfEnrollmentById } from '../open-enrollment/open-enrollment-window.repository.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';

type Elections = repository.Elections;

/** Every refusal of the submission, and the open enrollment window it belongs to (null outside one). */
export interface SubmissionCheck {
  errors: InputError[];
  windowId: string | null;
}

/** Checks the enrollment (locked, with its `elections` as stored) for submission on `today`. */
export async function checkSubmission(
  trx: Executor,
  enrollment: EnrollmentRow,
  member: MemberRow,
  elections: Elections,
  today: string,
): Promise<SubmissionCheck> {
  const window = await windowOfSubmission(trx, enrollment, elections, today);
  const planIds = elections.plans.map((plan) => plan.plan_id);
  const plans = new Map((await findPlansByIds(trx, member.provider_id, planIds)).map((plan) => [plan.id, plan]));
  const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, member.provider_id, planIds), (c) => c.plan_id);
  const dependentIds = [...elections.dependents.map((d) => d.dependent_id), ...elections.waivers.flatMap((w) => (w.dependent_id ? [w.dependent_id] : []))];
  const dependents = new Map((await findDependentsByIds(trx, member.provider_id, dependentIds)).map((d) => [d.id, d]));
  const subclassIds = await findMemberSubclassIds(trx, member.id);
  // Whether a dependent may be covered on the plan from `start`: the same rules submissionErrors applies to an election.
  const eligibleOn = (dependent: DependentRow, planId: string, start: string): boolean => {
    if (isSpouseLike(dependent.member_relationship)) return spouseStandingOn(dependent.member_relationship, dependent.relationship_end_date, start) !== 'ended';
    const configuration = selectPlanConfiguration(subclassIds, configurations.get(planId) ?? []);
    if (!configuration || !isChildLike(dependent.member_relationship)) return true;
    const certified = disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on);
    return isChildEligibleOn(dependent.dob, configuration.dependent_age_limit, configuration.dependent_age_out_rule, start, certified);
  };
  const rule = enrollment.category === 'qle' ? lifeEventRule(enrollment.reason) : undefined;
  const lifeEvent =
    rule && enrollment.change_date !== null && enrollment.rules_override_reason === null
      ? lifeEventErrors({
          reason: enrollment.reason as LifeEventReason,
          changeDate: enrollment.change_date,
          otherCoverage: enrollment.other_coverage,
          medicareEntitledDependentId: enrollment.medicare_entitled_dependent_id,
          today,
          hireDate: member.hire_date,
          effectiveStart: enrollment.effective_start,
          lines: await linesBeforeAndAfter(trx, enrollment, elections, plans, dependents, enrollment.effective_start ?? today, eligibleOn),
        })
      : [];
  const facts = submissionFacts({ enrollment, member, elections, plans, configurations, dependents, subclassIds });
  return { errors: [...window.errors, ...lifeEvent, ...submissionErrors(facts)], windowId: window.windowId };
}

/**
 * An open_enrollment enrollment belongs to the employer's active window whose dates contain the day of
 * submission (a passive one, to the window completing it), and may elect only that window's plans
 * (docs/decisions.md "Open enrollment windows").
 */
async function windowOfSubmission(trx: Executor, enrollment: EnrollmentRow, elections: Elections, today: string): Promise<SubmissionCheck> {
  if (enrollment.category !== 'open_enrollment') return { errors: [], windowId: enrollment.open_enrollment_window_id };
  const window =
    enrollment.reason === 'passive_open_enrollment' && enrollment.open_enrollment_window_id !== null
      ? await findWindowOfEnrollmentById(trx, enrollment.open_enrollment_window_id)
      : await findOpenWindowOn(trx, enrollment.provider_id, enrollment.employer_id, today);
  if (!window) {
    return {
      errors: [inputError(['category'], `No open enrollment window of the employer is active on ${today}: outside a window, changes are qle enrollments.`)],
      windowId: null,
    };
  }
  const offered = new Set(window.planIds);
  const errors = elections.plans.flatMap((plan) =>
    offered.has(plan.plan_id) ? [] : [inputError(['enrolled_plans', plan.position, 'plan'], `The plan is not offered in open enrollment window ${window.id}.`)],
  );
  // Open enrollment elections take effect on the window's renewal date, the first day of the new plan year.
  if (window.renewalDate !== null && enrollment.effective_start !== null && enrollment.effective_start !== window.renewalDate) {
    errors.push(inputError(['effective_start'], `Open enrollment elections start on the window's renewal_date: expected ${window.renewalDate}.`));
  }
  return { errors, windowId: window.id };
}

/** The facts `submissionErrors` judges, from what checkSubmission read. */
function submissionFacts(read: {
  enrollment: EnrollmentRow;
  member: MemberRow;
  elections: Elections;
  plans: ReadonlyMap<string, PlanRow>;
  configurations: ReadonlyMap<string, PlanConfigurationRow[]>;
  dependents: ReadonlyMap<string, DependentRow>;
  subclassIds: readonly string[];
}): SubmissionFacts {
  const { enrollment, member, elections, plans, configurations } = read;
  const dependentFacts = (id: string): DependentFacts | undefined => {
    const dependent = read.dependents.get(id);
    return dependent
      ? {
          id,
          memberId: dependent.member_id,
          relationship: dependent.member_relationship,
          dob: dependent.dob,
          disabilityCertifiedThrough: disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on),
          relationshipEndDate: dependent.relationship_end_date,
        }
      : undefined;
  };
  return {
    member: {
      id: member.id,
      employerId: member.employer_id,
      hireDate: member.hire_date,
      rehireRule: member.rehire_rule,
      terminationDate: member.termination_date,
      subclassIds: read.subclassIds,
      hoursWorked: member.hours_worked,
      employmentStatus: member.employment_status,
    },
    newHireStart: isNewHireStart(enrollment),
    enrollment: {
      category: enrollment.category,
      reason: enrollment.reason,
      changeDate: enrollment.change_date,
      effectiveStart: enrollment.effective_start,
      overridden: enrollment.rules_override_reason !== null,
    },
    plans: elections.plans.map((elected) => {
      const plan = plans.get(elected.plan_id);
      return {
        plan: plan && {
          id: plan.id,
          employerId: plan.employer_id,
          groupId: plan.group_id,
          lineOfCoverage: plan.line_of_coverage,
          effectiveStart: plan.effective_start,
          effectiveEnd: plan.effective_end,
          requiresPrimaryCareProvider: Boolean(plan.requires_primary_care_provider),
          configurations: configurations.get(plan.id) ?? [],
          volumeRules: parseVolumeRules(plan.volume_rules),
          rateBasis: plan.rate_basis,
        },
        coverageStart: elected.effective_start,
        coverageEnd: elected.effective_end,
        hasPrimaryCareProvider: elected.primary_care_provider !== null,
        dependents: elections.dependents
          .filter((d) => d.enrolled_plan_id === elected.id)
          .map((d) => ({ dependent: dependentFacts(d.dependent_id), requestedVolumeCents: d.requested_volume_cents })),
        requestedVolumeCents: elected.requested_volume_cents,
        designations: elections.designations
          .filter((d) => d.enrolled_plan_id === elected.id)
          .map((d) => ({ designation: d.designation, basisPoints: d.percentage_basis_points })),
      };
    }),
    waivers: elections.waivers.map((waiver) => ({
      lineOfCoverage: waiver.line_of_coverage as LineOfCoverage,
      dependentId: waiver.dependent_id,
      dependent: waiver.dependent_id ? dependentFacts(waiver.dependent_id) : undefined,
    })),
  };
}

/**
 * Each line the enrollment elects or waives (for the member), with the coverage in force on it on `start`
 * (another enrollment's) and what the enrollment makes of it: what a life event rule judges.
 */
async function linesBeforeAndAfter(
  trx: Executor,
  enrollment: EnrollmentRow,
  elections: Elections,
  plans: ReadonlyMap<string, Pick<PlanRow, 'id' | 'line_of_coverage' | 'previous_plan_id'>>,
  elected: ReadonlyMap<string, DependentRow>,
  start: string,
  eligibleOn: (dependent: DependentRow, planId: string, start: string) => boolean,
): Promise<LineBeforeAfter[]> {
  const electedPlans = elections.plans.flatMap((row) => {
    const plan = plans.get(row.plan_id);
    return plan ? [{ row, plan }] : [];
  });
  const waived = elections.waivers.filter((waiver) => waiver.dependent_id === null);
  const lines = [...new Set([...electedPlans.map(({ plan }) => plan.line_of_coverage), ...waived.map((waiver) => waiver.line_of_coverage as LineOfCoverage)])];
  const inForce = await findCoverageInForce(trx, enrollment.member_id, lines, start, enrollment.id);
  const beforeDependents = await repository.findEnrolledDependentsOf(
    trx,
    inForce.map((row) => row.id),
  );
  // The elected dependents are loaded already; only those covered before and no longer elected are read.
  const unknown = beforeDependents.map((d) => d.dependent_id).filter((id) => !elected.has(id));
  const rows = new Map([...elected, ...(await findDependentsByIds(trx, enrollment.provider_id, unknown)).map((d) => [d.id, d] as const)]);
  const persons = (ids: readonly string[]) => new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!.member_relationship] as const] : [])));
  // Who the line's election could not cover from its start is leaving anyway (judged on the elected plan's configuration).
  const electedPlanOn = (line: LineOfCoverage) => electedPlans.find(({ plan }) => plan.line_of_coverage === line)?.plan.id;
  const before = (line: LineOfCoverage) => {
    const row = inForce.find((entry) => entry.line_of_coverage === line);
    if (!row) return null;
    const ids = beforeDependents.filter((d) => d.enrolled_plan_id === row.id).map((d) => d.dependent_id);
    const planId = electedPlanOn(line) ?? row.plan_id;
    const leaving = new Set(ids.filter((id) => rows.has(id) && !eligibleOn(rows.get(id)!, planId, start)));
    return { planId: row.plan_id, dependents: persons(ids), leaving };
  };
  return lines.map((line): LineBeforeAfter => {
    // A birth or an adoption may name the plan of each plan year it spans: the first (earliest start) is the election judged.
    const [election, ...laterPlanYears] = electedPlans
      .filter(({ plan }) => plan.line_of_coverage === line)
      .sort((a, b) => compareDates(a.row.effective_start ?? start, b.row.effective_start ?? start) || a.row.position - b.row.position);
    if (!election) {
      const waiverIndex = elections.waivers.findIndex((waiver) => waiver.dependent_id === null && waiver.line_of_coverage === line);
      return { lineOfCoverage: line, path: ['coverage_waivers', waiverIndex], before: before(line), after: null };
    }
    const personsOn = (row: EnrolledPlanRow) => persons(elections.dependents.filter((d) => d.enrolled_plan_id === row.id).map((d) => d.dependent_id));
    return {
      lineOfCoverage: line,
      path: ['enrolled_plans', election.row.position],
      before: before(line),
      after: { planId: election.plan.id, previousPlanId: election.plan.previous_plan_id, dependents: personsOn(election.row) },
      laterPlanYears: laterPlanYears.map(({ row }) => ({ path: ['enrolled_plans', row.position], dependents: personsOn(row) })),
    };
  });
}
