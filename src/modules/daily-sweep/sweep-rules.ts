/**
 * The date rules of the daily sweep (docs/decisions.md "The daily sweep"), as pure functions of calendar dates ('YYYY-MM-DD').
 */
import { addDays } from '../../shared/dates.ts';

/** A member is told 30 days before a covered dependent ages out (docs/decisions.md "The daily sweep"). */
export const AGE_OUT_NOTICE_DAYS = 30;

/** The day the dependent_age_out notice goes out for a child whose last covered day is `lastDay`: 30 days before the first day without. */
export function ageOutNoticeDay(lastDay: string): string {
  return addDays(lastDay, 1 - AGE_OUT_NOTICE_DAYS);
}

/** The hire date whose waiting period of `waitingPeriodDays` ends on `day` (see waitingPeriodEnd). */
export function hireDateEligibleOn(day: string, waitingPeriodDays: number): string {
  return addDays(day, -waitingPeriodDays);
}

/** Reminders go 7 days and 1 day before a window's end_date (docs/decisions.md "The daily sweep"). */
export const REMINDER_DAYS_BEFORE_END = [7, 1] as const;

/** How many days before its end_date a window reminds on `day` (7 or 1), or undefined when it does not. */
export function reminderDaysBefore(endDate: string, day: string): (typeof REMINDER_DAYS_BEFORE_END)[number] | undefined {
  return REMINDER_DAYS_BEFORE_END.find((days) => addDays(endDate, -days) === day);
}

/** The calendar date and the time of day ('HH:MM') of an instant in an IANA time zone. */
export function localDateAndTime(instant: Date, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    formatterIn(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/**
 * One formatter per time zone: making one costs about a tenth of a millisecond, and the EDI schedule asks for
 * every profile on every check (2.7% of the plan-year bench's CPU before).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterIn(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    // Time zones are few (validated IANA names); a bound keeps a hostile stream of them from growing it.
    if (formatters.size >= 100) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The day whose sweep is due at `instant`: today (in the zone) once its time of day is reached, else none. */
export function sweepDayDue(instant: Date, sweepTime: string, timeZone: string): string | undefined {
  const local = localDateAndTime(instant, timeZone);
  return local.time >= sweepTime ? local.date : undefined;
}
