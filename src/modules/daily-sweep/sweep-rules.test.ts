import { describe, expect, it } from 'vitest';
import { lastDayAsChild } from '../plan-configurations/eligibility.ts';
import { ageOutNoticeDay, hireDateEligibleOn, localDateAndTime, reminderDaysBefore, sweepDayDue } from './sweep-rules.ts';

describe('age-out dates', () => {
  it.each([
    // dob, limit, rule, last covered day, notice day (30 days before the first day without)
    ['2000-05-10', 26, 'date_of_birth', '2026-05-09', '2026-04-10'],
    ['2000-05-10', 26, 'end_of_month', '2026-05-31', '2026-05-02'],
    ['2000-05-10', 26, 'end_of_year', '2026-12-31', '2026-12-02'],
    ['2000-02-29', 26, 'date_of_birth', '2026-02-27', '2026-01-29'],
    ['2000-02-29', 26, 'end_of_month', '2026-02-28', '2026-01-30'],
    ['2000-03-15', 19, 'date_of_birth', '2019-03-14', '2019-02-13'],
    ['1999-12-31', 26, 'end_of_year', '2025-12-31', '2025-12-02'],
  ] as const)('when born %s with limit %i under %s, then the last covered day is %s and the notice goes on %s', (dob, limit, rule, lastDay, notice) => {
    expect(lastDayAsChild(dob, limit, rule, null)).toBe(lastDay);
    expect(ageOutNoticeDay(lastDay)).toBe(notice);
  });

  it.each([
    // certified through, last covered day: the certification's when later than the age-out, else the age-out
    ['2026-08-31', '2026-08-31'],
    ['2026-05-09', '2026-05-09'],
    ['2026-05-08', '2026-05-09'],
    [null, '2026-05-09'],
  ] as const)(
    'when a child born 2000-05-10 (limit 26, date_of_birth) has a disability certified through %s, then the last covered day is %s',
    (through, lastDay) => {
      expect(lastDayAsChild('2000-05-10', 26, 'date_of_birth', through)).toBe(lastDay);
    },
  );
});

describe('waiting periods', () => {
  it.each([
    ['2026-03-02', 0, '2026-03-02'],
    ['2026-03-02', 30, '2026-01-31'],
    ['2026-03-01', 90, '2025-12-01'],
  ] as const)('when the sweep runs on %s with a %i-day wait, then members hired on %s become eligible', (day, wait, hire) => {
    expect(hireDateEligibleOn(day, wait)).toBe(hire);
  });
});

describe('reminder days', () => {
  it.each([
    ['2026-03-31', '2026-03-24', 7],
    ['2026-03-31', '2026-03-30', 1],
    ['2026-03-31', '2026-03-25', undefined],
    ['2026-03-31', '2026-03-31', undefined],
    ['2026-03-03', '2026-02-24', 7],
  ] as const)('when a window ends %s, then on %s the reminder is %s days before', (end, day, days) => {
    expect(reminderDaysBefore(end, day)).toBe(days);
  });
});

describe('sweep schedule', () => {
  it('when read in a time zone, then the local date and time are those of the zone', () => {
    expect(localDateAndTime(new Date('2026-03-02T03:30:00Z'), 'America/Chicago')).toEqual({ date: '2026-03-01', time: '21:30' });
    expect(localDateAndTime(new Date('2026-03-02T03:30:00Z'), 'UTC')).toEqual({ date: '2026-03-02', time: '03:30' });
  });

  it.each([
    ['2026-03-02T01:59:00Z', '02:00', 'UTC', undefined],
    ['2026-03-02T02:00:00Z', '02:00', 'UTC', '2026-03-02'],
    ['2026-03-02T23:59:00Z', '02:00', 'UTC', '2026-03-02'],
    ['2026-03-02T07:59:00Z', '02:00', 'America/Chicago', undefined],
    ['2026-03-02T08:00:00Z', '02:00', 'America/Chicago', '2026-03-02'],
    ['2026-03-02T05:00:00Z', '02:00', 'America/Chicago', '2026-03-01'],
  ] as const)('when it is %s and the sweep runs at %s %s, then the day due is %s', (instant, time, zone, day) => {
    expect(sweepDayDue(new Date(instant), time, zone)).toBe(day);
  });
});
