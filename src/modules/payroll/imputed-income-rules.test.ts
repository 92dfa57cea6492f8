import { describe, expect, it } from 'vitest';
import { TABLE_I, ageAtEndOfTaxYear, domesticPartnerMonthlyCents, section79MonthlyCents, tableIRowOf } from './imputed-income-rules.ts';

describe('Table I (26 CFR 1.79-3(d)(2))', () => {
  // Each boundary: the last age of a bracket and the first of the next.
  it.each([
    [24, 5],
    [25, 6],
    [29, 6],
    [30, 8],
    [34, 8],
    [35, 9],
    [39, 9],
    [40, 10],
    [44, 10],
    [45, 15],
    [49, 15],
    [50, 23],
    [54, 23],
    [55, 43],
    [59, 43],
    [60, 66],
    [64, 66],
    [65, 127],
    [69, 127],
    [70, 206],
    [99, 206],
  ])('when the employee is %i at the end of the tax year, then the monthly cost per $1,000 is %i cents', (age, cents) => {
    expect(tableIRowOf(age).centsPer1000).toBe(cents);
  });

  it('when each row is read, then it cites the regulation', () => {
    for (const row of TABLE_I) expect(row.citation).toContain('1.79-3(d)(2)');
  });
});

describe('section79MonthlyCents', () => {
  it.each([
    ['$50,000 or less is excluded', 5_000_000, 45, 0, 0],
    // IRC §79(a)(1): the cost of the first $50,000 is excluded; the boundary, last dollar in and first $1,000 out.
    ['$50,000 at 70 is excluded (last dollar in)', 5_000_000, 70, 0, 0],
    ['$51,000 at 70: the first $1,000 over x $2.06', 5_100_000, 70, 0, 206],
    ['$150,000 at 45: $100,000 over x $0.15', 15_000_000, 45, 0, 1500],
    ['$150,000 at 24', 15_000_000, 24, 0, 500],
    ['$150,000 at 70', 15_000_000, 70, 0, 20600],
    ['$75,500 at 30: 25.5 x $0.08 = $2.04', 7_550_000, 30, 0, 204],
    ['after-tax contributions reduce it', 15_000_000, 45, 400, 1100],
    ['never below zero', 15_000_000, 45, 9000, 0],
  ])('when %s, then the monthly imputed income is right', (_case, coverageCents, age, afterTaxMonthlyCents, expected) => {
    expect(section79MonthlyCents({ coverageCents, age, afterTaxMonthlyCents })).toBe(expected);
  });

  it.each([
    ['1990-12-31', '2026-01-15', 36],
    ['1991-01-01', '2026-12-31', 35],
  ])('when born %s and paid %s, then the age at the end of the tax year is %i', (dob, payDate, age) => {
    expect(ageAtEndOfTaxYear(dob, payDate)).toBe(age);
  });
});

describe('domesticPartnerMonthlyCents', () => {
  it.each([
    [60000, 51240, 8760],
    [51240, 51240, 0],
    [40000, 51240, 0],
  ])('when the employer pays %i with the partner and %i without, then %i is imputed', (withPartner, without, expected) => {
    expect(domesticPartnerMonthlyCents(withPartner, without)).toBe(expected);
  });
});
