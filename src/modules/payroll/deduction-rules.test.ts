import { describe, expect, it } from 'vitest';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { DEFAULT_TAX_TREATMENT, NO_AMOUNTS, adjustmentOf, changeOf, electionAmounts, taxTreatmentOf, type Amounts } from './deduction-rules.ts';

const amounts = (memberPreTax: number, employer = 0, memberPostTax = 0, imputedIncome = 0): Amounts => ({
  memberPreTax,
  memberPostTax,
  employer,
  imputedIncome,
});

describe('tax treatment', () => {
  it('when every line of coverage is read, then each has a default with its source', () => {
    for (const line of LINES_OF_COVERAGE) expect(DEFAULT_TAX_TREATMENT[line].source).toMatch(/IRC|Reg/);
  });

  it.each([
    [null, 'medical', 'pre_tax_125'],
    [null, 'life', 'imputed'],
    [null, 'long_term_disability', 'post_tax'],
    ['post_tax', 'medical', 'post_tax'],
  ] as const)('when configured %s on %s, then the treatment is %s', (configured, line, treatment) => {
    expect(taxTreatmentOf(configured, line)).toBe(treatment);
  });

  it.each([
    ['pre_tax_125', amounts(100, 50)],
    ['post_tax', amounts(0, 50, 100)],
    ['imputed', amounts(0, 50, 100, 7)],
  ] as const)('when the treatment is %s, then the member share lands in its column', (treatment, expected) => {
    expect(electionAmounts({ treatment, member: 100, employer: 50, imputedIncome: treatment === 'imputed' ? 7 : 0 })).toEqual(expected);
  });
});

describe('changeOf', () => {
  it.each([
    [amounts(100), undefined, 'started'],
    [amounts(100), NO_AMOUNTS, 'started'],
    [undefined, amounts(100), 'stopped'],
    [amounts(100), amounts(100), 'unchanged'],
    [amounts(120), amounts(100), 'changed'],
    [undefined, undefined, undefined],
  ] as const)('when now %o and before %o, then %s', (current, previous, change) => {
    expect(changeOf(current, previous)).toBe(change);
  });
});

describe('adjustmentOf', () => {
  const periods = ['2026-01-15', '2026-01-31', '2026-02-15'];
  it('when coverage approved late is owed for paid periods never taken, then one arrears over them', () => {
    const owed = new Map(periods.map((date) => [date, amounts(100, 50)]));
    const adjustment = adjustmentOf(periods, owed, new Map());
    expect(adjustment?.amounts).toEqual(amounts(300, 150));
    expect(adjustment?.periods.map((period) => period.payDate)).toEqual(periods);
  });

  it('when a termination makes the last paid period owe nothing, then a refund of it', () => {
    const taken = new Map(periods.map((date) => [date, amounts(100, 50)]));
    const owed = new Map(periods.slice(0, 2).map((date) => [date, amounts(100, 50)]));
    expect(adjustmentOf(periods, owed, taken)).toEqual({ amounts: amounts(-100, -50), periods: [{ payDate: '2026-02-15', amounts: amounts(-100, -50) }] });
  });

  it('when what was taken is what is owed, then no adjustment', () => {
    const owed = new Map(periods.map((date) => [date, amounts(100, 50)]));
    expect(adjustmentOf(periods, owed, owed)).toBeUndefined();
  });
});
