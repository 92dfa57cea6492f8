/**
 * Who a plan configuration covers and until when (API.md sections 6 and 11). Dates are 'YYYY-MM-DD' strings;
 * every function is pure and throws RangeError on malformed input.
 */
import { addDays, addYears, compareDates, endOfMonth, endOfYear, isCalendarDate } from '../../shared/dates.ts';

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
