import { describe, expect, it } from 'vitest';
import type { AgeOutRule } from '../plan-configurations/eligibility.ts';
import type { VolumeRules } from '../plans/plan.schemas.ts';
import type { DependentRelationship } from '../plans/coverage-tier.ts';
import {
  carriedPlan,
  carriedVolumeCents,
  carriedVolumes,
  isDependentCarried,
  type CoveredPerson,
  type DependentFacts,
  type OfferedPlan,
  type VolumeLimits,
} from './carry-over.ts';

const RENEWAL = '2027-01-01';
const plan = (id: string, start: string, end: string, previous: string | null = null): OfferedPlan => ({
  id,
  effective_start: start,
  effective_end: end,
  previous_plan_id: previous,
});

describe('carriedPlan', () => {
  const gold2027 = plan('gold_2027', '2027-01-01', '2027-12-31', 'gold_2026');
  const multiYear = plan('multi', '2025-01-01', '2028-12-31');
  const cases: [string, string, OfferedPlan[], string | undefined][] = [
    ['the window offers the plan that renews it', 'gold_2026', [gold2027], 'gold_2027'],
    ['the plan itself still runs on the renewal date and is offered', 'multi', [multiYear, gold2027], 'multi'],
    ['the window offers neither the plan nor a successor', 'gold_2026', [multiYear], undefined],
    ['the successor is offered but starts after the renewal date', 'gold_2026', [plan('gold_2027', '2027-02-01', '2027-12-31', 'gold_2026')], undefined],
    ['the successor is offered but ended before the renewal date', 'gold_2026', [plan('gold_2027', '2026-06-01', '2026-12-31', 'gold_2026')], undefined],
    ['the offered plan renews another plan', 'silver_2026', [gold2027], undefined],
    [
      'the plan is offered but no longer runs on the renewal date (no successor offered)',
      'gold_2026',
      [plan('gold_2026', '2026-01-01', '2026-12-31')],
      undefined,
    ],
    ["the renewal date is the successor's last day", 'gold_2026', [plan('gold_2027', '2026-01-01', RENEWAL, 'gold_2026')], 'gold_2027'],
  ];

  it.each(cases)('when %s, then the line goes to %s', (_name, planId, offered, expected) => {
    expect(carriedPlan(planId, offered, RENEWAL)?.id).toBe(expected);
  });
});

describe('isDependentCarried', () => {
  const configuration: { dependent_age_limit: number; dependent_age_out_rule: AgeOutRule } = {
    dependent_age_limit: 26,
    dependent_age_out_rule: 'date_of_birth',
  };
  const child = (dob: string, disabilityCertifiedThrough: string | null = null): DependentFacts => ({
    relationship: 'child',
    dob,
    disabilityCertifiedThrough,
    relationshipEndDate: null,
  });
  const partner = (relationship: DependentRelationship, relationshipEndDate: string | null): DependentFacts => ({
    relationship,
    dob: '1950-01-01',
    disabilityCertifiedThrough: null,
    relationshipEndDate,
  });
  const cases: [string, DependentFacts, typeof configuration | undefined, boolean][] = [
    ['a spouse', partner('spouse', null), configuration, true],
    // One spouse or partner (dependents/spouse-rules.ts): the relationship_end_date is the last day in.
    ['an ex-spouse whose divorce date is the renewal date', partner('ex_spouse', RENEWAL), configuration, true],
    ['an ex-spouse divorced the day before the renewal date', partner('ex_spouse', '2026-12-31'), configuration, false],
    ['an ex-spouse without a divorce date on record', partner('ex_spouse', null), configuration, false],
    ['a domestic partner whose partnership was dissolved before the renewal date', partner('domestic_partner', '2026-06-30'), configuration, false],
    ['a young child', child('2012-01-01'), configuration, true],
    ['a child turning 26 on the renewal date (covered through the day before)', child('2001-01-01'), configuration, false],
    ['a child turning 26 the day after the renewal date', child('2001-01-02'), configuration, true],
    ['a child who turned 26 in December', child('2000-12-15'), configuration, false],
    ['a child past the limit with a disability certified through the renewal date', child('1990-01-01', RENEWAL), configuration, true],
    ['a child past the limit whose disability certification lapsed the day before', child('1990-01-01', '2026-12-31'), configuration, false],
    ['a grandchild past the limit (child-like)', { ...child('1999-01-01'), relationship: 'grandchild' }, configuration, false],
    [
      'a child aged out under end_of_year only at the end of 2026',
      child('2000-12-15'),
      { dependent_age_limit: 26, dependent_age_out_rule: 'end_of_year' },
      false,
    ],
    [
      'a child whose 26th birthday is in 2027, under end_of_year',
      child('2001-06-01'),
      { dependent_age_limit: 26, dependent_age_out_rule: 'end_of_year' },
      true,
    ],
    ['a child past the limit, with no configuration for the member (submission decides)', child('1990-01-01'), undefined, true],
  ];

  it.each(cases)('when %s, then carried is %s', (_name, dependent, applicable, expected) => {
    expect(isDependentCarried(dependent, applicable, RENEWAL)).toBe(expected);
  });
});

describe('carriedVolumeCents', () => {
  const none: VolumeLimits = { guaranteedIssueCents: null, rules: null };
  const guaranteed: VolumeLimits = { guaranteedIssueCents: 3_000_000, rules: null };
  const perPerson: VolumeLimits = { guaranteedIssueCents: 3_000_000, rules: { spouse_guaranteed_issue: '10000.00', child_guaranteed_issue: '5000.00' } };
  const perPersonNull: VolumeLimits = { guaranteedIssueCents: 3_000_000, rules: { spouse_guaranteed_issue: null, child_guaranteed_issue: null } };
  const rules = (volumeRules: VolumeRules): VolumeLimits => ({ guaranteedIssueCents: null, rules: volumeRules });
  const cases: [string, number | null, CoveredPerson, VolumeLimits, number | null, number | null][] = [
    // [when, volume, person, limits of the new plan, member's carried volume, carried]
    ['no volume', null, 'member', guaranteed, null, null],
    ['a volume and no limits', 8_000_000, 'member', none, null, 8_000_000],
    // The member's guaranteed issue: the plan's.
    ["a member's volume at the guaranteed issue", 3_000_000, 'member', guaranteed, null, 3_000_000],
    ["a member's volume one cent over the guaranteed issue", 3_000_001, 'member', guaranteed, null, 3_000_000],
    ["a member's volume under the guaranteed issue (never raised)", 2_500_000, 'member', guaranteed, null, 2_500_000],
    // A spouse's and a child's guaranteed issue: their own, else the plan's.
    ["a spouse's volume at the spouse guaranteed issue", 1_000_000, 'spouse', perPerson, 4_000_000, 1_000_000],
    ["a spouse's volume one cent over the spouse guaranteed issue", 1_000_001, 'spouse', perPerson, 4_000_000, 1_000_000],
    ["a child's volume at the child guaranteed issue", 500_000, 'child', perPerson, 4_000_000, 500_000],
    ["a child's volume one cent over the child guaranteed issue", 500_001, 'child', perPerson, 4_000_000, 500_000],
    ["a spouse's volume over the plan's guaranteed issue, no spouse guaranteed issue", 3_000_001, 'spouse', perPersonNull, 4_000_000, 3_000_000],
    ["a child's volume over the plan's guaranteed issue, no child guaranteed issue", 3_000_001, 'child', guaranteed, 4_000_000, 3_000_000],
    // maximum: the member's.
    ["a member's volume at the maximum", 25_000_000, 'member', rules({ maximum: '250000.00' }), null, 25_000_000],
    ["a member's volume one cent over the maximum", 25_000_001, 'member', rules({ maximum: '250000.00' }), null, 25_000_000],
    ["a spouse's volume over the member's maximum (not a spouse's limit)", 30_000_000, 'spouse', rules({ maximum: '250000.00' }), 25_000_000, 30_000_000],
    // spouse_max_percent of the member's carried volume, rounded down to the cent.
    ["a spouse's volume at half the member's carried volume", 5_000_000, 'spouse', rules({ spouse_max_percent: '50' }), 10_000_000, 5_000_000],
    ["a spouse's volume one cent over half the member's carried volume", 5_000_001, 'spouse', rules({ spouse_max_percent: '50' }), 10_000_000, 5_000_000],
    ["a spouse's share rounded down to the cent (33.33% of 1,000.01)", 100_001, 'spouse', rules({ spouse_max_percent: '33.33' }), 100_001, 33_330],
    ["a spouse's volume and a member carried without volume (the engine's 0)", 100_000, 'spouse', rules({ spouse_max_percent: '50' }), null, 0],
    // child_maximum.
    ["a child's volume at the child maximum", 1_000_000, 'child', rules({ child_maximum: '10000.00' }), 4_000_000, 1_000_000],
    ["a child's volume one cent over the child maximum", 1_000_001, 'child', rules({ child_maximum: '10000.00' }), 4_000_000, 1_000_000],
    ["a member's volume over the child maximum (not a member's limit)", 2_000_000, 'member', rules({ child_maximum: '10000.00' }), null, 2_000_000],
    // increment: every volume rounded down to a multiple.
    ["a member's volume a multiple of the increment", 2_000_000, 'member', rules({ increment: '10000.00' }), null, 2_000_000],
    ["a member's volume one cent over a multiple of the increment", 2_000_001, 'member', rules({ increment: '10000.00' }), null, 2_000_000],
    ["a member's volume one cent under a multiple of the increment", 1_999_999, 'member', rules({ increment: '10000.00' }), null, 1_000_000],
    [
      "a spouse's volume one increment over its share, then in steps",
      6_000_000,
      'spouse',
      rules({ increment: '10000.00', spouse_max_percent: '50' }),
      10_000_000,
      5_000_000,
    ],
    [
      "a spouse's share not a multiple of the increment",
      5_000_000,
      'spouse',
      rules({ increment: '10000.00', spouse_max_percent: '45' }),
      10_000_000,
      4_000_000,
    ],
    ["a child's volume in steps", 1_500_000, 'child', rules({ increment: '10000.00' }), 4_000_000, 1_000_000],
    ['an increment of zero (no steps)', 1_234_567, 'member', rules({ increment: '0.00' }), null, 1_234_567],
    ['a maximum not a multiple of the increment', 30_000_000, 'member', rules({ increment: '10000.00', maximum: '255000.00' }), null, 25_000_000],
    // minimum: never raised; submission refuses it and the member stays incomplete.
    ["a member's volume at the new minimum", 1_000_000, 'member', rules({ minimum: '10000.00' }), null, 1_000_000],
    ["a member's volume one cent under the new minimum (kept, not raised)", 999_999, 'member', rules({ minimum: '10000.00' }), null, 999_999],
    [
      "a member's volume cut below the new minimum by the guaranteed issue (left as cut)",
      4_000_000,
      'member',
      { guaranteedIssueCents: 1_000_000, rules: { minimum: '20000.00' } },
      null,
      1_000_000,
    ],
    // The lowest limit wins.
    [
      "a member's volume over the guaranteed issue and the maximum",
      9_000_000,
      'member',
      { guaranteedIssueCents: 5_000_000, rules: { maximum: '40000.00' } },
      null,
      4_000_000,
    ],
  ];

  it.each(cases)('when %s, then it is carried at the lowest limit', (_name, volume, person, limits, memberCarried, expected) => {
    expect(carriedVolumeCents(volume, person, limits, memberCarried)).toBe(expected);
  });
});

describe('carriedVolumes', () => {
  it("when the member's volume is cut, then a spouse's share is of the member's volume as carried", () => {
    const limits: VolumeLimits = {
      guaranteedIssueCents: 50_000_000,
      rules: { increment: '10000.00', maximum: '255000.00', spouse_max_percent: '50', child_maximum: '20000.00' },
    };
    const carried = carriedVolumes(limits, 30_000_000, [
      { relationship: 'spouse', volumeCents: 15_000_000 },
      { relationship: 'child', volumeCents: 3_000_000 },
      { relationship: 'domestic_partner', volumeCents: null },
    ]);
    // 300,000 -> maximum 255,000 -> 250,000 in steps; spouse 150,000 -> 50% of 250,000 -> 120,000 in steps; child -> 20,000.
    expect(carried).toEqual({ member: 25_000_000, dependents: [12_000_000, 2_000_000, null] });
  });

  it('when every volume fits, then each is carried as it was', () => {
    const limits: VolumeLimits = {
      guaranteedIssueCents: 50_000_000,
      rules: { increment: '10000.00', maximum: '500000.00', spouse_max_percent: '50', child_maximum: '20000.00' },
    };
    expect(
      carriedVolumes(limits, 30_000_000, [
        { relationship: 'ex_spouse', volumeCents: 15_000_000 },
        { relationship: 'grandchild', volumeCents: 2_000_000 },
      ]),
    ).toEqual({
      member: 30_000_000,
      dependents: [15_000_000, 2_000_000],
    });
  });
});
