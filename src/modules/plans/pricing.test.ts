import { describe, expect, it } from 'vitest';
import type { CoverageTier } from './coverage-tier.ts';
import { PERCENTAGE_PATTERN, chargedAges, contributionSplit, isPercentage, premiumCents, type ContributionRule, type PlanRates } from './pricing.ts';

const COMPOSITE: PlanRates = {
  premium_type: 'composite',
  composite_rates: {
    member: '500.00',
    member_spouse: '1000.5',
    member_child: '800',
    member_children: '1100.99',
    member_family: '1500.25',
  },
  age_rates: null,
};

// Listed out of order on purpose: the band is chosen by age, not by position.
const AGE_BANDED: PlanRates = {
  premium_type: 'age_banded',
  composite_rates: null,
  age_rates: [
    { age: 30, amount: '350.00' },
    { age: 0, amount: '200.00' },
    { age: 64, amount: '900.00' },
    { age: 21, amount: '300.00' },
    { age: 40, amount: '450.50' },
  ],
};

const AGE_BANDED_FROM_15: PlanRates = {
  premium_type: 'age_banded',
  composite_rates: null,
  age_rates: [
    { age: 15, amount: '150.00' },
    { age: 21, amount: '300.00' },
    { age: 65, amount: '1000.00' },
  ],
};

describe('premiumCents', () => {
  it.each<[CoverageTier, number]>([
    ['member', 50000],
    ['member_spouse', 100050],
    ['member_child', 80000],
    ['member_children', 110099],
    ['member_family', 150025],
  ])('when the plan is composite and the tier is %s, then the premium is the tier rate, %i cents', (tier, cents) => {
    expect(premiumCents(COMPOSITE, tier, [40, 38])).toBe(cents);
  });

  it('when the plan is composite, then the ages of the covered people do not matter', () => {
    expect(premiumCents(COMPOSITE, 'member_family', [64, 60, 25])).toBe(premiumCents(COMPOSITE, 'member_family', [20, 1, 0]));
  });

  it.each<[string, number[], number]>([
    ['a member aged 35', [35], 35000],
    ['a member exactly at a band age (21)', [21], 30000],
    ['a member a year below a band age (20)', [20], 20000],
    ['a member the day before the next band (29)', [29], 30000],
    ['a member exactly at the 30 band', [30], 35000],
    ['a member at the top band', [64], 90000],
    ['a member above the top band', [99], 90000],
    ['a newborn at the lowest band age (0)', [0], 20000],
    ['a member aged 40 with a spouse aged 38 and children aged 10 and 8', [40, 38, 10, 8], 45050 + 35000 + 20000 + 20000],
    ['a member and a dependent of the same age', [45, 45], 2 * 45050],
  ])('when the plan is age-banded and covers %s, then the premium is %i cents', (_case, ages, cents) => {
    expect(premiumCents(AGE_BANDED, 'member', ages)).toBe(cents);
  });

  it.each<[string, number[], number]>([
    ['a child younger than every band (10)', [10], 15000],
    ['a newborn younger than every band', [0], 15000],
    ['a member and two children younger than every band', [50, 3, 14], 30000 + 15000 + 15000],
    ['a member exactly at the lowest band (15)', [15], 15000],
  ])('when the plan is age-banded from age 15 and covers %s, then the lowest band applies: %i cents', (_case, ages, cents) => {
    expect(premiumCents(AGE_BANDED_FROM_15, 'member_children', ages)).toBe(cents);
  });

  it('when the plan is age-banded, then the tier does not matter', () => {
    expect(premiumCents(AGE_BANDED, 'member', [40, 38])).toBe(premiumCents(AGE_BANDED, 'member_family', [40, 38]));
  });

  it('when two bands share an age, then the first listed applies', () => {
    const rates: PlanRates = {
      premium_type: 'age_banded',
      composite_rates: null,
      age_rates: [
        { age: 0, amount: '100.00' },
        { age: 30, amount: '300.00' },
        { age: 30, amount: '999.00' },
      ],
    };
    expect(premiumCents(rates, 'member', [31])).toBe(30000);
  });

  it.each<[string, PlanRates, CoverageTier]>([
    ['the premium type is null', { premium_type: null, composite_rates: null, age_rates: null }, 'member'],
    ['the premium type is null although rates are present', { ...COMPOSITE, premium_type: null }, 'member'],
    ['the plan is composite without composite rates', { premium_type: 'composite', composite_rates: null, age_rates: null }, 'member'],
    ['the plan is composite with empty composite rates', { premium_type: 'composite', composite_rates: {}, age_rates: null }, 'member'],
    ['the plan is composite without a rate for the tier', { ...COMPOSITE, composite_rates: { member: '500.00' } }, 'member_family'],
    ['the plan is composite and only age rates are set', { ...AGE_BANDED, premium_type: 'composite' }, 'member'],
    ['the plan is age-banded without age rates', { premium_type: 'age_banded', composite_rates: null, age_rates: null }, 'member'],
    ['the plan is age-banded with empty age rates', { premium_type: 'age_banded', composite_rates: null, age_rates: [] }, 'member'],
    ['the plan is age-banded and only composite rates are set', { ...COMPOSITE, premium_type: 'age_banded' }, 'member'],
  ])('when %s, then there is no premium (undefined)', (_case, rates, tier) => {
    expect(premiumCents(rates, tier, [40])).toBeUndefined();
  });

  it.each<[string, PlanRates, number[]]>([
    ['no covered ages are given for an age-banded plan', AGE_BANDED, []],
    ['an age is negative', AGE_BANDED, [40, -1]],
    ['an age is fractional', AGE_BANDED, [40.5]],
    ['an age is not a number', AGE_BANDED, [Number.NaN]],
    ['an age rate is not a money string', { ...AGE_BANDED, age_rates: [{ age: 0, amount: '12.345' }] }, [40]],
    ['a composite rate is not a money string', { ...COMPOSITE, composite_rates: { member: '1,000.00' } }, [40]],
    ['the sum exceeds the safe integer range', { ...AGE_BANDED, age_rates: [{ age: 0, amount: '999999999999.99' }] }, Array.from({ length: 100 }, () => 40)],
  ])('when %s, then it throws', (_case, rates, ages) => {
    expect(() => premiumCents(rates, 'member', ages)).toThrow(RangeError);
  });
});

describe('isPercentage', () => {
  it.each(['0', '0.5', '0.05', '1', '9.99', '10', '33.33', '50', '99.99', '100', '100.0', '100.00'])('when given %j, then it is a percentage', (value) => {
    expect(isPercentage(value)).toBe(true);
    expect(new RegExp(PERCENTAGE_PATTERN).test(value)).toBe(true);
  });

  it.each([
    ['100.01', 'above 100'],
    ['101', 'above 100'],
    ['1000', 'above 100'],
    ['-1', 'negative'],
    ['-0', 'a sign'],
    ['+5', 'a sign'],
    ['1.005', 'more than two decimals'],
    ['00', 'a leading zero'],
    ['05', 'a leading zero'],
    ['.5', 'no whole part'],
    ['5.', 'a trailing point'],
    ['', 'empty'],
    [' 5', 'whitespace'],
    ['1e2', 'an exponent'],
    ['50%', 'a percent sign'],
    ['0.333', 'more than two decimals'],
  ])('when given %j (%s), then it is not a percentage', (value) => {
    expect(isPercentage(value)).toBe(false);
  });
});

function rule(contribution: string, monthly_min_threshold = '0', monthly_max_threshold = '999999999999.99'): ContributionRule {
  return { contribution, monthly_min_threshold, monthly_max_threshold };
}

describe('contributionSplit', () => {
  it.each<[string, number, number, number, ContributionRule]>([
    ['0 %', 50000, 0, 50000, rule('0')],
    ['100 %', 50000, 50000, 0, rule('100')],
    ['100.00 %', 50000, 50000, 0, rule('100.00')],
    ['50 % of an even premium', 10000, 5000, 5000, rule('50')],
    ['50 % of an odd premium (half a cent rounds up)', 10001, 5001, 5000, rule('50')],
    ['50 % of one cent (half a cent rounds up)', 1, 1, 0, rule('50')],
    ['12.5 % of 4 cents (half a cent rounds up)', 4, 1, 3, rule('12.5')],
    ['0.01 % of 50.00 (half a cent rounds up)', 5000, 1, 4999, rule('0.01')],
    ['0.01 % of 49.99 (below half a cent rounds down)', 4999, 0, 4999, rule('0.01')],
    ['33.33 % of 100.00', 10000, 3333, 6667, rule('33.33')],
    ['33.33 % of 123.45 (4114.5885 cents)', 12345, 4115, 8230, rule('33.33')],
    ['33.33 % of 1.50 (49.995 cents)', 150, 50, 100, rule('33.33')],
    ['75 % of 333.33 (24999.75 cents)', 33333, 25000, 8333, rule('75')],
    ['a share raised to the minimum', 40000, 10000, 30000, rule('10', '100', '1000')],
    ['a share lowered to the maximum', 80000, 50000, 30000, rule('80', '0', '500')],
    ['a share between the thresholds', 80000, 40000, 40000, rule('50', '100', '500')],
    ['a share exactly at the maximum', 100000, 50000, 50000, rule('50', '0', '500')],
    ['a minimum above the premium (capped at the premium)', 10000, 10000, 0, rule('50', '200', '1000')],
    ['a minimum above the premium at 0 %', 10000, 10000, 0, rule('0', '200', '1000')],
    ['a minimum above the maximum (the maximum wins)', 80000, 30000, 50000, rule('50', '600', '300')],
    ['a minimum above the maximum at 0 % (the maximum wins)', 80000, 30000, 50000, rule('0', '600', '300')],
    ['a maximum of zero', 50000, 0, 50000, rule('100', '0', '0')],
    ['a zero premium', 0, 0, 0, rule('50')],
    ['a zero premium at 100 %', 0, 0, 0, rule('100')],
    ['a zero premium with a minimum', 0, 0, 0, rule('50', '100', '1000')],
    ['100 % of the largest money amount', 99_999_999_999_999, 99_999_999_999_999, 0, rule('100')],
    ['50 % of the largest money amount', 99_999_999_999_999, 50_000_000_000_000, 49_999_999_999_999, rule('50')],
    ['33.33 % of the largest money amount', 99_999_999_999_999, 33_330_000_000_000, 66_669_999_999_999, rule('33.33')],
    ['0.01 % of the largest money amount', 99_999_999_999_999, 10_000_000_000, 99_989_999_999_999, rule('0.01')],
    [
      '50 % of the largest safe integer, capped by the largest money maximum',
      Number.MAX_SAFE_INTEGER,
      99_999_999_999_999,
      Number.MAX_SAFE_INTEGER - 99_999_999_999_999,
      rule('50', '0', '999999999999.99'),
    ],
  ])('when the rule is %s and the premium is %i cents, then the employer pays %i and the member %i', (_case, premium, employer, member, contributionRule) => {
    expect(contributionSplit(premium, contributionRule)).toEqual({ employerCents: employer, memberCents: member });
  });

  it.each<[number, ContributionRule]>([
    [12345, rule('33.33', '10', '50')],
    [1, rule('99.99')],
    [99, rule('0.5', '0.01', '0.98')],
    [7777777, rule('66.67', '0', '1000000')],
    [5, rule('100', '1', '0.01')],
  ])('when %i cents are split by %j, then the shares add up to the premium and neither is negative', (premium, contributionRule) => {
    const { employerCents, memberCents } = contributionSplit(premium, contributionRule);
    expect(employerCents + memberCents).toBe(premium);
    expect(employerCents).toBeGreaterThanOrEqual(0);
    expect(memberCents).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(employerCents) && Number.isInteger(memberCents)).toBe(true);
  });

  it.each<[string, number, ContributionRule]>([
    ['a percentage above 100', 10000, rule('100.01')],
    ['a percentage of 101', 10000, rule('101')],
    ['a negative percentage', 10000, rule('-5')],
    ['a percentage with three decimals', 10000, rule('33.333')],
    ['an empty percentage', 10000, rule('')],
    ['a percentage with a percent sign', 10000, rule('50%')],
    ['a malformed minimum', 10000, rule('50', 'ten')],
    ['a negative minimum', 10000, rule('50', '-1')],
    ['a malformed maximum', 10000, rule('50', '0', '1.005')],
    ['an empty maximum', 10000, rule('50', '0', '')],
    ['a negative premium', -1, rule('50')],
    ['a fractional premium', 100.5, rule('50')],
    ['a premium that is not a number', Number.NaN, rule('50')],
  ])('when given %s, then it throws', (_case, premium, contributionRule) => {
    expect(() => contributionSplit(premium, contributionRule)).toThrow(RangeError);
  });
});

describe('chargedAges (ACA, 45 CFR 147.102(c)(3)(i))', () => {
  it.each([
    [[40], [20, 15, 10, 5], true, [40, 20, 15, 10]],
    [[40], [20, 15, 10], true, [40, 20, 15, 10]],
    [[40], [20, 15, 10, 5], false, [40, 20, 15, 10, 5]],
    [[40, 38], [21, 20, 20, 3, 1], true, [40, 38, 21, 20, 20, 3]],
    [[40], [25, 22, 21], true, [40, 25, 22, 21]],
  ] as const)('adults %j, children %j, rule %s: charged %j', (adults, children, limit, expected) => {
    expect(chargedAges(adults, children, limit)).toEqual(expected);
  });
});
