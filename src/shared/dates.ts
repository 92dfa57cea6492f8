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

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The UTC calendar date of an instant. */
export function toDateString(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** An instant as the fixed-width timestamp stored and returned everywhere: 'YYYY-MM-DDTHH:mm:ss.sssZ'. */
export function toTimestamp(instant: Date): string {
  return instant.toISOString();
}

export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day + days);
  return toDateString(instant);
}
