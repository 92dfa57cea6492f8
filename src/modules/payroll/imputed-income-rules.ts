/**
 * Imputed income (docs/decisions.md "Pay schedules and payroll deductions", Imputed income): rules as table rows,
 * each with its source.
 */
import { ageOn } from '../../shared/dates.ts';

/** IRC §79(a): group-term life insurance up to $50,000 of coverage is excluded from the employee's income. */
export const SECTION_79_EXCLUDED_COVERAGE_CENTS = 5_000_000;

/** The monthly cost per $1,000 of coverage above the exclusion, by the employee's age at the end of the tax year. */
export interface TableIRow {
  /** The first age of the bracket. */
  fromAge: number;
  /** Cents per $1,000 of coverage per month. */
  centsPer1000: number;
  citation: string;
}

const TABLE_I_CITATION = '26 CFR 1.79-3(d)(2), Table I';

/** IRS Table I, youngest bracket first; each row runs to the next row's first age. */
export const TABLE_I: readonly TableIRow[] = [
  { fromAge: 0, centsPer1000: 5, citation: `${TABLE_I_CITATION}: under 25, $0.05` },
  { fromAge: 25, centsPer1000: 6, citation: `${TABLE_I_CITATION}: 25 through 29, $0.06` },
  { fromAge: 30, centsPer1000: 8, citation: `${TABLE_I_CITATION}: 30 through 34, $0.08` },
  { fromAge: 35, centsPer1000: 9, citation: `${TABLE_I_CITATION}: 35 through 39, $0.09` },
  { fromAge: 40, centsPer1000: 10, citation: `${TABLE_I_CITATION}: 40 through 44, $0.10` },
  { fromAge: 45, centsPer1000: 15, citation: `${TABLE_I_CITATION}: 45 through 49, $0.15` },
  { fromAge: 50, centsPer1000: 23, citation: `${TABLE_I_CITATION}: 50 through 54, $0.23` },
  { fromAge: 55, centsPer1000: 43, citation: `${TABLE_I_CITATION}: 55 through 59, $0.43` },
  { fromAge: 60, centsPer1000: 66, citation: `${TABLE_I_CITATION}: 60 through 64, $0.66` },
  { fromAge: 65, centsPer1000: 127, citation: `${TABLE_I_CITATION}: 65 through 69, $1.27` },
  { fromAge: 70, centsPer1000: 206, citation: `${TABLE_I_CITATION}: 70 and above, $2.06` },
];

/** The Table I row of an age. */
export function tableIRowOf(age: number): TableIRow {
  return TABLE_I.findLast((row) => age >= row.fromAge) ?? TABLE_I[0]!;
}

/** 26 CFR 1.79-3(d)(2): the age is the employee's attained age on the last day of the tax year (the calendar year of the pay date). */
export function ageAtEndOfTaxYear(dob: string, payDate: string): number {
  return ageOn(dob, `${payDate.slice(0, 4)}-12-31`);
}

/**
 * §79 imputed income of one month of group-term life coverage, in cents: Table I's cost of the coverage above
 * $50,000 (prorated per dollar, rounded half up to the cent), less what the employee paid for it after tax that
 * month (26 CFR 1.79-3(a)(3)), never below zero.
 */
export function section79MonthlyCents(input: { coverageCents: number; age: number; afterTaxMonthlyCents: number }): number {
  const excess = Math.max(0, input.coverageCents - SECTION_79_EXCLUDED_COVERAGE_CENTS);
  // excess cents / 100,000 ($1,000 units) x cents per unit, half up.
  const cost = Math.floor((excess * tableIRowOf(input.age).centsPer1000 + 50_000) / 100_000);
  return Math.max(0, cost - Math.max(0, input.afterTaxMonthlyCents));
}

/**
 * The employer-paid value of a non-dependent domestic partner's health coverage, per month (IRC §106 excludes
 * employer-provided health coverage only for the employee, spouse and §152 dependents; Treas. Reg. 1.61-21(b)
 * values the rest at fair market value): taken as the employer contribution of the tier with the partner less
 * the employer contribution of the tier without them, never below zero.
 */
export function domesticPartnerMonthlyCents(employerWithPartnerCents: number, employerWithoutPartnerCents: number): number {
  return Math.max(0, employerWithPartnerCents - employerWithoutPartnerCents);
}
