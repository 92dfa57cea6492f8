import { describe, expect, it } from 'vitest';
import {
  addDays,
  addYears,
  canonicalTimestamp,
  ageOn,
  compareDates,
  daysBeforeInstant,
  daysInMonth,
  endOfMonth,
  endOfYear,
  isCalendarDate,
  isLeapYear,
  parseDate,
  parseTimestamp,
  toDateString,
  toTimestamp,
} from './dates.ts';

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

describe('parseTimestamp', () => {
  it.each([
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z', 'the first instant in range'],
    ['0000-12-31T23:00:00-01:00', '0001-01-01T00:00:00.000Z', 'year 0 written with an offset that brings it to the first instant'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z', 'the last instant in range'],
    ['9999-12-31T23:59:59.999+00:00', '9999-12-31T23:59:59.999Z', 'the last instant with a zero offset'],
    ['9999-12-31T23:59:59.9999999Z', '9999-12-31T23:59:59.999Z', 'the last instant, precision beyond milliseconds cut off'],
    ['2026-06-30T23:59:59Z', '2026-06-30T23:59:59.000Z', 'the second before a leap second'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z', 'a leap day'],
    ['2026-03-01t10:00:00z', '2026-03-01T10:00:00.000Z', 'lower-case t and z (RFC 3339 section 5.6)'],
    ['2026-03-01T10:00:00+14:00', '2026-02-28T20:00:00.000Z', 'the largest offset in use (+14:00)'],
    ['2026-03-01T10:00:00-12:00', '2026-03-01T22:00:00.000Z', 'the smallest offset in use (-12:00)'],
    ['2026-03-01T10:00:00+23:59', '2026-02-28T10:01:00.000Z', 'the largest offset RFC 3339 writes'],
    ['2026-03-01T10:00:00-00:00', '2026-03-01T10:00:00.000Z', 'an unknown local offset (RFC 3339 section 4.3)'],
    ['2026-03-01T10:00:00+05:30', '2026-03-01T04:30:00.000Z', 'an offset with minutes'],
    ['2026-03-01T10:00:00.5Z', '2026-03-01T10:00:00.500Z', 'one fractional digit'],
    ['2026-03-01T10:00:00.123Z', '2026-03-01T10:00:00.123Z', 'milliseconds'],
    ['2026-03-01T10:00:00.123456789Z', '2026-03-01T10:00:00.123Z', 'nanoseconds, cut off to milliseconds'],
    ['2026-03-01T10:00:00.999999Z', '2026-03-01T10:00:00.999Z', 'microseconds cut off, never rounded into the next second'],
    ['0099-12-31T23:59:59Z', '0099-12-31T23:59:59.000Z', 'a year below 100 (not read as 1999)'],
  ])('when given %j, then it is the instant %s (%s)', (text, expected) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(expected);
  });

  it.each([
    ['0000-12-31T23:59:59Z', 'the last second before the range'],
    ['0000-12-31T23:59:59.999Z', 'the last millisecond before the range'],
    ['0001-01-01T00:59:59+01:00', 'in year 1 locally, before the range in UTC'],
    ['0000-01-01T00:00:00Z', 'year 0'],
    ['9999-12-31T23:59:59-01:00', 'year 10000 in UTC'],
    ['9999-12-31T23:59:59.999-00:01', 'a minute into year 10000 in UTC'],
    ['+010000-01-01T00:00:00Z', 'an expanded year'],
    ['-000001-01-01T00:00:00Z', 'a negative year'],
    ['2026-06-30T23:59:60Z', 'a leap second'],
    ['2016-12-31T23:59:60Z', 'a leap second that happened'],
    ['2026-02-29T00:00:00Z', 'February 29 in a common year'],
    ['2026-04-31T00:00:00Z', 'April 31'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-03-01T24:00:00Z', 'hour 24'],
    ['2026-03-01T10:60:00Z', 'minute 60'],
    ['2026-03-01T10:00:61Z', 'second 61'],
    ['2026-03-01T10:00:00', 'no offset'],
    ['2026-03-01T10:00Z', 'no seconds'],
    ['2026-03-01 10:00:00Z', 'a space instead of T'],
    ['2026-03-01T10:00:00+0100', 'an offset without its colon'],
    ['2026-03-01T10:00:00+01', 'an offset without minutes'],
    ['2026-03-01T10:00:00+24:00', 'offset hour 24'],
    ['2026-03-01T10:00:00+01:60', 'offset minute 60'],
    ['2026-03-01T10:00:00.Z', 'a decimal point without digits'],
    ['2026-03-01T10:00:00,5Z', 'a decimal comma (ISO 8601, not RFC 3339)'],
    ['2026-3-01T10:00:00Z', 'no zero padding'],
    ['２０２６-03-01T10:00:00Z', 'full-width digits'],
    ['2026-03-01', 'a date'],
    [' 2026-03-01T10:00:00Z', 'leading whitespace'],
    ['2026-03-01T10:00:00Z\n', 'a trailing newline'],
    ['1772359200000', 'epoch milliseconds'],
    ['yesterday', 'a word'],
    ['', 'empty'],
  ])('when given %j (%s), then it is not a timestamp', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it('when parsed, then every instant in range is stored in the fixed-width form that sorts as text', () => {
    const stored = ['0001-01-01T00:00:00Z', '0099-12-31T23:59:59Z', '2026-03-01T10:00:00+14:00', '9999-12-31T23:59:59.999Z'].map((text) =>
      toTimestamp(parseTimestamp(text)!),
    );
    expect(stored.every((timestamp) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(timestamp))).toBe(true);
    expect([...stored].sort()).toEqual(stored);
  });
});

describe('parseDate', () => {
  it.each([
    ['0001-01-01', 'the first date in range'],
    ['9999-12-31', 'the last date in range'],
    ['2024-02-29', 'a leap day'],
  ])('when given %j (%s), then it is that date', (text) => {
    expect(parseDate(text)).toBe(text);
  });

  it.each([
    ['0000-12-31', 'the last date before the range'],
    ['0000-01-01', 'year 0'],
    ['10000-01-01', 'a five-digit year'],
    ['+010000-01-01', 'an expanded year'],
    ['2026-02-29', 'February 29 in a common year'],
    ['2026-03-01T00:00:00Z', 'a timestamp'],
    ['', 'empty'],
  ])('when given %j (%s), then it is not a date', (text) => {
    expect(parseDate(text)).toBeUndefined();
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
    // The last date the API accepts is as far as arithmetic goes: last day in, and past it.
    ['9999-12-30', 1, '9999-12-31'],
    ['9999-12-31', 1, '9999-12-31'],
    ['9999-12-01', 90, '9999-12-31'],
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

  it.each([
    ['2024-03-01T00:30:00+02:00', '2024-02-29T22:30:00.000Z'],
    ['2026-01-05T00:00:00Z', '2026-01-05T00:00:00.000Z'],
    ['2026-01-05t10:00:00.5z', '2026-01-05T10:00:00.500Z'],
  ])('when a query gives the instant %s, then it is compared as the stored %s', (value, stored) => {
    expect(canonicalTimestamp(value)).toBe(stored);
  });
});

describe('compareDates', () => {
  it.each([
    ['2024-01-01', '2024-01-02', -1],
    ['2024-01-02', '2024-01-01', 1],
    ['2024-02-29', '2024-02-29', 0],
    ['2024-12-31', '2025-01-01', -1],
    ['2024-09-30', '2024-10-01', -1],
    ['0999-12-31', '1000-01-01', -1],
    ['2025-01-01', '2024-12-31', 1],
  ])('when %s is compared with %s, then the sign is %i', (a, b, sign) => {
    expect(Math.sign(compareDates(a, b))).toBe(sign);
  });

  it('when used as a sort comparator, then dates come out in calendar order', () => {
    const dates = ['2025-01-01', '2024-02-29', '2024-12-31', '2024-02-28', '2024-10-01'];
    expect([...dates].sort(compareDates)).toEqual(['2024-02-28', '2024-02-29', '2024-10-01', '2024-12-31', '2025-01-01']);
  });

  it.each([
    ['2024-1-01', '2024-01-01'],
    ['2024-01-01', '2023-02-29'],
    ['2024-01-01T00:00:00Z', '2024-01-01'],
  ])('when %j or %j is not a calendar date, then it throws', (a, b) => {
    expect(() => compareDates(a, b)).toThrow(RangeError);
  });
});

describe('ageOn', () => {
  it.each([
    ['2000-06-15', '2000-06-15', 0, 'the day of birth'],
    ['2000-06-15', '2001-06-14', 0, 'the day before the first birthday'],
    ['2000-06-15', '2001-06-15', 1, 'the first birthday'],
    ['2000-06-15', '2026-06-14', 25, 'the day before the 26th birthday'],
    ['2000-06-15', '2026-06-15', 26, 'the 26th birthday'],
    ['2000-06-15', '2026-06-16', 26, 'the day after the 26th birthday'],
    ['2000-12-31', '2025-12-30', 24, 'the day before a Dec 31 birthday'],
    ['2000-12-31', '2025-12-31', 25, 'a Dec 31 birthday'],
    ['2001-01-01', '2025-12-31', 24, 'the year-end before a Jan 1 birthday'],
    ['2001-01-01', '2026-01-01', 25, 'a Jan 1 birthday'],
    ['2000-02-29', '2001-02-27', 0, 'the day before Feb 28 in a common year, leap-day birth'],
    ['2000-02-29', '2001-02-28', 1, 'Feb 28 in a common year counts as a leap-day birthday'],
    ['2000-02-29', '2001-03-01', 1, 'Mar 1 after a common-year Feb 28'],
    ['2000-02-29', '2004-02-28', 3, 'Feb 28 in a leap year, leap-day birth'],
    ['2000-02-29', '2004-02-29', 4, 'Feb 29 in a leap year, leap-day birth'],
    ['2000-02-29', '2100-02-28', 100, 'Feb 28 in a century common year, leap-day birth'],
    ['2000-02-28', '2004-02-28', 4, 'a Feb 28 birthday in a leap year'],
    ['2000-03-01', '2004-02-29', 3, 'a leap day before a Mar 1 birthday'],
    ['1950-07-04', '2026-11-22', 76, 'an older member'],
  ])('when born %s and the date is %s, then the age is %i (%s)', (dob, date, age) => {
    expect(ageOn(dob, date)).toBe(age);
  });

  it.each([
    ['2000-06-15', '2000-06-14', 'the date before birth'],
    ['2000-02-30', '2024-01-01', 'an invalid date of birth'],
    ['2000-01-01', '2024-13-01', 'an invalid date'],
  ])('when born %s and the date is %s (%s), then it throws', (dob, date) => {
    expect(() => ageOn(dob, date)).toThrow(RangeError);
  });
});

describe('addYears', () => {
  it.each([
    ['2024-06-15', 1, '2025-06-15'],
    ['2024-06-15', 0, '2024-06-15'],
    ['2024-06-15', -1, '2023-06-15'],
    ['2000-02-29', 26, '2026-02-28'],
    ['2000-02-29', 24, '2024-02-29'],
    ['2000-02-29', 100, '2100-02-28'],
    ['2000-02-29', 400, '2400-02-29'],
    ['2024-02-29', -1, '2023-02-28'],
    ['2023-02-28', 1, '2024-02-28'],
    ['2024-12-31', 1, '2025-12-31'],
    ['2024-01-01', 1, '2025-01-01'],
    ['0099-03-01', 1, '0100-03-01'],
  ])('when %s moves %i years, then it is %s', (date, years, expected) => {
    expect(addYears(date, years)).toBe(expected);
  });

  it.each([
    ['2024-01-01', 1.5, 'a fractional number of years'],
    ['2024-01-01', Number.NaN, 'not a number'],
    ['9999-01-01', 1, 'beyond year 9999'],
    ['0001-01-01', -2, 'before year 0'],
    ['2023-02-29', 1, 'an invalid date'],
  ])('when %s moves %d years (%s), then it throws', (date, years) => {
    expect(() => addYears(date, years)).toThrow(RangeError);
  });
});

describe('endOfMonth', () => {
  it.each([
    ['2024-01-01', '2024-01-31'],
    ['2024-01-31', '2024-01-31'],
    ['2024-02-01', '2024-02-29'],
    ['2024-02-29', '2024-02-29'],
    ['2023-02-15', '2023-02-28'],
    ['1900-02-10', '1900-02-28'],
    ['2000-02-10', '2000-02-29'],
    ['2024-04-15', '2024-04-30'],
    ['2024-09-30', '2024-09-30'],
    ['2024-12-01', '2024-12-31'],
  ])('when the date is %s, then the end of its month is %s', (date, expected) => {
    expect(endOfMonth(date)).toBe(expected);
  });

  it('when the date is not a calendar date, then it throws', () => {
    expect(() => endOfMonth('2024-02-30')).toThrow(RangeError);
  });
});

describe('endOfYear', () => {
  it.each([
    ['2024-01-01', '2024-12-31'],
    ['2024-02-29', '2024-12-31'],
    ['2024-12-31', '2024-12-31'],
    ['2025-06-15', '2025-12-31'],
  ])('when the date is %s, then the end of its year is %s', (date, expected) => {
    expect(endOfYear(date)).toBe(expected);
  });

  it('when the date is not a calendar date, then it throws', () => {
    expect(() => endOfYear('2024-00-01')).toThrow(RangeError);
  });
});

describe('daysBeforeInstant', () => {
  it('when 30 days are taken from an instant, then the cutoff is exactly 30 x 24 hours earlier, as a stored timestamp', () => {
    expect(daysBeforeInstant(new Date('2026-03-31T12:00:00.000Z'), 30)).toBe('2026-03-01T12:00:00.000Z');
  });
});
