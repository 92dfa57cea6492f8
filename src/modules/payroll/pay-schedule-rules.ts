/**
 * Pay dates of a pay schedule (docs/decisions.md "Pay schedules and payroll deductions"): pure, no database.
 * A schedule pays from its first pay date on; each pay date closes the pay period that began the day after the
 * pay date before it.
 */
import { addDays, compareDates, daysBetween, daysInMonth } from '../../shared/dates.ts';
import type { PayFrequency } from './payroll.table.ts';

/** Pay periods in a plan year, by frequency: what a monthly amount is spread over. */
export const PERIODS_PER_YEAR = { weekly: 52, biweekly: 26, semimonthly: 24, monthly: 12 } as const satisfies Record<PayFrequency, number>;

/** The default days of a semimonthly schedule: the 15th and the last day of the month (31 reads as the last day). */
export const DEFAULT_SEMIMONTHLY_DAYS: readonly [number, number] = [15, 31];

export interface PayScheduleDates {
  frequency: PayFrequency;
  firstPayDate: string;
  /** Semimonthly only: the two days of the month (a day past the month's end is its last day). */
  semimonthlyDays: readonly [number, number] | null;
}

const STEP_DAYS: Partial<Record<PayFrequency, number>> = { weekly: 7, biweekly: 14 };

function monthDate(year: number, month: number, day: number): string {
  const clamped = Math.min(day, daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(clamped).padStart(2, '0')}`;
}

function yearMonth(date: string): [number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
}

/** The pay days of a month-based schedule in the month of `date`, ascending. */
function payDaysInMonth(schedule: PayScheduleDates, year: number, month: number): string[] {
  if (schedule.frequency === 'monthly') return [monthDate(year, month, Number(schedule.firstPayDate.slice(8, 10)))];
  const [first, second] = schedule.semimonthlyDays ?? DEFAULT_SEMIMONTHLY_DAYS;
  return [monthDate(year, month, first), monthDate(year, month, second)];
}

function nextMonth(year: number, month: number): [number, number] {
  return month === 12 ? [year + 1, 1] : [year, month + 1];
}

/** The first pay date on or after `date`; undefined past the last representable date. */
export function payDateOnOrAfter(schedule: PayScheduleDates, date: string): string | undefined {
  const from = compareDates(date, schedule.firstPayDate) < 0 ? schedule.firstPayDate : date;
  const step = STEP_DAYS[schedule.frequency];
  if (step !== undefined) {
    const offset = daysBetween(schedule.firstPayDate, from);
    const candidate = addDays(schedule.firstPayDate, Math.ceil(offset / step) * step);
    return compareDates(candidate, '9999-12-31') > 0 ? undefined : candidate;
  }
  let [year, month] = yearMonth(from);
  // Two months always hold a pay day on or after any day of the first.
  for (let tries = 0; tries < 2 && year <= 9999; tries += 1) {
    const found = payDaysInMonth(schedule, year, month).find((day) => compareDates(day, from) >= 0);
    if (found !== undefined) return found;
    [year, month] = nextMonth(year, month);
  }
  return undefined;
}

/** The pay date before `payDate` by the schedule's rhythm (whether or not the schedule had started then). */
export function payDateBefore(schedule: PayScheduleDates, payDate: string): string {
  const step = STEP_DAYS[schedule.frequency];
  if (step !== undefined) return addDays(payDate, -step);
  let [year, month] = yearMonth(payDate);
  for (;;) {
    const found = payDaysInMonth(schedule, year, month).findLast((day) => compareDates(day, payDate) < 0);
    if (found !== undefined) return found;
    [year, month] = month === 1 ? [year - 1, 12] : [year, month - 1];
  }
}

/** Whether `date` is one of the schedule's pay dates. */
export function isPayDate(schedule: PayScheduleDates, date: string): boolean {
  return payDateOnOrAfter(schedule, date) === date;
}

/** The pay dates from `from` through `to`, ascending: linear in how many there are. */
export function payDatesBetween(schedule: PayScheduleDates, from: string, to: string): string[] {
  const dates: string[] = [];
  let next = payDateOnOrAfter(schedule, from);
  while (next !== undefined && compareDates(next, to) <= 0) {
    dates.push(next);
    next = next === '9999-12-31' ? undefined : payDateOnOrAfter(schedule, addDays(next, 1));
  }
  return dates;
}

export interface PayPeriod {
  /** The pay date that pays the period (its last day). */
  payDate: string;
  /** The period's first day: the day after the pay date before. */
  start: string;
}

/** The pay period containing `date`: the one the next pay date on or after it closes. Undefined before the schedule's first period. */
export function payPeriodContaining(schedule: PayScheduleDates, date: string): PayPeriod | undefined {
  const payDate = payDateOnOrAfter(schedule, date);
  if (payDate === undefined) return undefined;
  const start = addDays(payDateBefore(schedule, payDate), 1);
  return compareDates(date, start) < 0 ? undefined : { payDate, start };
}

/** A semimonthly schedule's days, and its first pay date on one of them: the problems, as messages by field. */
export function scheduleProblems(schedule: PayScheduleDates): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (schedule.frequency === 'semimonthly') {
    const [first, second] = schedule.semimonthlyDays ?? DEFAULT_SEMIMONTHLY_DAYS;
    if (!(first < second)) problems.push({ field: 'semimonthly_days', message: 'The two days must be in order, the first before the second.' });
    else if (!isPayDate(schedule, schedule.firstPayDate)) {
      problems.push({ field: 'first_pay_date', message: `Must fall on one of the semimonthly days (${first} or ${second}; 31 is the last day of the month).` });
    }
  } else if (schedule.semimonthlyDays !== null) {
    problems.push({ field: 'semimonthly_days', message: 'Only a semimonthly schedule has semimonthly_days.' });
  }
  return problems;
}
