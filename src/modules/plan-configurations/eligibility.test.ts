import { describe, expect, it } from 'vitest';
import { addDays, ageOn } from '../../shared/dates.ts';
import {
  AGE_OUT_RULES,
  TERMINATION_POLICIES,
  ageOutDate,
  coverageEndOnTermination,
  disabilityCertifiedThrough,
  employmentIneligibility,
  isChildEligibleOn,
  MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH,
  defaultCoverageStartRule,
  describeNewHireStartChoice,
  isAllowedNewHireStart,
  LATER_FIRST_OF_MONTH_ALLOWED,
  newHireCoverageStart,
  newHireStartChoice,
  selectPlanConfiguration,
  waitingPeriodEnd,
  type AgeOutRule,
  type ConfigurationCandidate,
  type CoverageStartRule,
  type TerminationPolicy,
} from './eligibility.ts';

describe('AGE_OUT_RULES and TERMINATION_POLICIES', () => {
  it('when listed, then they are the values of docs/decisions.md (The daily sweep, Terminations)', () => {
    expect(AGE_OUT_RULES).toEqual(['date_of_birth', 'end_of_month', 'end_of_year']);
    expect(TERMINATION_POLICIES).toEqual(['termination_date', 'end_of_month']);
  });
});

describe('ageOutDate', () => {
  it.each<[string, number, AgeOutRule, string]>([
    ['2000-06-15', 26, 'date_of_birth', '2026-06-14'],
    ['2000-06-15', 26, 'end_of_month', '2026-06-30'],
    ['2000-06-15', 26, 'end_of_year', '2026-12-31'],
    // A leap-day child reaching the limit in a common year: the birthday is Feb 28.
    ['2000-02-29', 26, 'date_of_birth', '2026-02-27'],
    ['2000-02-29', 26, 'end_of_month', '2026-02-28'],
    ['2000-02-29', 26, 'end_of_year', '2026-12-31'],
    // A leap-day child reaching the limit in a leap year.
    ['2004-02-29', 20, 'date_of_birth', '2024-02-28'],
    ['2004-02-29', 20, 'end_of_month', '2024-02-29'],
    // The day before a Mar 1 birthday crosses the end of February.
    ['2000-03-01', 26, 'date_of_birth', '2026-02-28'],
    ['2002-03-01', 26, 'date_of_birth', '2028-02-29'],
    ['2000-03-01', 26, 'end_of_month', '2026-03-31'],
    // Year boundaries.
    ['2000-01-01', 26, 'date_of_birth', '2025-12-31'],
    ['2000-01-01', 26, 'end_of_month', '2026-01-31'],
    ['2000-01-01', 26, 'end_of_year', '2026-12-31'],
    ['2000-12-31', 26, 'date_of_birth', '2026-12-30'],
    ['2000-12-31', 26, 'end_of_month', '2026-12-31'],
    ['2000-12-31', 26, 'end_of_year', '2026-12-31'],
    // Month ends.
    ['2000-01-31', 26, 'end_of_month', '2026-01-31'],
    ['2000-05-01', 26, 'date_of_birth', '2026-04-30'],
    ['2000-04-30', 26, 'end_of_month', '2026-04-30'],
    // Other limits.
    ['2005-09-10', 19, 'date_of_birth', '2024-09-09'],
    ['2005-09-10', 30, 'end_of_year', '2035-12-31'],
  ])('when born %s with an age limit of %i under %s, then the last covered day is %s', (dob, ageLimit, rule, expected) => {
    expect(ageOutDate(dob, ageLimit, rule)).toBe(expected);
  });

  it.each(['2000-06-15', '2000-02-29', '2004-02-29', '2000-03-01', '2000-01-01', '2000-12-31'])(
    'when born %s under date_of_birth, then the child is 25 on the last covered day and 26 the day after',
    (dob) => {
      const lastCoveredDay = ageOutDate(dob, 26, 'date_of_birth');
      expect(ageOn(dob, lastCoveredDay)).toBe(25);
      expect(ageOn(dob, addDays(lastCoveredDay, 1))).toBe(26);
    },
  );

  it.each<[string, number, string]>([
    ['2000-06-15', -1, 'a negative age limit'],
    ['2000-06-15', 26.5, 'a fractional age limit'],
    ['2000-06-15', Number.NaN, 'an age limit that is not a number'],
    ['2001-02-29', 26, 'an invalid date of birth'],
  ])('when born %s with an age limit of %d (%s), then it throws', (dob, ageLimit) => {
    expect(() => ageOutDate(dob, ageLimit, 'date_of_birth')).toThrow(RangeError);
  });
});

describe('disabilityCertifiedThrough', () => {
  it.each<[boolean, string | null, string | null]>([
    [true, '2026-03-02', '2027-03-01'],
    [true, '2024-02-29', '2025-02-27'],
    [true, null, null],
    [false, '2026-03-02', null],
  ])('when has_disability is %s and certified on %s, then it counts through %s', (hasDisability, certifiedOn, through) => {
    expect(disabilityCertifiedThrough(hasDisability, certifiedOn)).toBe(through);
  });
});

describe('isChildEligibleOn', () => {
  it.each<[AgeOutRule, string, string, boolean]>([
    ['date_of_birth', '2000-06-15', '2026-06-14', true],
    ['date_of_birth', '2000-06-15', '2026-06-15', false],
    ['end_of_month', '2000-06-15', '2026-06-30', true],
    ['end_of_month', '2000-06-15', '2026-07-01', false],
    ['end_of_year', '2000-06-15', '2026-12-31', true],
    ['end_of_year', '2000-06-15', '2027-01-01', false],
    ['date_of_birth', '2000-02-29', '2026-02-27', true],
    ['date_of_birth', '2000-02-29', '2026-02-28', false],
    ['end_of_month', '2000-02-29', '2026-02-28', true],
    ['end_of_month', '2000-02-29', '2026-03-01', false],
    ['date_of_birth', '2000-03-01', '2026-02-28', true],
    ['date_of_birth', '2000-03-01', '2026-03-01', false],
    ['date_of_birth', '2000-01-01', '2025-12-31', true],
    ['date_of_birth', '2000-01-01', '2026-01-01', false],
    ['end_of_year', '2000-01-01', '2026-12-31', true],
    ['end_of_year', '2000-01-01', '2027-01-01', false],
    ['date_of_birth', '2010-03-20', '2024-03-20', true],
    ['end_of_year', '2010-03-20', '2010-03-20', true],
    ['date_of_birth', '1990-03-20', '2024-03-20', false],
  ])('when the rule is %s, born %s, on %s, then eligible is %s (age limit 26, no disability)', (rule, dob, date, eligible) => {
    expect(isChildEligibleOn(dob, 26, rule, date, null)).toBe(eligible);
  });

  it.each<[AgeOutRule, string, string]>([
    ['date_of_birth', '2000-06-15', '2026-06-15'],
    ['end_of_month', '2000-06-15', '2026-07-01'],
    ['end_of_year', '2000-06-15', '2027-01-01'],
    ['date_of_birth', '1970-01-01', '2026-11-22'],
  ])('when the rule is %s, born %s, on %s past the limit with a disability certified through that day, then the child stays eligible', (rule, dob, date) => {
    expect(isChildEligibleOn(dob, 26, rule, date, date)).toBe(true);
    expect(isChildEligibleOn(dob, 26, rule, date, addDays(date, -1))).toBe(false);
  });

  it.each<[AgeOutRule, string, string]>([
    ['date_of_birth', '2000-06-15', '2026-06-14'],
    ['end_of_year', '2010-01-01', '2024-01-01'],
  ])('when the rule is %s, born %s, on %s within the limit with a disability, then the child is eligible', (rule, dob, date) => {
    expect(isChildEligibleOn(dob, 26, rule, date, '2000-01-01')).toBe(true);
  });

  it.each<[number, AgeOutRule, string, string, boolean]>([
    [19, 'date_of_birth', '2005-09-10', '2024-09-09', true],
    [19, 'date_of_birth', '2005-09-10', '2024-09-10', false],
    [30, 'date_of_birth', '2005-09-10', '2035-09-09', true],
    [30, 'date_of_birth', '2005-09-10', '2035-09-10', false],
    // A leap-day child whose limit birthday falls in a leap year.
    [24, 'date_of_birth', '2000-02-29', '2024-02-28', true],
    [24, 'date_of_birth', '2000-02-29', '2024-02-29', false],
    [24, 'end_of_month', '2000-02-29', '2024-02-29', true],
    [24, 'end_of_month', '2000-02-29', '2024-03-01', false],
  ])('when the age limit is %i under %s, born %s, on %s, then eligible is %s', (ageLimit, rule, dob, date, eligible) => {
    expect(isChildEligibleOn(dob, ageLimit, rule, date, null)).toBe(eligible);
  });

  it.each<[string, string, boolean]>([
    ['2000-06-31', '2024-01-01', false],
    ['2000-06-15', '2024-13-01', false],
    ['2000-06-15', '2024-01-01T00:00:00Z', false],
    ['2000-06-31', '2024-01-01', true],
  ])('when born %s on %s (disability %s), with a malformed date, then it throws', (dob, date, hasDisability) => {
    expect(() => isChildEligibleOn(dob, 26, 'date_of_birth', date, hasDisability ? '2030-01-01' : null)).toThrow(RangeError);
  });
});

describe('waitingPeriodEnd', () => {
  it.each<[string, number, string]>([
    ['2024-01-15', 0, '2024-01-15'],
    ['2024-01-15', 1, '2024-01-16'],
    ['2024-01-01', 90, '2024-03-31'],
    ['2023-01-01', 90, '2023-04-01'],
    ['2024-11-15', 90, '2025-02-13'],
    ['2024-12-01', 30, '2024-12-31'],
    ['2024-12-01', 31, '2025-01-01'],
    ['2024-12-31', 1, '2025-01-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2023-02-28', 1, '2023-03-01'],
    ['2024-02-29', 0, '2024-02-29'],
    ['2024-02-29', 30, '2024-03-30'],
    ['2024-01-31', 30, '2024-03-01'],
    ['2024-01-31', 60, '2024-03-31'],
  ])('when hired %s with a %i-day waiting period, then eligibility starts %s', (hireDate, days, expected) => {
    expect(waitingPeriodEnd(hireDate, days)).toBe(expected);
  });

  it.each<[string, number, string]>([
    ['2024-01-15', -1, 'a negative period'],
    ['2024-01-15', 1.5, 'a fractional period'],
    ['2024-01-15', Number.NaN, 'a period that is not a number'],
    ['2023-02-29', 0, 'an invalid hire date'],
    ['2024-1-15', 30, 'an unpadded hire date'],
  ])('when hired %s with a %d-day waiting period (%s), then it throws', (hireDate, days) => {
    expect(() => waitingPeriodEnd(hireDate, days)).toThrow(RangeError);
  });
});

describe('coverageEndOnTermination', () => {
  it.each<[string, TerminationPolicy, string]>([
    ['2024-06-15', 'termination_date', '2024-06-15'],
    ['2024-02-29', 'termination_date', '2024-02-29'],
    ['2024-12-31', 'termination_date', '2024-12-31'],
    ['2024-06-15', 'end_of_month', '2024-06-30'],
    ['2024-06-30', 'end_of_month', '2024-06-30'],
    ['2024-06-01', 'end_of_month', '2024-06-30'],
    ['2024-02-10', 'end_of_month', '2024-02-29'],
    ['2023-02-10', 'end_of_month', '2023-02-28'],
    ['2024-01-01', 'end_of_month', '2024-01-31'],
    ['2024-12-15', 'end_of_month', '2024-12-31'],
  ])('when terminated %s under %s, then coverage ends %s', (terminationDate, policy, expected) => {
    expect(coverageEndOnTermination(terminationDate, policy)).toBe(expected);
  });

  it.each(TERMINATION_POLICIES)('when the termination date is not a calendar date under %s, then it throws', (policy) => {
    expect(() => coverageEndOnTermination('2023-02-29', policy)).toThrow(RangeError);
  });
});

describe('selectPlanConfiguration', () => {
  interface Candidate extends ConfigurationCandidate {
    waiting_period_days: number;
  }
  const open: Candidate = { id: 'pc_open', required_subclass_id: null, waiting_period_days: 30 };
  const union: Candidate = { id: 'pc_union', required_subclass_id: 'sub_union', waiting_period_days: 0 };
  const newYork: Candidate = { id: 'pc_ny', required_subclass_id: 'sub_ny', waiting_period_days: 60 };
  const secondOpen: Candidate = { id: 'pc_open_2', required_subclass_id: null, waiting_period_days: 90 };

  it.each<[string, string[], Candidate[], Candidate | undefined]>([
    ['the member has no subclass', [], [open, union, newYork], open],
    ['the member is in a required subclass listed after an open one', ['sub_union'], [open, union, newYork], union],
    ['the member is in two required subclasses', ['sub_ny', 'sub_union'], [open, union, newYork], union],
    ['the member is in two required subclasses, listed the other way', ['sub_union', 'sub_ny'], [newYork, union, open], newYork],
    ['the member is in an unrelated subclass', ['sub_other'], [union, open, newYork], open],
    ['two configurations are open to everyone', [], [union, secondOpen, open], secondOpen],
    ['no configuration is open and the member matches none', ['sub_other'], [union, newYork], undefined],
    ['no configuration is open and the member has no subclass', [], [union, newYork], undefined],
    ['no configuration is open and the member matches one', ['sub_ny'], [union, newYork], newYork],
    ['there are no configurations', ['sub_union'], [], undefined],
  ])('when %s, then the configuration selected is the expected one', (_case, memberSubclassIds, candidates, expected) => {
    expect(selectPlanConfiguration(memberSubclassIds, candidates)).toBe(expected);
  });

  it('when a configuration is selected, then the caller gets its own record back with every field', () => {
    const selected = selectPlanConfiguration(['sub_ny'], [open, newYork]);
    expect(selected?.waiting_period_days).toBe(60);
  });
});

describe('newHireCoverageStart', () => {
  it.each([
    ['end_of_waiting_period', '2026-12-15', 0, '2026-12-15'],
    ['end_of_waiting_period', '2026-12-15', 90, '2027-03-15'],
    ['first_of_month_following_waiting_period', '2026-12-02', 30, '2027-01-01'],
    ['first_of_month_following_waiting_period', '2026-12-03', 30, '2027-02-01'],
    ['first_of_month_following_waiting_period', '2028-01-31', 29, '2028-03-01'],
    ['date_of_hire', '2028-02-29', 0, '2028-02-29'],
    ['first_of_month_following_hire', '2026-12-01', 0, '2027-01-01'],
    ['first_of_month_following_hire', '2026-12-31', 0, '2027-01-01'],
  ] as const)('%s from a hire on %s with %i days of waiting starts on %s', (rule, hireDate, days, expected) => {
    expect(newHireCoverageStart(hireDate, days, rule)).toBe(expected);
  });

  it('keeps within the ACA 90-day limit at its worst case: 60 days of waiting then the next first is at most 90 days after the hire date', () => {
    // The day after the period falls on the 2nd of a 31-day month: the next first is 30 days on.
    expect(newHireCoverageStart('2026-11-03', MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH, 'first_of_month_following_waiting_period')).toBe('2027-02-01');
    expect(daysBetween('2026-11-03', '2027-02-01')).toBeLessThanOrEqual(90);
  });
});

describe('defaultCoverageStartRule', () => {
  it.each([
    [0, 'first_of_month_following_waiting_period'],
    [60, 'first_of_month_following_waiting_period'],
    [61, 'end_of_waiting_period'],
    [90, 'end_of_waiting_period'],
  ] as const)('with %i days of waiting period, a configuration created without a rule gets %s', (days, rule) => {
    expect(defaultCoverageStartRule(days)).toBe(rule);
  });
});

describe('newHireStartChoice and isAllowedNewHireStart', () => {
  it('lets a member choose a later first of the month under the two first-of-the-month rules only', () => {
    expect(LATER_FIRST_OF_MONTH_ALLOWED).toEqual({
      end_of_waiting_period: false,
      first_of_month_following_waiting_period: true,
      date_of_hire: false,
      first_of_month_following_hire: true,
    });
  });

  // Each rule: the rule's date is in; for first-of-the-month rules the third later first is the last day in and
  // the fourth the first day out; a day that is not a first, and any day but the rule's for day rules, is out.
  it.each<[CoverageStartRule, string, number, string, boolean]>([
    ['end_of_waiting_period', '2026-02-10', 0, '2026-02-10', true],
    ['end_of_waiting_period', '2026-02-10', 0, '2026-03-01', false],
    ['end_of_waiting_period', '2026-02-10', 0, '2026-02-09', false],
    ['date_of_hire', '2026-02-15', 0, '2026-02-15', true],
    ['date_of_hire', '2026-02-15', 0, '2026-03-01', false],
    ['first_of_month_following_waiting_period', '2026-02-10', 0, '2026-03-01', true],
    ['first_of_month_following_waiting_period', '2026-02-10', 0, '2026-06-01', true],
    ['first_of_month_following_waiting_period', '2026-02-10', 0, '2026-07-01', false],
    ['first_of_month_following_waiting_period', '2026-02-10', 0, '2026-04-02', false],
    ['first_of_month_following_waiting_period', '2026-02-10', 0, '2026-02-01', false],
    // 30 days from Jan 31 end on Mar 2: the rule's date is Apr 1; a first before it is out.
    ['first_of_month_following_waiting_period', '2026-01-31', 30, '2026-03-01', false],
    ['first_of_month_following_waiting_period', '2026-01-31', 30, '2026-04-01', true],
    ['first_of_month_following_waiting_period', '2026-01-31', 30, '2026-07-01', true],
    ['first_of_month_following_waiting_period', '2026-01-31', 30, '2026-08-01', false],
    ['first_of_month_following_hire', '2026-02-01', 0, '2026-03-01', true],
    ['first_of_month_following_hire', '2026-02-01', 0, '2026-06-01', true],
    ['first_of_month_following_hire', '2026-02-01', 0, '2026-07-01', false],
    ['first_of_month_following_hire', '2026-02-01', 0, '2026-02-01', false],
  ])('%s, hire %s, %i days: %s is allowed: %s', (rule, hireDate, days, start, allowed) => {
    expect(isAllowedNewHireStart(start, newHireStartChoice(hireDate, days, rule, '2026-12-31'))).toBe(allowed);
  });

  it.each([
    // The plan year ends before three later firsts: the last first of the month within it is the latest.
    ['2026-09-20', '2026-12-31', '2026-10-01', '2026-12-01'],
    ['2026-11-20', '2026-12-31', '2026-12-01', undefined],
    // Across the year end on a plan running on.
    ['2026-11-20', '2027-12-31', '2026-12-01', '2027-03-01'],
  ] as const)('from a hire on %s on a plan ending %s, the rule expects %s and allows up to %s', (hireDate, planEnd, expected, latest) => {
    expect(newHireStartChoice(hireDate, 0, 'first_of_month_following_waiting_period', planEnd)).toEqual({ expected, latest });
  });

  it('says what it expects in the words of the 400', () => {
    expect(describeNewHireStartChoice({ expected: '2026-12-01', latest: undefined })).toBe('expected 2026-12-01');
    expect(describeNewHireStartChoice({ expected: '2026-12-01', latest: '2027-03-01' })).toBe(
      'expected 2026-12-01, or the first of a later month up to 2027-03-01',
    );
  });
});

describe('employmentIneligibility', () => {
  const rule = { minimum_hours_per_week: 30, eligible_employment_statuses: ['full_time', 'seasonal'] };
  it.each([
    [30, 'full_time', true],
    [29.99, 'full_time', false],
    [null, 'full_time', false],
    [40, 'seasonal', true],
    [40, 'part_time', false],
    [40, null, false],
  ] as const)('at %s hours a week, %s: eligible %s', (hoursWorked, employmentStatus, eligible) => {
    expect(employmentIneligibility({ hoursWorked, employmentStatus }, rule) === undefined).toBe(eligible);
  });

  it('without requirements, everyone is eligible', () => {
    expect(
      employmentIneligibility({ hoursWorked: null, employmentStatus: null }, { minimum_hours_per_week: null, eligible_employment_statuses: null }),
    ).toBeUndefined();
  });
});

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
}
