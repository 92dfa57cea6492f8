import { compareCodeUnits } from './text.ts';

/**
 * Calendar dates as 'YYYY-MM-DD' strings. Arithmetic is done on the proleptic Gregorian calendar in UTC so
 * that no local time zone can move a date.
 */
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(value: string): boolean {
  const match = DATE_RE.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/**
 * The range of every date and timestamp the API accepts: what both databases store (PostgreSQL has no year 0
 * in ISO form, SQLite keeps text) and what sorts as text in the stored form (four-digit years).
 */
export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';
export const FIRST_TIMESTAMP = '0001-01-01T00:00:00.000Z';
export const LAST_TIMESTAMP = '9999-12-31T23:59:59.999Z';
export const DATE_INPUT_MESSAGE = `Must be a real calendar date, YYYY-MM-DD, between ${FIRST_DATE} and ${LAST_DATE}.`;
export const TIMESTAMP_INPUT_MESSAGE = 'Must be an ISO 8601 timestamp between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.';

/** The one parser of dates given to the API: the date when `text` is a calendar date in range, else undefined. */
export function parseDate(text: string): string | undefined {
  // Four-digit years end at LAST_DATE by themselves.
  return isCalendarDate(text) && text >= FIRST_DATE ? text : undefined;
}

/**
 * RFC 3339 date-time (section 5.6): `T` and `Z` in either case, a `Z` or `±hh:mm` offset, any number of
 * fractional digits. No space instead of `T`, no offset without its colon, no leap second (section 5.7:
 * neither database can store one).
 */
const TIMESTAMP_RE = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const FIRST_INSTANT = Date.parse(FIRST_TIMESTAMP);
const LAST_INSTANT = Date.parse(LAST_TIMESTAMP);

/**
 * The one parser of timestamps given to the API: the instant `text` names, or undefined when it is not an
 * RFC 3339 date-time or, once its offset is applied, falls outside FIRST_TIMESTAMP..LAST_TIMESTAMP.
 * Precision beyond milliseconds (the stored precision) is cut off.
 */
export function parseTimestamp(text: string): Date | undefined {
  const match = TIMESTAMP_RE.exec(text);
  if (!match) return undefined;
  const [, date = '', hours = '', minutes = '', seconds = '', fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] = match;
  if (!isCalendarDate(date) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return undefined;
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const instant = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999; minutes past 59 or below 0 carry.
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(Number(hours), Number(minutes) - offset, Number(seconds), Number(fraction.slice(0, 3).padEnd(3, '0')));
  const time = instant.getTime();
  return time >= FIRST_INSTANT && time <= LAST_INSTANT ? instant : undefined;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The UTC calendar date of an instant. */
/**
 * The instant's UTC date. Arithmetic that runs past the last date the API accepts (a waiting period or a first
 * of the month after a hire on 9999-12-31) stops at it: every date the service computes is one it can compare.
 */
export function toDateString(instant: Date): string {
  if (instant.getUTCFullYear() > 9999) return LAST_DATE;
  return instant.toISOString().slice(0, 10);
}

/** The instant `days` whole days (of 24 hours) before `instant`, as a stored timestamp: a retention cutoff. */
export function daysBeforeInstant(instant: Date, days: number): string {
  return new Date(instant.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
}

/** An instant as the fixed-width timestamp stored and returned everywhere: 'YYYY-MM-DDTHH:mm:ss.sssZ'. */
export function toTimestamp(instant: Date): string {
  return instant.toISOString();
}

/**
 * A `date-time` query value (already checked by its schema: any ISO 8601 instant, with any offset) as the
 * stored form, so that it compares as the instant it names on both databases (SQLite compares the text).
 */
export function canonicalTimestamp(value: string): string {
  const instant = parseTimestamp(value);
  if (!instant) throw new RangeError(`not a timestamp the API accepts: ${value}`);
  return toTimestamp(instant);
}

export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day + days);
  return toDateString(instant);
}

function assertCalendarDate(value: string): void {
  if (!isCalendarDate(value)) throw new RangeError(`not a calendar date: ${value}`);
}

function parseCalendarDate(value: string): [year: number, month: number, day: number] {
  assertCalendarDate(value);
  return value.split('-').map(Number) as [number, number, number];
}

function formatCalendarDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Negative when `a` is before `b`, 0 when equal, positive when after. Usable as a sort comparator. */
export function compareDates(a: string, b: string): number {
  assertCalendarDate(a);
  assertCalendarDate(b);
  // Zero-padded YYYY-MM-DD strings sort like the dates they name.
  return compareCodeUnits(a, b);
}

/**
 * Whole years completed on `date` by someone born on `dob`. Throws when `date` is before `dob`.
 * Convention: a Feb 29 birthday is reached on Feb 28 in common years (as `addYears` does), so the person is a
 * year older on Feb 28, not on Mar 1.
 */
export function ageOn(dob: string, date: string): number {
  const [birthYear, birthMonth, birthDay] = parseCalendarDate(dob);
  const [year, month, day] = parseCalendarDate(date);
  if (date < dob) throw new RangeError(`${date} is before the date of birth ${dob}`);
  const birthdayThisYear = Math.min(birthDay, daysInMonth(year, birthMonth));
  const birthdayReached = month > birthMonth || (month === birthMonth && day >= birthdayThisYear);
  return year - birthYear - (birthdayReached ? 0 : 1);
}

/** The same calendar day `years` later (or earlier); Feb 29 becomes Feb 28 in a common target year. */
export function addYears(date: string, years: number): string {
  if (!Number.isSafeInteger(years)) throw new RangeError(`not a whole number of years: ${years}`);
  const [year, month, day] = parseCalendarDate(date);
  const targetYear = year + years;
  if (targetYear < 0 || targetYear > 9999) throw new RangeError(`year out of range: ${targetYear}`);
  return formatCalendarDate(targetYear, month, Math.min(day, daysInMonth(targetYear, month)));
}

/**
 * The same day `months` calendar months later (or earlier); a day the target month lacks becomes its last day
 * (Jan 31 + 1 month = Feb 28 or 29). Past December 9999 (the last month the API accepts) it stays on LAST_DATE.
 */
export function addMonths(date: string, months: number): string {
  if (!Number.isSafeInteger(months)) throw new RangeError(`not a whole number of months: ${months}`);
  const [year, month, day] = parseCalendarDate(date);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  if (targetYear > 9999) return LAST_DATE;
  const targetMonth = (index % 12) + 1;
  return formatCalendarDate(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)));
}

/** Days from `from` to `to` (1: the next day; negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const [fromYear, fromMonth, fromDay] = parseCalendarDate(from);
  const [toYear, toMonth, toDay] = parseCalendarDate(to);
  const utc = (year: number, month: number, day: number) => {
    const instant = new Date(0);
    instant.setUTCFullYear(year, month - 1, day);
    return instant.getTime();
  };
  return Math.round((utc(toYear, toMonth, toDay) - utc(fromYear, fromMonth, fromDay)) / 86_400_000);
}

/** The last day of the month of `date`. */
export function endOfMonth(date: string): string {
  const [year, month] = parseCalendarDate(date);
  return formatCalendarDate(year, month, daysInMonth(year, month));
}

/** December 31 of the year of `date`. */
export function endOfYear(date: string): string {
  const [year] = parseCalendarDate(date);
  return formatCalendarDate(year, 12, 31);
}

/** Whether `value` names a time zone this runtime knows (an IANA name such as UTC or America/Chicago). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
