import { describe, expect, it } from 'vitest';
import { addMonths } from '../../shared/dates.ts';
import { ELIGIBILITY_LOSS_RULES, eligibilityLossCoverageEnd, isMonthDay, stabilityPeriodContaining, type HoursMeasurement } from './eligibility-loss-rules.ts';
import { addDays } from '../../shared/dates.ts';

const monthly: HoursMeasurement = { hours_measurement_method: 'monthly', stability_period_start: null, stability_period_months: null };
const lookBack = (start: string, months: number): HoursMeasurement => ({ hours_measurement_method: 'look_back', stability_period_start: start, stability_period_months: months });

describe('ELIGIBILITY_LOSS_RULES', () => {
  it('cites its section for each row', () => {
    expect(ELIGIBILITY_LOSS_RULES.monthly.citation).toMatch(/54\.4980H-3\(c\)/);
    expect(ELIGIBILITY_LOSS_RULES.look_back.citation).toMatch(/54\.4980H-3\(d\)/);
  });
});

describe('eligibilityLossCoverageEnd', () => {
  // [rule, change date, last day covered]; the first day without is the day after.
  const cases: [string, HoursMeasurement, string, string][] = [
    ['monthly, change mid-month', monthly, '2026-03-15', '2026-03-31'],
    ['monthly, change on the first', monthly, '2026-03-01', '2026-03-31'],
    ['monthly, change on the last day', monthly, '2026-03-31', '2026-03-31'],
    ['monthly, February of a leap year', monthly, '2028-02-10', '2028-02-29'],
    ['look-back 12 months from 01-01', lookBack('01-01', 12), '2026-03-15', '2026-12-31'],
    ['look-back 12 months from 01-01, change on its first day', lookBack('01-01', 12), '2026-01-01', '2026-12-31'],
    ['look-back 12 months from 01-01, change on its last day', lookBack('01-01', 12), '2026-12-31', '2026-12-31'],
    ['look-back 12 months from 07-01, change before the start in the year', lookBack('07-01', 12), '2026-03-15', '2026-06-30'],
    ['look-back 12 months from 07-01, change on the start', lookBack('07-01', 12), '2026-07-01', '2027-06-30'],
    ['look-back 6 months from 01-01, first half', lookBack('01-01', 6), '2026-06-30', '2026-06-30'],
    ['look-back 6 months from 01-01, second half', lookBack('01-01', 6), '2026-07-01', '2026-12-31'],
    ['look-back 6 months from 10-15, spanning the year', lookBack('10-15', 6), '2027-02-01', '2027-04-14'],
    ['look-back 6 months from 10-15, after the mid-point', lookBack('10-15', 6), '2027-04-15', '2027-10-14'],
    ['look-back from 08-31, a month without the day', lookBack('08-31', 6), '2027-03-01', '2027-08-30'],
    ['look-back measured without periods is monthly', { hours_measurement_method: 'look_back', stability_period_start: null, stability_period_months: null }, '2026-03-15', '2026-03-31'],
    ['look-back in the last period the API accepts', lookBack('01-01', 12), '9999-03-01', '9999-12-31'],
  ];

  it.each(cases)('when %s and the change is on %s, then the last day covered is %s', (_name, measurement, change, lastDay) => {
    expect(eligibilityLossCoverageEnd(change, measurement)).toBe(lastDay);
  });

  it.each(cases)('boundary (%s): the day after the last day covered is in the next period, not this one', (_name, measurement, change, lastDay) => {
    // The first day without coverage: a change on it ends coverage later.
    if (lastDay === '9999-12-31') return;
    const firstDayOut = addDays(lastDay, 1);
    expect(eligibilityLossCoverageEnd(change, measurement) < firstDayOut).toBe(true);
    expect(eligibilityLossCoverageEnd(firstDayOut, measurement) > lastDay).toBe(true);
  });
});

describe('stabilityPeriodContaining', () => {
  it('gives the first and last day of the period', () => {
    expect(stabilityPeriodContaining('2026-03-15', '07-01', 12)).toEqual({ start: '2025-07-01', end: '2026-06-30' });
    expect(stabilityPeriodContaining('2026-09-15', '01-01', 6)).toEqual({ start: '2026-07-01', end: '2026-12-31' });
  });

  it.each([
    ['2026-03-15', '02-29', 12],
    ['2026-03-15', '13-01', 12],
    ['2026-03-15', '01-01', 9],
    ['2026-02-30', '01-01', 12],
  ] as const)('refuses %s, %s, %i', (date, start, months) => {
    expect(() => stabilityPeriodContaining(date, start, months)).toThrow(RangeError);
  });
});

describe('isMonthDay and addMonths', () => {
  it.each([
    ['01-01', true],
    ['12-31', true],
    ['02-28', true],
    ['02-29', false],
    ['04-31', false],
    ['1-01', false],
    ['00-10', false],
  ] as const)('%s is a month-day every year has: %s', (value, expected) => {
    expect(isMonthDay(value)).toBe(expected);
  });

  it.each([
    ['2026-01-31', 1, '2026-02-28'],
    ['2026-08-31', 6, '2027-02-28'],
    ['2026-11-15', 2, '2027-01-15'],
    ['9999-12-01', 1, '9999-12-31'],
  ] as const)('%s plus %i months is %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });
});
