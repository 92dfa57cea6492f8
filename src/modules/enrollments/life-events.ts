import { addDays, compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import { firstOfNextMonth } from '../plan-configurations/eligibility.ts';
import { isChildLike, type DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { EnrollmentReason } from './enrollment-rules.ts';

/**
 * What a qualifying life event permits: one row per `qle` reason of the seed, each citing its
 * source. Checked at save_and_submit against the coverage in force on the enrollment's effective_start; an
 * admin key may submit past a row with `rules_override` (recorded on the enrollment). docs/decisions.md "Life events"
 * shows this table to integrators (test/api/life-events.test.ts keeps the two equal).
 *
 * Sources: HIPAA special enrollment, 29 U.S.C. 1181(f) and 29 CFR 2590.701-6 (group health plans); IRC §125
 * election changes, 26 CFR 1.125-4 (every pre-tax election; its consistency rule, 1.125-4(c)(3), is what
 * limits who may be added or dropped).
 */

/** Who an election adds to or drops from a line: the member, a spouse-like or a child-like dependent. */
export type EventPerson = 'member' | 'spouse' | 'child';

/** Every person kind. */
const ANYONE: readonly EventPerson[] = ['member', 'spouse', 'child'];
const DEPENDENTS: readonly EventPerson[] = ['spouse', 'child'];
const NO_ONE: readonly EventPerson[] = [];

/**
 * The other coverage a lost_coverage / gain_coverage event (or its dependent_ form) is about (enrollment field
 * `other_coverage`): losing Medicaid or CHIP, or becoming eligible for premium assistance under them, opens a
 * 60-day window (29 U.S.C. 1181(f)(3)); every other kind 30 days.
 */
export const OTHER_COVERAGE_TYPES = [
  'group_health_plan',
  'individual_coverage',
  'medicaid',
  'chip',
  'medicaid_chip_premium_assistance',
  'medicare',
  'tricare',
  'other',
] as const;
export type OtherCoverageType = (typeof OTHER_COVERAGE_TYPES)[number];
const MEDICAID_CHIP: ReadonlySet<OtherCoverageType> = new Set(['medicaid', 'chip', 'medicaid_chip_premium_assistance']);

/**
 * When coverage elected for the event starts:
 * - `event_date`: on change_date itself, retroactively (births, adoptions, placements);
 * - `by_first_of_next_month`: on or after change_date and no later than the first day of the month after the
 *   day of submission (the request);
 * - `free`: any day the plan and the member's waiting period allow (the general rules).
 */
export type CoverageStartRule = 'event_date' | 'by_first_of_next_month' | 'free';

export interface LifeEventRule {
  /** Days after the event (or the member's hire date on record) the enrollment may still be submitted. */
  windowDays: number;
  /** The window for Medicaid/CHIP loss or premium-assistance eligibility (other_coverage), when longer. */
  medicaidChipWindowDays?: number;
  /** Where the window starts: the change_date sent, or the hire date on the member record (ignoring change_date). */
  windowFrom: 'change_date' | 'hire_date';
  /** How many days after the day of submission change_date may be (0: not in the future). */
  futureDays: number;
  /** Who may gain coverage on a line (a line elected anew adds the member too). */
  add: readonly EventPerson[];
  /** Who may lose coverage on a line (a waived line drops everyone on it). */
  drop: readonly EventPerson[];
  /** Whether a covered line may move to another plan: never, only when someone is enrolled for the event, or always. */
  changePlan: 'never' | 'with_enrollment' | 'always';
  /** A person the event must add (a birth adds a child). */
  mustAdd?: EventPerson;
  coverageStart: CoverageStartRule;
  source: string;
}

/** HIPAA special enrollment windows: 30 days (29 U.S.C. 1181(f)(1)(C), (f)(2)(A)). */
const SPECIAL_ENROLLMENT_DAYS = 30;
/** Medicaid/CHIP loss or premium-assistance eligibility: 60 days (29 U.S.C. 1181(f)(3)(A)). */
const MEDICAID_CHIP_DAYS = 60;
/** Plan-set window for §125 changes in status and the employer's own events. */
const PLAN_WINDOW_DAYS = 30;

const row = (fields: Omit<LifeEventRule, 'windowFrom' | 'futureDays'> & Partial<Pick<LifeEventRule, 'windowFrom' | 'futureDays'>>): LifeEventRule => ({
  windowFrom: 'change_date',
  futureDays: 0,
  ...fields,
});

/** Reasons that are not life events: they belong to the open_enrollment and carrier_sync categories. */
export type NonLifeEventReason = 'open_enrollment' | 'passive_open_enrollment' | 'carrier_sync';
export type LifeEventReason = Exclude<EnrollmentReason, NonLifeEventReason>;

export const LIFE_EVENT_RULES: Readonly<Record<LifeEventReason, LifeEventRule>> = {
  new_child: row({
    windowDays: SPECIAL_ENROLLMENT_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    mustAdd: 'child',
    coverageStart: 'event_date',
    source: '29 U.S.C. 1181(f)(2)(A)(ii), (f)(2)(C)(ii); 29 CFR 2590.701-6(b): the child, with the member and spouse, from the date of birth',
  }),
  adopted_child: row({
    windowDays: SPECIAL_ENROLLMENT_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    mustAdd: 'child',
    coverageStart: 'event_date',
    source: '29 U.S.C. 1181(f)(2)(A)(ii), (f)(2)(C)(iii); 29 CFR 2590.701-6(b): the child, with the member and spouse, from adoption or placement',
  }),
  marriage: row({
    windowDays: SPECIAL_ENROLLMENT_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    coverageStart: 'by_first_of_next_month',
    source: '29 U.S.C. 1181(f)(2)(A)(i), (f)(2)(C)(i); 29 CFR 2590.701-6(b); 26 CFR 1.125-4(c)(2)(i): the spouse and their children, and the member',
  }),
  domestic_partnership: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    coverageStart: 'by_first_of_next_month',
    source: 'plan rule, as marriage (a partner is not a spouse under HIPAA or §125; coverage is taxable imputed income)',
  }),
  divorce: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: DEPENDENTS,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(i), (c)(3)(i): the former spouse and stepchildren who lose eligibility come off; nobody is added',
  }),
  death: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: ANYONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: "26 CFR 1.125-4(c)(2)(i)-(ii): a dependent who died comes off; the employee's death ends all coverage (COBRA, 29 U.S.C. 1163(1))",
  }),
  lost_coverage: row({
    windowDays: SPECIAL_ENROLLMENT_DAYS,
    medicaidChipWindowDays: MEDICAID_CHIP_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    coverageStart: 'by_first_of_next_month',
    source: '29 U.S.C. 1181(f)(1), (f)(3); 29 CFR 2590.701-6(a): the member and dependents who lost other coverage enroll',
  }),
  dependent_lost_coverage: row({
    windowDays: SPECIAL_ENROLLMENT_DAYS,
    medicaidChipWindowDays: MEDICAID_CHIP_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'with_enrollment',
    coverageStart: 'by_first_of_next_month',
    source: '29 U.S.C. 1181(f)(1), (f)(3); 29 CFR 2590.701-6(a)(2): the dependents who lost coverage, with the member who must enroll for them',
  }),
  gain_coverage: row({
    windowDays: PLAN_WINDOW_DAYS,
    medicaidChipWindowDays: MEDICAID_CHIP_DAYS,
    add: NO_ONE,
    drop: ANYONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(3)(iii), 1.125-4(e): the member (with the family) who gained other coverage drops it; nobody is added',
  }),
  dependent_gained_coverage: row({
    windowDays: PLAN_WINDOW_DAYS,
    medicaidChipWindowDays: MEDICAID_CHIP_DAYS,
    add: NO_ONE,
    drop: DEPENDENTS,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(3)(iii): only the dependents who gained other coverage come off',
  }),
  dependent_relocated_in_network: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: NO_ONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(v): a change of residence may move coverage to a plan serving the new area; nobody is added or dropped',
  }),
  relocated: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: NO_ONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(v): as dependent_relocated_in_network, for the member',
  }),
  dependent_court_order: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ['member', 'child'],
    drop: ['child'],
    changePlan: 'never',
    coverageStart: 'free',
    source:
      '29 U.S.C. 1169 (QMCSO); 26 CFR 1.125-4(d): the child the order names is added (with the member), or dropped when the order makes another parent cover them',
  }),
  new_hire: row({
    windowDays: PLAN_WINDOW_DAYS,
    windowFrom: 'hire_date',
    add: ANYONE,
    drop: ANYONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: 'plan rule (initial eligibility, 26 CFR 1.125-4 does not limit a first election): 30 days from the hire date on record',
  }),
  rehire: row({
    windowDays: PLAN_WINDOW_DAYS,
    windowFrom: 'hire_date',
    add: ANYONE,
    drop: ANYONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: 'plan rule: a rehire elects anew, 30 days from the (new) hire date on record',
  }),
  new_eligibility: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ANYONE,
    drop: NO_ONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(iii)-(iv): becoming eligible (an employment change) permits a first election of the newly available coverage',
  }),
  terminated: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: ANYONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(ii): termination of employment ends coverage; nothing is added',
  }),
  leave_of_absence: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ANYONE,
    drop: ANYONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-3 (FMLA leave: coverage may be revoked for the leave and reinstated on return); no plan change',
  }),
  employment_change: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ANYONE,
    drop: ANYONE,
    changePlan: 'always',
    coverageStart: 'free',
    source:
      "26 CFR 1.125-4(c)(2)(ii)-(iii): a change in the member's employment status that changes eligibility (a new class or location may offer other plans)",
  }),
  dependent_employment_change: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: DEPENDENTS,
    drop: DEPENDENTS,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(ii)-(iii), (c)(3)(i): only the dependent whose employment changed is added or dropped',
  }),
  significant_plan_change: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: ['member'],
    drop: ANYONE,
    changePlan: 'always',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(f)(3)-(4): a significant cost or coverage change permits moving to another option or dropping it',
  }),
  dependent_aged_out: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: ['child'],
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(c)(2)(iv): a child who stops being an eligible dependent comes off',
  }),
  citizenship_change: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: NO_ONE,
    changePlan: 'never',
    coverageStart: 'free',
    source:
      'no change of elections: not a change in status under 26 CFR 1.125-4(c) nor a HIPAA special enrollment event (an individual-market event, 45 CFR 155.420(d)(3))',
  }),
  release_from_incarceration: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: NO_ONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: 'no change of elections: an individual-market event (45 CFR 155.420(d)(7)), not one of 26 CFR 1.125-4(c) or 29 U.S.C. 1181(f)',
  }),
  medicare_eligible: row({
    windowDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: ANYONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: '26 CFR 1.125-4(e): the person entitled to Medicare may drop coverage',
  }),
  tax_advantaged_contribution_change: row({
    windowDays: PLAN_WINDOW_DAYS,
    futureDays: PLAN_WINDOW_DAYS,
    add: NO_ONE,
    drop: NO_ONE,
    changePlan: 'never',
    coverageStart: 'free',
    source: 'IRS Notice 2004-50 Q&A-58: HSA contributions change prospectively at any time; no plan or person changes (a future change_date is allowed)',
  }),
};

export function lifeEventRule(reason: string | null): LifeEventRule | undefined {
  return reason !== null && Object.hasOwn(LIFE_EVENT_RULES, reason) ? LIFE_EVENT_RULES[reason as LifeEventReason] : undefined;
}

/** Days of the event's window: the Medicaid/CHIP window when the other coverage was Medicaid or CHIP. */
export function windowDaysOf(rule: LifeEventRule, otherCoverage: OtherCoverageType | null): number {
  return rule.medicaidChipWindowDays !== undefined && otherCoverage !== null && MEDICAID_CHIP.has(otherCoverage)
    ? rule.medicaidChipWindowDays
    : rule.windowDays;
}

/** One line of coverage before and after the enrollment: its plan and persons (null: no coverage). */
export interface LineBeforeAfter {
  lineOfCoverage: LineOfCoverage;
  /** Where the line is in the request: an enrolled_plans index or a coverage_waivers index. */
  path: (string | number)[];
  /** `leaving`: dependents no longer eligible on the start (aged out, relationship ended): leaving them out is no drop. */
  before: { planId: string; dependents: ReadonlyMap<string, DependentRelationship>; leaving?: ReadonlySet<string> } | null;
  /** What the enrollment elects on the line from its start (its first plan year's plan). */
  after: { planId: string; previousPlanId: string | null; dependents: ReadonlyMap<string, DependentRelationship> } | null;
  /** The plans of the later plan years the enrollment names on the line (a birth's or an adoption's), with their persons. */
  laterPlanYears?: readonly { path: (string | number)[]; dependents: ReadonlyMap<string, DependentRelationship> }[];
}

export interface LifeEventFacts {
  reason: LifeEventReason;
  changeDate: string;
  otherCoverage: OtherCoverageType | null;
  /** medicare_eligible: the dependent whose own entitlement it records (only they may be dropped), or null for the employee's. */
  medicareEntitledDependentId?: string | null;
  /** The day of submission. */
  today: string;
  hireDate: string;
  effectiveStart: string | null;
  lines: readonly LineBeforeAfter[];
}

const personOf = (relationship: DependentRelationship): EventPerson => (isChildLike(relationship) ? 'child' : 'spouse');
const PERSON_WORDS: Record<EventPerson, string> = { member: 'the member', spouse: 'a spouse or partner', child: 'a child' };
const list = (persons: readonly EventPerson[]) => (persons.length === 0 ? 'nobody' : persons.map((person) => PERSON_WORDS[person]).join(', '));

/** Every way the enrollment goes beyond what its life event permits, each naming the rule (reason/part). */
export function lifeEventErrors(facts: LifeEventFacts): InputError[] {
  const rule = LIFE_EVENT_RULES[facts.reason];
  const errors: InputError[] = [];
  const refuse = (path: (string | number)[], part: string, message: string) =>
    errors.push(inputError(path, `Life event rule ${facts.reason}/${part}: ${message} (${rule.source}).`));

  const from = rule.windowFrom === 'hire_date' ? facts.hireDate : facts.changeDate;
  const days = windowDaysOf(rule, facts.otherCoverage);
  if (compareDates(facts.today, addDays(from, days)) > 0) {
    refuse(
      [rule.windowFrom === 'hire_date' ? 'reason' : 'change_date'],
      'window',
      `it must be submitted within ${days} days of ${rule.windowFrom === 'hire_date' ? `the hire date on record, ${from}` : `change_date ${from}`}`,
    );
  }
  if (compareDates(facts.changeDate, addDays(facts.today, rule.futureDays)) > 0) {
    refuse(
      ['change_date'],
      'future',
      rule.futureDays === 0 ? 'change_date cannot be in the future' : `change_date can be at most ${rule.futureDays} days ahead`,
    );
  }

  const start = facts.effectiveStart;
  if (start !== null && rule.coverageStart === 'event_date' && start !== facts.changeDate) {
    refuse(['effective_start'], 'coverage_start', `coverage starts on the event date: expected ${facts.changeDate}`);
  }
  if (start !== null && rule.coverageStart === 'by_first_of_next_month') {
    const latest = firstOfNextMonth(facts.today);
    if (compareDates(start, facts.changeDate) < 0 || compareDates(start, latest) > 0) {
      refuse(
        ['effective_start'],
        'coverage_start',
        `coverage starts between the event and the first of the month after the request: expected ${facts.changeDate} to ${latest}`,
      );
    }
  }

  let added = new Set<EventPerson>();
  for (const line of facts.lines) {
    const addedHere = new Map<string, EventPerson>();
    const droppedHere = new Map<string, EventPerson>();
    if (line.after && !line.before) addedHere.set('member', 'member');
    if (line.before && !line.after) droppedHere.set('member', 'member');
    for (const [id, relationship] of line.after?.dependents ?? []) if (!line.before?.dependents.has(id)) addedHere.set(id, personOf(relationship));
    for (const [id, relationship] of line.before?.dependents ?? [])
      if (!line.after?.dependents.has(id) && !line.before?.leaving?.has(id)) droppedHere.set(id, personOf(relationship));
    for (const [who, person] of addedHere) {
      if (!rule.add.includes(person))
        refuse(
          line.path,
          'add',
          `${who === 'member' ? `the member cannot newly enroll in ${line.lineOfCoverage}` : `dependent ${who} (${PERSON_WORDS[person]}) cannot be added`}; it permits adding ${list(rule.add)}`,
        );
    }
    for (const [who, person] of droppedHere) {
      // 26 CFR 1.125-4(e): the person entitled to Medicare may drop coverage; a dependent's own entitlement drops that dependent only.
      const entitled = facts.reason === 'medicare_eligible' ? (facts.medicareEntitledDependentId ?? null) : null;
      if (entitled !== null && who !== entitled)
        refuse(
          line.path,
          'drop',
          `only dependent ${entitled}, whose own Medicare entitlement it records, may be dropped; ${who === 'member' ? `${line.lineOfCoverage} of the member` : `dependent ${who}`} stays`,
        );
      else if (!rule.drop.includes(person))
        refuse(
          line.path,
          'drop',
          `${who === 'member' ? `${line.lineOfCoverage} cannot be dropped` : `dependent ${who} (${PERSON_WORDS[person]}) cannot be dropped`}; it permits dropping ${list(rule.drop)}`,
        );
    }
    added = new Set([...added, ...addedHere.values()]);
    // The child is covered from the event on (29 U.S.C. 1181(f)(2)(C)): on every plan year's plan the enrollment names.
    for (const later of line.laterPlanYears ?? []) {
      for (const [who, person] of addedHere) {
        if (person === 'child' && !later.dependents.has(who))
          refuse(
            later.path,
            'plan_years',
            `dependent ${who} (${PERSON_WORDS[person]}) added on ${line.lineOfCoverage} must be covered on the plan of each plan year the enrollment names`,
          );
      }
    }
    const moved = line.before && line.after && line.before.planId !== line.after.planId && line.after.previousPlanId !== line.before.planId;
    if (moved && (rule.changePlan === 'never' || (rule.changePlan === 'with_enrollment' && addedHere.size === 0))) {
      refuse(
        line.path,
        'change_plan',
        rule.changePlan === 'never'
          ? `${line.lineOfCoverage} cannot move to another plan`
          : `${line.lineOfCoverage} may move to another plan only when the event enrolls someone in it`,
      );
    }
  }
  if (rule.mustAdd !== undefined && !added.has(rule.mustAdd)) refuse(['enrolled_plans'], 'must_add', `the enrollment must add ${PERSON_WORDS[rule.mustAdd]}`);
  return errors;
}
