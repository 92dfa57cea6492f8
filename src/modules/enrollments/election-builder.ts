/**
 * Elections as rows, priced (docs/decisions.md "Enrollments"): the facts are read once (loadElectionFacts), then
 * `buildElections` makes the enrolled plans, dependents, designations and waivers from them without touching the
 * database: the tier from the dependents, the premium from the plan's rates, the employer share from the member's
 * plan configuration, volumes decided (or kept, for a re-election). Plans without rates take the client's figures
 * as given. References must exist; eligibility waits for submission (submission-check.ts).
 */
import type { Executor } from '../../db/database.ts';
import { addDays, compareDates } from '../../shared/dates.ts';
import { ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toCents } from '../../shared/money.ts';
import { findCoverageInForce } from '../coverage/coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import { newHireCoverageStart, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import { parseVolumeRules } from '../plans/plan.service.ts';
import type { PlanRow } from '../plans/plan.table.ts';
import { toBasisPoints } from '../plans/pricing.ts';
import { electionPrice } from './enrollment-pricing.ts';
import { decideVolume, guaranteedIssueCents, INITIAL_ELECTION_REASONS } from './volume-decisions.ts';
import * as repository from './enrollment.repository.ts';
import { primaryCareProviderJson, takesDesignations } from './enrollment.response.ts';
import type { CoverageWaiverInput, EnrolledPlanInput } from './enrollment.schemas.ts';
import type { BeneficiaryDesignationRow, EnrolledDependentRow, EnrolledPlanRow, EnrollmentRow } from './enrollment.table.ts';
import { storedPlanInputs, volumeColumns, type KeptVolumes, type VolumeColumns } from './stored-elections.ts';
import { findBeneficiaryMembers } from '../../db/references.ts';
import { findDependentsByIds } from '../dependents/dependent.repository.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';
import { waitingPeriodBasis } from '../members/rehire-rules.ts';

type Elections = repository.Elections;

/** What elections are built for: the enrollment, its member, the inputs, and volumes kept instead of decided. */
export interface ElectionRequest {
  enrollment: EnrollmentRow;
  member: MemberRow;
  plans: readonly EnrolledPlanInput[];
  waivers: readonly CoverageWaiverInput[];
  /** By election index: volumes a re-election carries on. Absent for a new election, whose volumes are decided. */
  kept?: readonly KeptVolumes[];
  /** The time the rows are created. */
  now: string;
}

/** Everything building elections reads, read once. */
export interface ElectionFacts {
  plans: ReadonlyMap<string, PlanRow>;
  dependents: ReadonlyMap<string, DependentRow>;
  configurations: ReadonlyMap<string, readonly PlanConfigurationRow[]>;
  subclassIds: readonly string[];
  beneficiaries: ReadonlyMap<string, { id: string; member_id: string }>;
  /** The elections (by index) whose persons are late entrants on a plan asking EOI of them (lateEntrantLines). */
  lateEntrants: ReadonlySet<number>;
}

/** The elections of `request`, priced: the facts read, then built from them. Throws ValidationFailed with every bad reference. */
export async function electionsFor(trx: Executor, request: ElectionRequest): Promise<Elections> {
  return buildElections(await loadElectionFacts(trx, request), request);
}

/**
 * The stored elections `plans` elected again for `enrollment` (their persons, designations, providers and end;
 * the start `starts` gives by index), with the volumes `kept` gives, priced on them.
 */
export async function reelect(
  trx: Executor,
  input: Omit<ElectionRequest, 'plans' | 'waivers'> & { stored: Elections; plans: readonly EnrolledPlanRow[]; starts: readonly (string | null)[] },
): Promise<Elections> {
  const { stored, plans, starts, ...request } = input;
  const inputs = storedPlanInputs({ ...stored, plans: [...plans] }).map((planInput, index) => ({
    ...planInput,
    effective_start: starts[index] ?? null,
    effective_end: plans[index]!.effective_end,
  }));
  return electionsFor(trx, { ...request, plans: inputs, waivers: [] });
}

export async function loadElectionFacts(trx: Executor, request: Omit<ElectionRequest, 'now'>): Promise<ElectionFacts> {
  const { member, plans: planInputs, waivers } = request;
  const plans = new Map(
    (
      await findPlansByIds(
        trx,
        member.provider_id,
        planInputs.map((plan) => plan.plan),
      )
    ).map((plan) => [plan.id, plan]),
  );
  const dependentIds = [
    ...planInputs.flatMap((plan) => (plan.enrolled_dependents ?? []).map((d) => d.dependent)),
    ...waivers.flatMap((w) => (w.dependent ? [w.dependent] : [])),
  ];
  const dependents = new Map((await findDependentsByIds(trx, member.provider_id, dependentIds)).map((dependent) => [dependent.id, dependent]));
  const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, member.provider_id, [...plans.keys()]), (c) => c.plan_id);
  const subclassIds = await findMemberSubclassIds(trx, member.id);
  const beneficiaryIds = planInputs.flatMap((plan) => (plan.beneficiary_designations ?? []).map((d) => d.beneficiary));
  const beneficiaries = new Map((await findBeneficiaryMembers(trx, member.provider_id, beneficiaryIds)).map((b) => [b.id, b]));
  const lateEntrants = request.kept === undefined ? await lateEntrantLines(trx, request, plans) : new Set<number>();
  return { plans, dependents, configurations, subclassIds, beneficiaries, lateEntrants };
}

/**
 * The elections (by index) whose persons are late entrants on a plan that asks EOI of them for any amount
 * (volume_rules.late_entrant_eoi): outside the member's initial window (INITIAL_ELECTION_REASONS; a
 * carrier_sync only records coverage) and with no coverage on the plan's line the day before it starts.
 */
async function lateEntrantLines(trx: Executor, request: Omit<ElectionRequest, 'now'>, plans: ReadonlyMap<string, PlanRow>): Promise<Set<number>> {
  const { enrollment, member } = request;
  const late = new Set<number>();
  if (enrollment.category === 'carrier_sync' || (enrollment.category === 'qle' && INITIAL_ELECTION_REASONS.includes(enrollment.reason ?? ''))) return late;
  for (const [index, input] of request.plans.entries()) {
    const plan = plans.get(input.plan);
    if (!plan?.volume_rules || !parseVolumeRules(plan.volume_rules)?.late_entrant_eoi) continue;
    const start = input.effective_start ?? enrollment.effective_start ?? plan.effective_start;
    const before = await findCoverageInForce(trx, member.id, [plan.line_of_coverage], addDays(start, -1), enrollment.id);
    if (before.length === 0) late.add(index);
  }
  return late;
}

/** Enrolled plans, dependents, designations and waivers as rows, priced, from `facts` alone. Throws ValidationFailed with every error. */
export function buildElections(facts: ElectionFacts, request: ElectionRequest): Elections {
  const errors: InputError[] = [];
  const elections: Elections = { plans: [], dependents: [], waivers: [], designations: [], lines: new Map(), planRows: facts.plans };
  request.plans.forEach((input, index) => {
    const elected = electPlan(facts, request, input, index, errors);
    if (!elected) return;
    elections.plans.push(elected.plan);
    elections.lines.set(elected.plan.id, elected.lineOfCoverage);
    elections.designations.push(...elected.designations);
    elections.dependents.push(...elected.dependents);
  });
  request.waivers.forEach((waiver, index) => {
    const { member } = request;
    if (waiver.member && waiver.member !== member.id)
      errors.push(inputError(['coverage_waivers', index, 'member'], "A waiver names the enrollment's own member."));
    const dependent = waiver.dependent ? facts.dependents.get(waiver.dependent) : undefined;
    if (waiver.dependent && (!dependent || dependent.member_id !== member.id)) {
      errors.push(inputError(['coverage_waivers', index, 'dependent'], 'No such dependent of the member.'));
    }
    elections.waivers.push({
      id: newId('coverage_waiver'),
      enrollment_id: request.enrollment.id,
      position: index,
      line_of_coverage: waiver.line_of_coverage,
      reason: waiver.reason,
      member_id: waiver.dependent ? null : member.id,
      dependent_id: waiver.dependent ?? null,
    });
  });
  if (errors.length > 0) throw new ValidationFailed(errors);
  return elections;
}

/** One election (`input`, at `index`) as rows; undefined when its plan is not the member's employer's. Errors go to `errors`. */
function electPlan(facts: ElectionFacts, request: ElectionRequest, input: EnrolledPlanInput, index: number, errors: InputError[]) {
  const { enrollment, member, now } = request;
  const plan = facts.plans.get(input.plan);
  if (!plan || plan.employer_id !== member.employer_id) {
    errors.push(inputError(['enrolled_plans', index, 'plan'], "No such plan for the member's employer."));
    return undefined;
  }
  const covered = coveredDependents(facts, member, input, index, errors);
  const configurations = facts.configurations.get(plan.id) ?? [];
  const start = coverageStart(facts, request, input, plan);
  // Volumes first: a plan rated per unit of volume prices the volume in force.
  const volumes = electionVolumes(plan, input, covered, request.kept?.[index], facts.lateEntrants.has(index));
  const volumesInForce = { member: volumes.member.volume_cents, dependents: new Map([...volumes.dependents].map(([id, volume]) => [id, volume.volume_cents])) };
  const price = electionPrice(plan, configurations, facts.subclassIds, member, covered, start, volumesInForce, input, ['enrolled_plans', index], errors);
  const enrolledPlan: EnrolledPlanRow = {
    id: newId('enrolled_plan'),
    provider_id: member.provider_id,
    enrollment_id: enrollment.id,
    member_id: member.id,
    plan_id: plan.id,
    position: index,
    effective_start: start,
    effective_end: input.effective_end ?? enrollment.effective_end ?? plan.effective_end,
    premium_cents: price.premium,
    employer_contribution_cents: price.employer,
    member_contribution_cents: price.member,
    payroll_provider_external_id: input.payroll_provider_external_id ?? null,
    ...volumes.member,
    primary_care_provider: primaryCareProviderJson(input.primary_care_provider),
    member_id_card_id: null,
    created_at: now,
  };
  const designations = designationRows(facts, request, input, index, enrolledPlan.id, plan, errors);
  const dependents = (input.enrolled_dependents ?? []).flatMap((dependentInput, dependentIndex): EnrolledDependentRow[] => {
    const volume = volumes.dependents.get(dependentInput.dependent);
    if (volume === undefined) return [];
    return [
      {
        id: newId('enrolled_dependent'),
        provider_id: member.provider_id,
        enrolled_plan_id: enrolledPlan.id,
        dependent_id: dependentInput.dependent,
        position: dependentIndex,
        ...volume,
        primary_care_provider: primaryCareProviderJson(dependentInput.primary_care_provider),
        member_id_card_id: null,
        created_at: now,
      },
    ];
  });
  return { plan: enrolledPlan, lineOfCoverage: plan.line_of_coverage, designations, dependents };
}

/** The dependents an election covers; those that are not the member's are errors. */
function coveredDependents(facts: ElectionFacts, member: MemberRow, input: EnrolledPlanInput, index: number, errors: InputError[]): DependentRow[] {
  const covered: DependentRow[] = [];
  (input.enrolled_dependents ?? []).forEach((dependentInput, dependentIndex) => {
    const dependent = facts.dependents.get(dependentInput.dependent);
    if (!dependent || dependent.member_id !== member.id) {
      errors.push(inputError(['enrolled_plans', index, 'enrolled_dependents', dependentIndex, 'dependent'], 'No such dependent of the member.'));
    } else {
      covered.push(dependent);
    }
  });
  return covered;
}

/**
 * The election's first day: as given; for the plan of a later plan year than another plan the enrollment elects on
 * its line (a birth's next plan year, enrollment-rules.ts PLAN_YEAR_SPAN_REASONS), that plan year's first day; else
 * the enrollment's, else (a new hire's) the plan configuration's rule, else the plan's.
 */
function coverageStart(facts: ElectionFacts, request: ElectionRequest, input: EnrolledPlanInput, plan: PlanRow): string {
  const { enrollment, member } = request;
  const configuration = isNewHireStart(enrollment) ? selectPlanConfiguration(facts.subclassIds, facts.configurations.get(plan.id) ?? []) : undefined;
  const basis = configuration && waitingPeriodBasis({ hireDate: member.hire_date, rehireRule: member.rehire_rule }, configuration, { overridden: false });
  const ruleStart = configuration && basis && newHireCoverageStart(basis.from, basis.days, configuration.coverage_start_rule);
  return input.effective_start ?? laterPlanYearStart(facts, request, plan) ?? enrollment.effective_start ?? ruleStart ?? plan.effective_start;
}

/** `plan`'s first day when its plan year starts after the enrollment does and after another plan the enrollment elects on its line ends. */
function laterPlanYearStart(facts: ElectionFacts, request: ElectionRequest, plan: PlanRow): string | undefined {
  const start = request.enrollment.effective_start;
  if (start === null || compareDates(plan.effective_start, start) <= 0) return undefined;
  const follows = request.plans.some((other) => {
    const earlier = facts.plans.get(other.plan);
    return earlier !== undefined && earlier.line_of_coverage === plan.line_of_coverage && compareDates(earlier.effective_end, plan.effective_start) < 0;
  });
  return follows ? plan.effective_start : undefined;
}

/** The volumes of the member and each covered dependent: kept ones as given, else decided (docs/decisions.md "Enrollments", EOI). */
function electionVolumes(
  plan: PlanRow,
  input: EnrolledPlanInput,
  covered: readonly DependentRow[],
  kept: KeptVolumes | undefined,
  lateEntrant: boolean,
): { member: VolumeColumns; dependents: Map<string, VolumeColumns> } {
  const rules = parseVolumeRules(plan.volume_rules);
  const decided = (requested: string | null | undefined, person: 'member' | 'spouse' | 'child') =>
    volumeColumns(decideVolume(requested ? toCents(requested) : null, guaranteedIssueCents(plan.guaranteed_issue_volume_cents, rules, person), lateEntrant));
  const member = kept?.member ?? decided(input.requested_volume, 'member');
  const dependents = new Map(
    (input.enrolled_dependents ?? []).flatMap((dependentInput) => {
      const dependent = covered.find((d) => d.id === dependentInput.dependent);
      if (!dependent) return [];
      const volume =
        kept?.dependents.get(dependent.id) ?? decided(dependentInput.requested_volume, isChildLike(dependent.member_relationship) ? 'child' : 'spouse');
      return [[dependent.id, volume] as const];
    }),
  );
  return { member, dependents };
}

/** The beneficiary designations of one election (life and AD&D plans only), each named once with a share above 0. */
function designationRows(
  facts: ElectionFacts,
  request: ElectionRequest,
  input: EnrolledPlanInput,
  index: number,
  enrolledPlanId: string,
  plan: PlanRow,
  errors: InputError[],
): BeneficiaryDesignationRow[] {
  const designations = input.beneficiary_designations ?? [];
  if (designations.length > 0 && !takesDesignations(plan.line_of_coverage)) {
    errors.push(
      inputError(
        ['enrolled_plans', index, 'beneficiary_designations'],
        `Only life and accidental_death plans name beneficiaries; this plan is ${plan.line_of_coverage}.`,
      ),
    );
    return [];
  }
  const rows: BeneficiaryDesignationRow[] = [];
  const named = new Set<string>();
  designations.forEach((designation, designationIndex) => {
    const path = ['enrolled_plans', index, 'beneficiary_designations', designationIndex];
    const beneficiary = facts.beneficiaries.get(designation.beneficiary);
    if (!beneficiary || beneficiary.member_id !== request.member.id) {
      errors.push(inputError([...path, 'beneficiary'], 'No such beneficiary of the member.'));
      return;
    }
    const key = `${designation.designation}|${designation.beneficiary}`;
    if (named.has(key)) errors.push(inputError([...path, 'beneficiary'], `The beneficiary is named twice as ${designation.designation}.`));
    named.add(key);
    const basisPoints = toBasisPoints(designation.percentage);
    if (basisPoints === 0) errors.push(inputError([...path, 'percentage'], 'A share must be more than 0.'));
    rows.push({
      id: newId('beneficiary_designation'),
      provider_id: request.member.provider_id,
      enrolled_plan_id: enrolledPlanId,
      beneficiary_id: designation.beneficiary,
      designation: designation.designation,
      percentage_basis_points: basisPoints,
      position: designationIndex,
    });
  });
  return rows;
}

/** new_hire and rehire enrollments start coverage by the plan configuration's coverage_start_rule, unless overridden. */
export function isNewHireStart(enrollment: Pick<EnrollmentRow, 'category' | 'reason' | 'rules_override_reason'>): boolean {
  return enrollment.category === 'qle' && (enrollment.reason === 'new_hire' || enrollment.reason === 'rehire') && enrollment.rules_override_reason === null;
}

/** A new hire's enrollment given no effective_start takes the earliest start its plans' rules gave. */
export function computedStart(enrollment: EnrollmentRow, elections: Elections): string | null {
  if (!isNewHireStart(enrollment) || elections.plans.length === 0) return null;
  return elections.plans.map((plan) => plan.effective_start!).reduce((earliest, start) => (compareDates(start, earliest) < 0 ? start : earliest));
}
