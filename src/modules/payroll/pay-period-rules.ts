/**
 * Monthly amounts as per-pay-period amounts (docs/decisions.md "Pay schedules and payroll deductions", Rounding):
 * the annual total (12 months) is spread over the frequency's periods (PERIODS_PER_YEAR), each period the whole
 * cents of an equal share, the remainder cents on the last counted period of the plan year, so that a full plan
 * year sums to the annual total exactly. A plan year with one pay date more than the count (a 53rd weekly or a
 * 27th biweekly pay date) takes nothing on that extra, last pay date.
 */
import { fromCents } from '../../shared/money.ts';
import type { PayFrequency, PayScheduleRow } from './payroll.table.ts';
import { PERIODS_PER_YEAR } from './pay-schedule-rules.ts';

export interface PeriodSplit {
  periods: number;
  /** Every counted period but the last. */
  regular: number;
  /** The last counted period of the plan year: the regular amount plus the remainder. */
  last: number;
}

/** A monthly amount in cents, per pay period of `frequency`. Works for negative amounts too (truncates toward zero). */
export function periodSplit(monthlyCents: number, frequency: PayFrequency): PeriodSplit {
  const periods = PERIODS_PER_YEAR[frequency];
  const annual = monthlyCents * 12;
  const regular = Math.trunc(annual / periods);
  return { periods, regular, last: annual - regular * (periods - 1) };
}

/**
 * The amount of the pay date that is the `index`-th (1-based) of its plan year: regular up to the count, the last
 * one with the remainder, nothing on a pay date past the count.
 */
export function amountOnPayDate(monthlyCents: number, frequency: PayFrequency, index: number): number {
  const split = periodSplit(monthlyCents, frequency);
  if (index < split.periods) return split.regular;
  return index === split.periods ? split.last : 0;
}

/** A priced election's contributions per pay period of the member's schedule (payroll/pay-period-rules.ts). */
export function payPeriodAmounts(schedule: Pick<PayScheduleRow, 'id' | 'frequency'> | undefined, memberCents: number | null, employerCents: number | null) {
  if (schedule === undefined || memberCents === null || employerCents === null) return null;
  const member = periodSplit(memberCents, schedule.frequency);
  const employer = periodSplit(employerCents, schedule.frequency);
  return {
    pay_schedule: schedule.id,
    frequency: schedule.frequency,
    periods_per_year: member.periods,
    member_contribution: fromCents(member.regular),
    employer_contribution: fromCents(employer.regular),
    last_period_member_contribution: fromCents(member.last),
    last_period_employer_contribution: fromCents(employer.last),
  };
}
