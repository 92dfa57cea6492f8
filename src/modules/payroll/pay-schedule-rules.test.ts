import { describe, expect, it } from 'vitest';
import { isPayDate, payDateBefore, payDatesBetween, payPeriodContaining, scheduleProblems, type PayScheduleDates } from './pay-schedule-rules.ts';

const weekly: PayScheduleDates = { frequency: 'weekly', firstPayDate: '2026-01-02', semimonthlyDays: null };
const biweekly: PayScheduleDates = { frequency: 'biweekly', firstPayDate: '2026-01-09', semimonthlyDays: null };
const semimonthly: PayScheduleDates = { frequency: 'semimonthly', firstPayDate: '2026-01-15', semimonthlyDays: [15, 31] };
const monthly: PayScheduleDates = { frequency: 'monthly', firstPayDate: '2026-01-31', semimonthlyDays: null };

describe('payDatesBetween', () => {
  it.each([
    [weekly, '2026-01-01', '2026-01-31', ['2026-01-02', '2026-01-09', '2026-01-16', '2026-01-23', '2026-01-30']],
    [biweekly, '2025-12-01', '2026-02-10', ['2026-01-09', '2026-01-23', '2026-02-06']],
    [semimonthly, '2026-02-01', '2026-03-15', ['2026-02-15', '2026-02-28', '2026-03-15']],
    [monthly, '2026-01-01', '2026-04-30', ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']],
    [monthly, '2028-02-01', '2028-02-29', ['2028-02-29']],
  ] as const)('when a %o schedule pays %s..%s, then its pay dates are %o', (schedule, from, to, dates) => {
    expect(payDatesBetween(schedule, from, to)).toEqual(dates);
  });

  it('when the range ends before the first pay date, then there are none', () => {
    expect(payDatesBetween(weekly, '2025-01-01', '2026-01-01')).toEqual([]);
  });
});

describe('payPeriodContaining', () => {
  it.each([
    [weekly, '2026-01-03', { payDate: '2026-01-09', start: '2026-01-03' }],
    [weekly, '2026-01-09', { payDate: '2026-01-09', start: '2026-01-03' }],
    [weekly, '2025-12-27', { payDate: '2026-01-02', start: '2025-12-27' }],
    [weekly, '2025-12-26', undefined],
    [semimonthly, '2026-02-16', { payDate: '2026-02-28', start: '2026-02-16' }],
    [semimonthly, '2026-03-01', { payDate: '2026-03-15', start: '2026-03-01' }],
    [monthly, '2026-03-01', { payDate: '2026-03-31', start: '2026-03-01' }],
  ] as const)('when %o is asked for %s, then the period is %o', (schedule, date, period) => {
    expect(payPeriodContaining(schedule, date)).toEqual(period);
  });

  it.each([
    [semimonthly, '2026-03-15', '2026-02-28'],
    [semimonthly, '2026-03-31', '2026-03-15'],
    [monthly, '2026-03-31', '2026-02-28'],
    [biweekly, '2026-01-23', '2026-01-09'],
  ] as const)('when %o pays on %s, then the pay date before is %s', (schedule, payDate, before) => {
    expect(payDateBefore(schedule, payDate)).toBe(before);
  });
});

describe('scheduleProblems', () => {
  it.each([
    [semimonthly, []],
    [{ ...semimonthly, firstPayDate: '2026-01-16' }, ['first_pay_date']],
    [{ ...semimonthly, semimonthlyDays: [20, 5] as const }, ['semimonthly_days']],
    [{ ...monthly, semimonthlyDays: [1, 15] as const }, ['semimonthly_days']],
    [weekly, []],
  ] as const)('when the schedule is %o, then the problems are at %o', (schedule, fields) => {
    expect(scheduleProblems(schedule).map((problem) => problem.field)).toEqual(fields);
  });

  it('when a semimonthly schedule pays the 1st and the 31st, then February pays its last day', () => {
    const schedule: PayScheduleDates = { frequency: 'semimonthly', firstPayDate: '2026-02-01', semimonthlyDays: [1, 31] };
    expect(isPayDate(schedule, '2026-02-28')).toBe(true);
    expect(payDatesBetween(schedule, '2026-02-01', '2026-03-01')).toEqual(['2026-02-01', '2026-02-28', '2026-03-01']);
  });
});
