import type { Generated, Selectable } from 'kysely';
import { PAY_FREQUENCIES } from '../members/member.table.ts';

export { PAY_FREQUENCIES };
export type PayFrequency = (typeof PAY_FREQUENCIES)[number];

/** How a plan configuration's deduction is taxed (docs/decisions.md "Pay schedules and payroll deductions"). */
export const TAX_TREATMENTS = ['pre_tax_125', 'post_tax', 'imputed'] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

export interface PayScheduleTable {
  id: string;
  provider_id: string;
  employer_id: string;
  name: string;
  frequency: PayFrequency;
  first_pay_date: string;
  /** Semimonthly only: the two days of the month (31 reads as the last day); null otherwise. */
  semimonthly_first_day: number | null;
  semimonthly_second_day: number | null;
  /** The employer's default schedule: members without a pay_schedule are paid on it. At most one per employer. */
  is_default: Generated<boolean | number>;
  created_at: string;
}
export type PayScheduleRow = Selectable<PayScheduleTable>;

/** A pay date of a schedule marked paid (POST /payroll_runs): what it took is in payroll_run_lines. */
export interface PayrollRunTable {
  id: string;
  provider_id: string;
  employer_id: string;
  pay_schedule_id: string;
  pay_date: string;
  period_start: string;
  created_at: string;
}
export type PayrollRunRow = Selectable<PayrollRunTable>;

/**
 * What a run took for one member, deduction code and pay period (STYLE habit 17): the run's own period, and each
 * earlier paid period a retroactive adjustment corrected (the difference, signed). What was taken for a period
 * is the sum of its rows over every run.
 */
export interface PayrollRunLineTable {
  id: string;
  provider_id: string;
  payroll_run_id: string;
  member_id: string;
  deduction_code: string;
  /** The pay date of the period the amounts are for (the run's own, or an earlier one adjusted). */
  period_pay_date: string;
  member_pre_tax_cents: number;
  member_post_tax_cents: number;
  employer_cents: number;
  imputed_income_cents: number;
  created_at: string;
}
export type PayrollRunLineRow = Selectable<PayrollRunLineTable>;
