/**
 * What payroll deducts (docs/decisions.md "Pay schedules and payroll deductions"): pure rules over amounts in
 * cents. The service reads the facts and stores what each run took; these functions decide.
 */
import type { DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { TaxTreatment } from './payroll.table.ts';

/** The default tax treatment of a line of coverage, when its plan configuration names none. */
export const DEFAULT_TAX_TREATMENT: Readonly<Record<LineOfCoverage, { treatment: TaxTreatment; source: string }>> = {
  // IRC §125 cafeteria plans may offer accident and health coverage (§106) and FSAs/HSAs pre-tax.
  medical: { treatment: 'pre_tax_125', source: 'IRC §125(f), §106' },
  dental: { treatment: 'pre_tax_125', source: 'IRC §125(f), §106' },
  vision: { treatment: 'pre_tax_125', source: 'IRC §125(f), §106' },
  healthcare_fsa: { treatment: 'pre_tax_125', source: 'IRC §125(f), Prop. Treas. Reg. 1.125-5' },
  limited_purpose_fsa: { treatment: 'pre_tax_125', source: 'IRC §125(f), Prop. Treas. Reg. 1.125-5' },
  dependent_care_fsa: { treatment: 'pre_tax_125', source: 'IRC §129, §125(f)' },
  hsa: { treatment: 'pre_tax_125', source: 'IRC §223, §125(d)(2)(D)' },
  // Group-term life: coverage over $50,000 is imputed income (IRC §79); the member's share is taken after tax.
  life: { treatment: 'imputed', source: 'IRC §79' },
  // After tax by default: disability benefits paid from after-tax premiums are not income (IRC §104(a)(3)).
  accidental_death: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  short_term_disability: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  long_term_disability: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  accident: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  critical_illness: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  cancer: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
  hospital_indemnity: { treatment: 'post_tax', source: 'IRC §104(a)(3)' },
};

/**
 * Health coverage whose employer-paid part for a partner who is not the member's tax dependent is income (IRC
 * §106 excludes it only for the employee, spouse and §152 dependents): medical, dental and vision.
 */
export const PARTNER_IMPUTED_LINES: ReadonlySet<LineOfCoverage> = new Set(['medical', 'dental', 'vision']);

/**
 * Partners taken as not tax dependents: a domestic partner, and a civil union partner (not a spouse for federal
 * tax, Rev. Rul. 2013-17). The API does not record whether a partner qualifies as a §152 dependent.
 */
const NON_DEPENDENT_PARTNERS: ReadonlySet<DependentRelationship> = new Set(['domestic_partner', 'civil_union']);

export function isNonDependentPartner(relationship: DependentRelationship): boolean {
  return NON_DEPENDENT_PARTNERS.has(relationship);
}

/** The deduction code of a configuration without one: its plan's line of coverage. */
export function deductionCodeOf(configured: string | null, line: LineOfCoverage): string {
  return configured ?? line;
}

export function taxTreatmentOf(configured: TaxTreatment | null, line: LineOfCoverage): TaxTreatment {
  return configured ?? DEFAULT_TAX_TREATMENT[line].treatment;
}

export interface Amounts {
  memberPreTax: number;
  memberPostTax: number;
  employer: number;
  imputedIncome: number;
}

export const NO_AMOUNTS: Amounts = { memberPreTax: 0, memberPostTax: 0, employer: 0, imputedIncome: 0 };

/** One election's amounts for one pay date: the member's share pre-tax under §125, else after tax. */
export function electionAmounts(input: { treatment: TaxTreatment; member: number; employer: number; imputedIncome: number }): Amounts {
  const preTax = input.treatment === 'pre_tax_125';
  return { memberPreTax: preTax ? input.member : 0, memberPostTax: preTax ? 0 : input.member, employer: input.employer, imputedIncome: input.imputedIncome };
}

export function addAmounts(a: Amounts, b: Amounts): Amounts {
  return {
    memberPreTax: a.memberPreTax + b.memberPreTax,
    memberPostTax: a.memberPostTax + b.memberPostTax,
    employer: a.employer + b.employer,
    imputedIncome: a.imputedIncome + b.imputedIncome,
  };
}

export function subtractAmounts(a: Amounts, b: Amounts): Amounts {
  return addAmounts(a, { memberPreTax: -b.memberPreTax, memberPostTax: -b.memberPostTax, employer: -b.employer, imputedIncome: -b.imputedIncome });
}

export function isZero(amounts: Amounts): boolean {
  return amounts.memberPreTax === 0 && amounts.memberPostTax === 0 && amounts.employer === 0 && amounts.imputedIncome === 0;
}

function sameAmounts(a: Amounts, b: Amounts): boolean {
  return isZero(subtractAmounts(a, b));
}

export const CHANGES = ['started', 'changed', 'stopped', 'unchanged'] as const;
export type Change = (typeof CHANGES)[number];

/**
 * What changed for a deduction code since the previous pay date: `previous` is what payroll took for that
 * period when it was paid (else what is owed for it now); undefined means nothing.
 */
export function changeOf(current: Amounts | undefined, previous: Amounts | undefined): Change | undefined {
  const now = current !== undefined && !isZero(current) ? current : undefined;
  const before = previous !== undefined && !isZero(previous) ? previous : undefined;
  if (now === undefined) return before === undefined ? undefined : 'stopped';
  if (before === undefined) return 'started';
  return sameAmounts(now, before) ? 'unchanged' : 'changed';
}

export interface Adjustment {
  /** Owed minus taken, summed over the periods: positive arrears, negative a refund. */
  amounts: Amounts;
  /** Each paid period adjusted, with its own difference (what the run stores). */
  periods: { payDate: string; amounts: Amounts }[];
}

/**
 * The retroactive adjustment of one deduction code over paid periods: for each, what is owed now less what
 * was taken (STYLE habit 17). Undefined when every paid period was taken as owed.
 */
export function adjustmentOf(paidPeriods: readonly string[], owed: ReadonlyMap<string, Amounts>, taken: ReadonlyMap<string, Amounts>): Adjustment | undefined {
  const periods: Adjustment['periods'] = [];
  let total = NO_AMOUNTS;
  for (const payDate of paidPeriods) {
    const difference = subtractAmounts(owed.get(payDate) ?? NO_AMOUNTS, taken.get(payDate) ?? NO_AMOUNTS);
    if (isZero(difference)) continue;
    periods.push({ payDate, amounts: difference });
    total = addAmounts(total, difference);
  }
  return periods.length === 0 ? undefined : { amounts: total, periods };
}
