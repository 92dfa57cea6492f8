/**
 * Who a plan configuration covers and until when (docs/decisions.md "Enrollments", "The daily sweep" and
 * "Terminations"). Dates are 'YYYY-MM-DD' strings; every function is pure and throws RangeError on malformed input.
 */
import { LAST_DATE, addDays, addYears, compareDates, endOfMonth, endOfYear, isCalendarDate } from '../../shared/dates.ts';

function assertCalendarDate(value: string): void {
  if (!isCalendarDate(value)) throw new RangeError(`not a calendar date: ${value}`);
}

export const AGE_OUT_RULES = ['date_of_birth', 'end_of_month', 'end_of_year'] as const;
export type AgeOutRule = (typeof AGE_OUT_RULES)[number];

export const TERMINATION_POLICIES = ['termination_date', 'end_of_month'] as const;
export type TerminationPolicy = (typeof TERMINATION_POLICIES)[number];

/**
 * The last day of coverage of a child who reaches `ageLimit`: the day before that birthday (`date_of_birth`),
 * the last day of its month (`end_of_month`) or of its year (`end_of_year`). A Feb 29 child's birthday in a
 * common year is Feb 28 (see `addYears`).
 */
export function ageOutDate(dob: string, ageLimit: number, rule: AgeOutRule): string {
  if (!Number.isSafeInteger(ageLimit) || ageLimit < 0) throw new RangeError(`not an age limit: ${ageLimit}`);
  const limitBirthday = addYears(dob, ageLimit);
  switch (rule) {
    case 'date_of_birth':
      return addDays(limitBirthday, -1);
    case 'end_of_month':
      return endOfMonth(limitBirthday);
    case 'end_of_year':
      return endOfYear(limitBirthday);
  }
}

/**
 * How long a disability certification counts: one year from the day it was given. Continuing coverage of an
 * incapacitated child past the limiting age, and proof of the incapacity, are plan and state-law terms (many
 * states mandate it for insured plans; carriers commonly ask for proof shortly after the limiting age and then
 * at most yearly), not a federal rule: PHSA 2714 (42 U.S.C. 300gg-14; 45 CFR 147.120) only sets the age-26
 * floor. Hence one configurable-looking constant here rather than a per-state table.
 */
export const DISABILITY_CERTIFICATION_YEARS = 1;

/**
 * The last day a dependent's disability certification counts, or null when there is none to count (no
 * disability recorded, or no certification date): one year after `certifiedOn`, less a day.
 */
export function disabilityCertifiedThrough(hasDisability: boolean, certifiedOn: string | null): string | null {
  if (!hasDisability || certifiedOn === null) return null;
  assertCalendarDate(certifiedOn);
  return addDays(addYears(certifiedOn, DISABILITY_CERTIFICATION_YEARS), -1);
}

/**
 * The last day a child is covered as a dependent child: the age-out date under the rule (45 CFR 147.120: at
 * least to age 26), or, for a child with a current disability certification, the last day it counts when
 * that is later (a certified child stays covered past the limit while certified).
 */
export function lastDayAsChild(dob: string, ageLimit: number, rule: AgeOutRule, certifiedThrough: string | null): string {
  const ageOut = ageOutDate(dob, ageLimit, rule);
  return certifiedThrough !== null && compareDates(certifiedThrough, ageOut) > 0 ? certifiedThrough : ageOut;
}

export function isChildEligibleOn(dob: string, ageLimit: number, rule: AgeOutRule, date: string, certifiedThrough: string | null): boolean {
  assertCalendarDate(date);
  return compareDates(date, lastDayAsChild(dob, ageLimit, rule, certifiedThrough)) <= 0;
}

/**
 * When a new hire's coverage starts under a plan configuration (`coverage_start_rule`), from the hire date on
 * record and the waiting period:
 * - `end_of_waiting_period`: the first day after the waiting period (the hire date itself with none);
 * - `first_of_month_following_waiting_period`: that day if it is the first of a month, else the first of the
 *   next month ("coincident with or next following");
 * - `date_of_hire`: the hire date (no waiting period);
 * - `first_of_month_following_hire`: the first of the month after the hire date, even when hired on a first
 *   (no waiting period).
 */
export const COVERAGE_START_RULES = [
  'end_of_waiting_period',
  'first_of_month_following_waiting_period',
  'date_of_hire',
  'first_of_month_following_hire',
] as const;
export type CoverageStartRule = (typeof COVERAGE_START_RULES)[number];

/**
 * Which rules let the member choose a later start than the rule's date (docs/decisions.md "Enrollments", a new
 * hire's coverage start), one row per rule. A first-of-the-month rule lets the member choose the first of a later
 * month, up to LATER_FIRST_OF_MONTH_LIMIT_MONTHS months after the rule's date and within the plan year; a rule
 * naming a day (the end of the waiting period, the hire date) takes that day only. Source: 29 CFR
 * 2590.715-2708(a): a plan whose members can elect coverage beginning within the 90-day limit does not break it
 * because a member takes, or may take, more time; how much more is the plan's rule (this table).
 */
export const LATER_FIRST_OF_MONTH_ALLOWED: Readonly<Record<CoverageStartRule, boolean>> = {
  end_of_waiting_period: false,
  first_of_month_following_waiting_period: true,
  date_of_hire: false,
  first_of_month_following_hire: true,
};

/**
 * How far a chosen later first of the month may be from the rule's date: 3 months, so that an HR platform counting
 * its own waiting period of up to 60 days before the first of the month (the longest the ACA limit leaves room for)
 * is accepted against a plan that counts none.
 */
export const LATER_FIRST_OF_MONTH_LIMIT_MONTHS = 3;

/**
 * The coverage_start_rule of a configuration created without one: the first of the month after the waiting
 * period, the start most HR platforms send; a waiting period over MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH
 * days leaves that rule no room within the ACA limit, so such a configuration starts at the end of the waiting
 * period. Configurations stored before this default keep the rule they have.
 */
export function defaultCoverageStartRule(waitingPeriodDays: number): CoverageStartRule {
  return waitingPeriodDays > MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH ? 'end_of_waiting_period' : 'first_of_month_following_waiting_period';
}

/** Rules counted from the hire date alone: they allow no waiting period. */
export const HIRE_DATE_RULES: ReadonlySet<CoverageStartRule> = new Set(['date_of_hire', 'first_of_month_following_hire']);

/**
 * ACA 90-day waiting period limit (PHSA 2708; 29 CFR 2590.715-2708(b)): coverage must be able to start by the
 * 91st day after eligibility. A first-of-the-month rule may add up to 30 days to the waiting period (the day
 * after the period is the 2nd of a 31-day month), so it allows at most 60 days of waiting period.
 */
export const MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH = 60;

export function newHireCoverageStart(hireDate: string, waitingPeriodDays: number, rule: CoverageStartRule): string {
  const eligible = waitingPeriodEnd(hireDate, waitingPeriodDays);
  switch (rule) {
    case 'end_of_waiting_period':
      return eligible;
    case 'first_of_month_following_waiting_period':
      return eligible.endsWith('-01') ? eligible : firstOfNextMonth(eligible);
    case 'date_of_hire':
      return hireDate;
    case 'first_of_month_following_hire':
      return firstOfNextMonth(hireDate);
  }
}

/** The starts a new hire's coverage may take under a rule: `expected`, or a first of the month after it up to `latest`. */
export interface NewHireStartChoice {
  expected: string;
  /** The latest first of the month the member may choose instead; undefined when the rule allows only `expected`. */
  latest: string | undefined;
}

/**
 * The starts a new hire may take on a plan whose year ends on `planEnd`: the rule's date, or where the rule allows
 * (LATER_FIRST_OF_MONTH_ALLOWED) the first of a later month, at most LATER_FIRST_OF_MONTH_LIMIT_MONTHS months
 * later and within the plan year.
 */
export function newHireStartChoice(hireDate: string, waitingPeriodDays: number, rule: CoverageStartRule, planEnd: string): NewHireStartChoice {
  const expected = newHireCoverageStart(hireDate, waitingPeriodDays, rule);
  if (!LATER_FIRST_OF_MONTH_ALLOWED[rule]) return { expected, latest: undefined };
  assertCalendarDate(planEnd);
  let latest: string | undefined;
  let candidate = expected;
  for (let month = 0; month < LATER_FIRST_OF_MONTH_LIMIT_MONTHS; month += 1) {
    candidate = firstOfNextMonth(candidate);
    if (compareDates(candidate, planEnd) > 0) break;
    latest = candidate;
  }
  return { expected, latest };
}

/** Whether `start` is one of the starts `choice` allows. */
export function isAllowedNewHireStart(start: string, choice: NewHireStartChoice): boolean {
  if (start === choice.expected) return true;
  return choice.latest !== undefined && start.endsWith('-01') && compareDates(start, choice.expected) > 0 && compareDates(start, choice.latest) <= 0;
}

/** What the rule expects, as the 400 says it: "expected 2026-12-01" or "expected 2026-12-01, or the first of a later month up to 2027-03-01". */
export function describeNewHireStartChoice(choice: NewHireStartChoice): string {
  return choice.latest === undefined ? `expected ${choice.expected}` : `expected ${choice.expected}, or the first of a later month up to ${choice.latest}`;
}

/** The first day of the month after the one `date` is in. */
export function firstOfNextMonth(date: string): string {
  assertCalendarDate(date);
  const [year, month] = date.split('-').map(Number) as [number, number];
  // No month follows December 9999 (the last the API accepts): its last day stands for it (dates.ts LAST_DATE).
  if (year === 9999 && month === 12) return LAST_DATE;
  return month === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-01`;
}

/**
 * Eligibility by employment (docs/decisions.md "Enrollments"): a configuration may require a least number of
 * scheduled hours a week (the member's `hours_worked`; ACA full-time is 30, 26 CFR 54.4980H-1(a)(21)) and a set of
 * employment statuses. Returns why the member is not eligible, or undefined when they are.
 */
export function employmentIneligibility(
  member: { hoursWorked: number | null; employmentStatus: string | null },
  configuration: { minimum_hours_per_week: number | null; eligible_employment_statuses: readonly string[] | null },
): string | undefined {
  const minimum = configuration.minimum_hours_per_week;
  if (minimum !== null && (member.hoursWorked === null || member.hoursWorked < minimum)) {
    return member.hoursWorked === null
      ? `The plan requires at least ${minimum} scheduled hours a week and the member has no hours_worked on record.`
      : `The plan requires at least ${minimum} scheduled hours a week; the member works ${member.hoursWorked}.`;
  }
  const statuses = configuration.eligible_employment_statuses;
  if (statuses !== null && (member.employmentStatus === null || !statuses.includes(member.employmentStatus))) {
    return `The plan is offered to ${statuses.join(', ')} employees; the member is ${member.employmentStatus ?? 'of no employment_status on record'}.`;
  }
  return undefined;
}

/** The first day of eligibility after a waiting period counted in calendar days from the hire date. */
export function waitingPeriodEnd(hireDate: string, waitingPeriodDays: number): string {
  if (!Number.isSafeInteger(waitingPeriodDays) || waitingPeriodDays < 0) {
    throw new RangeError(`not a waiting period in days: ${waitingPeriodDays}`);
  }
  assertCalendarDate(hireDate);
  return addDays(hireDate, waitingPeriodDays);
}

/** The last day of coverage of a member terminated on `terminationDate`. */
export function coverageEndOnTermination(terminationDate: string, policy: TerminationPolicy): string {
  switch (policy) {
    case 'termination_date':
      assertCalendarDate(terminationDate);
      return terminationDate;
    case 'end_of_month':
      return endOfMonth(terminationDate);
  }
}

export interface ConfigurationCandidate {
  id: string;
  required_subclass_id: string | null;
}

/**
 * The plan configuration that applies to a member: the first whose required subclass is one of the member's,
 * else the first open to everyone; `undefined` means the member is not eligible for the plan.
 */
export function selectPlanConfiguration<T extends ConfigurationCandidate>(memberSubclassIds: readonly string[], candidates: readonly T[]): T | undefined {
  const subclasses = new Set(memberSubclassIds);
  return (
    candidates.find((candidate) => candidate.required_subclass_id !== null && subclasses.has(candidate.required_subclass_id)) ??
    candidates.find((candidate) => candidate.required_subclass_id === null)
  );
}
