import { describe, expect, it } from 'vitest';
import type { AgeOutRule } from '../plan-configurations/eligibility.ts';
import { carriedPlan, carriedVolumeCents, isDependentCarried, type DependentFacts, type OfferedPlan } from './carry-over.ts';

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
  const child = (dob: string, disabilityCertifiedThrough: string | null = null): DependentFacts => ({ relationship: 'child', dob, disabilityCertifiedThrough });
  const cases: [string, DependentFacts, typeof configuration | undefined, boolean][] = [
    ['a spouse', { relationship: 'spouse', dob: '1950-01-01', disabilityCertifiedThrough: null }, configuration, true],
    ["an ex-spouse covered in the spouse's place", { relationship: 'ex_spouse', dob: '1950-01-01', disabilityCertifiedThrough: null }, configuration, true],
    ['a young child', child('2012-01-01'), configuration, true],
    ['a child turning 26 on the renewal date (covered through the day before)', child('2001-01-01'), configuration, false],
    ['a child turning 26 the day after the renewal date', child('2001-01-02'), configuration, true],
    ['a child who turned 26 in December', child('2000-12-15'), configuration, false],
    ['a child past the limit with a disability certified through the renewal date', child('1990-01-01', RENEWAL), configuration, true],
    ['a child past the limit whose disability certification lapsed the day before', child('1990-01-01', '2026-12-31'), configuration, false],
    ['a grandchild past the limit (child-like)', { relationship: 'grandchild', dob: '1999-01-01', disabilityCertifiedThrough: null }, configuration, false],
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
  it.each([
    ['no volume', null, 5_000_000, null],
    ['a volume and no guaranteed issue', 8_000_000, null, 8_000_000],
    ['a volume within the guaranteed issue', 2_500_000, 3_000_000, 2_500_000],
    ['a volume equal to the guaranteed issue', 3_000_000, 3_000_000, 3_000_000],
    ['a volume above the new guaranteed issue', 4_000_000, 3_000_000, 3_000_000],
  ] as const)('when %s, then %s', (_name, volume, guaranteedIssue, expected) => {
    expect(carriedVolumeCents(volume, guaranteedIssue)).toBe(expected);
  });
});
