/**
 * When coverage ends for a member whose hours or employment status no longer meet a plan configuration
 * (docs/decisions.md "Loss of eligibility"), by the employer's method of measuring full-time status. Pure
 * functions of calendar dates ('YYYY-MM-DD'); malformed input throws RangeError.
 */
import { LAST_DATE, addDays, addMonths, compareDates, daysInMonth, endOfMonth, isCalendarDate } from '../../shared/dates.ts';

export const HOURS_MEASUREMENT_METHODS = ['monthly', 'look_back'] as const;
export type HoursMeasurementMethod = (typeof HOURS_MEASUREMENT_METHODS)[number];

/**
 * Stability period lengths accepted: periods follow one another from `stability_period_start` each year, so a
 * length divides the year; 26 CFR 54.4980H-3(d)(1)(iv) asks for at least 6 months (and 12 is the usual one).
 */
export const STABILITY_PERIOD_MONTHS = [6, 12] as const;

/** How an employer measures hours (the employer's `hours_measurement_method` and its stability periods). */
export interface HoursMeasurement {
  hours_measurement_method: HoursMeasurementMethod;
  /** 'MM-DD': the first day of the employer's stability periods each year (look-back only). */
  stability_period_start: string | null;
  stability_period_months: number | null;
}

export interface EligibilityLossRule {
  citation: string;
  /** The last day of coverage for a change of hours or status on `changeDate`. */
  lastDay(changeDate: string, measurement: HoursMeasurement): string;
}

/** One row per method: the employer's choice (docs/decisions.md "Loss of eligibility"). */
export const ELIGIBILITY_LOSS_RULES: Readonly<Record<HoursMeasurementMethod, EligibilityLossRule>> = {
  monthly: {
    // Monthly measurement: full-time status is determined month by month, so it ends with the month of the change.
    citation: '26 CFR 54.4980H-3(c): monthly measurement method',
    lastDay: (changeDate) => endOfMonth(changeDate),
  },
  look_back: {
    // Look-back measurement: an employee determined full-time keeps that status for the whole stability period.
    citation: '26 CFR 54.4980H-3(d): look-back measurement method, status kept through the stability period',
    lastDay: (changeDate, measurement) => {
      const { stability_period_start: start, stability_period_months: months } = measurement;
      // Employers are validated to have both; a row without them is measured monthly.
      if (start === null || months === null) return endOfMonth(changeDate);
      return stabilityPeriodContaining(changeDate, start, months).end;
    },
  },
};

/** The last day of coverage for a member who stops meeting a configuration on `changeDate`. */
export function eligibilityLossCoverageEnd(changeDate: string, measurement: HoursMeasurement): string {
  return ELIGIBILITY_LOSS_RULES[measurement.hours_measurement_method].lastDay(changeDate, measurement);
}

/** Whether 'MM-DD' names a day every year has (so no 02-29). */
export function isMonthDay(value: string): boolean {
  const match = /^(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const month = Number(match[1]);
  const day = Number(match[2]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(2025, month);
}

/** The stability period (first and last day) that contains `date`, periods of `months` from `start` ('MM-DD') each year. */
export function stabilityPeriodContaining(date: string, start: string, months: number): { start: string; end: string } {
  if (!isMonthDay(start)) throw new RangeError(`not a month and day: ${start}`);
  if (!(STABILITY_PERIOD_MONTHS as readonly number[]).includes(months)) throw new RangeError(`not a stability period length: ${months}`);
  if (!isCalendarDate(date)) throw new RangeError(`not a calendar date: ${date}`);
  const year = Number(date.slice(0, 4));
  const thisYear = `${String(year).padStart(4, '0')}-${start}`;
  let periodStart = compareDates(date, thisYear) >= 0 ? thisYear : `${String(year - 1).padStart(4, '0')}-${start}`;
  const yearStart = periodStart;
  for (let k = 1; k * months < 12; k += 1) {
    const next = addMonths(yearStart, k * months);
    if (compareDates(date, next) >= 0) periodStart = next;
  }
  const next = addMonths(yearStart, monthsBetween(yearStart, periodStart) + months);
  return { start: periodStart, end: next === LAST_DATE ? LAST_DATE : addDays(next, -1) };
}

function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm);
}
