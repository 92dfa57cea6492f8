import { describe, expect, it } from 'vitest';
import { addDays, daysInMonth, isCalendarDate, isLeapYear, toDateString, toTimestamp } from './dates.ts';

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', 'a leap day in a leap year'],
    ['2000-02-29', 'a leap day in a year divisible by 400'],
    ['2023-02-28', 'the end of February in a common year'],
    ['2024-01-31', 'the end of a 31-day month'],
    ['2024-04-30', 'the end of a 30-day month'],
    ['2024-12-31', 'the last day of the year'],
    ['2024-01-01', 'the first day of the year'],
    ['1900-01-01', 'an old date'],
  ])('when given %j (%s), then it is a date', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });

  it.each([
    ['2023-02-29', 'a leap day in a common year'],
    ['1900-02-29', 'a leap day in a century year not divisible by 400'],
    ['2024-02-30', 'February 30th'],
    ['2024-04-31', 'the 31st of a 30-day month'],
    ['2024-06-31', 'the 31st of a 30-day month'],
    ['2024-09-31', 'the 31st of a 30-day month'],
    ['2024-11-31', 'the 31st of a 30-day month'],
    ['2024-01-32', 'day 32'],
    ['2024-00-10', 'month 0'],
    ['2024-13-01', 'month 13'],
    ['2024-01-00', 'day 0'],
    ['2024-2-1', 'no zero padding'],
    ['20240101', 'no separators'],
    ['2024/01/01', 'slashes'],
    ['2024-01-01T00:00:00Z', 'a timestamp'],
    [' 2024-01-01', 'whitespace'],
    ['2024-01-01\n', 'a trailing newline'],
    ['', 'empty'],
    ['24-01-01', 'a two-digit year'],
  ])('when given %j (%s), then it is not a date', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });
});

describe('isLeapYear', () => {
  it.each([
    [2024, true],
    [2023, false],
    [2000, true],
    [1900, false],
    [2100, false],
    [2400, true],
    [1996, true],
  ])('when the year is %i, then leap is %s', (year, leap) => {
    expect(isLeapYear(year)).toBe(leap);
  });
});

describe('daysInMonth', () => {
  it.each([
    [2024, 1, 31],
    [2024, 2, 29],
    [2023, 2, 28],
    [1900, 2, 28],
    [2000, 2, 29],
    [2024, 3, 31],
    [2024, 4, 30],
    [2024, 5, 31],
    [2024, 6, 30],
    [2024, 7, 31],
    [2024, 8, 31],
    [2024, 9, 30],
    [2024, 10, 31],
    [2024, 11, 30],
    [2024, 12, 31],
  ])('when the month is %i-%i, then it has %i days', (year, month, days) => {
    expect(daysInMonth(year, month)).toBe(days);
  });
});

describe('addDays', () => {
  it.each([
    ['2024-01-15', 0, '2024-01-15'],
    ['2024-01-15', 1, '2024-01-16'],
    ['2024-01-31', 1, '2024-02-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2024-02-29', 1, '2024-03-01'],
    ['2023-02-28', 1, '2023-03-01'],
    ['2024-04-30', 1, '2024-05-01'],
    ['2024-12-31', 1, '2025-01-01'],
    ['2025-01-01', -1, '2024-12-31'],
    ['2024-03-01', -1, '2024-02-29'],
    ['2023-03-01', -1, '2023-02-28'],
    ['2024-01-31', 30, '2024-03-01'],
    ['2024-01-01', 366, '2025-01-01'],
    ['2023-01-01', 365, '2024-01-01'],
    ['2024-12-01', 60, '2025-01-30'],
    ['2025-01-30', -60, '2024-12-01'],
    ['2024-03-10', 1, '2024-03-11'],
    ['2024-11-03', 1, '2024-11-04'],
  ])('when %s moves %i days, then it is %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  // The module promises the proleptic Gregorian calendar, but Date.UTC maps years 0-99 to 1900-1999.
  it('when the year is below 100, then the century is kept', () => {
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
  });
});

describe('toDateString and toTimestamp', () => {
  it.each([
    ['2024-03-01T00:30:00+02:00', '2024-02-29'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29'],
    ['2024-12-31T20:00:00-05:00', '2025-01-01'],
  ])('when the instant is %s, then its UTC date is %s', (instant, date) => {
    expect(toDateString(new Date(instant))).toBe(date);
  });

  it.each([
    ['2024-03-01T00:30:00+02:00', '2024-02-29T22:30:00.000Z'],
    ['2026-11-22T08:30:00.123Z', '2026-11-22T08:30:00.123Z'],
    ['2026-01-05T00:00:00Z', '2026-01-05T00:00:00.000Z'],
  ])('when the instant is %s, then its timestamp is the fixed-width %s', (instant, timestamp) => {
    expect(toTimestamp(new Date(instant))).toBe(timestamp);
    expect(toTimestamp(new Date(instant))).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
