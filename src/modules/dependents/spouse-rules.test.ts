import { describe, expect, it } from 'vitest';
import { DEPENDENT_RELATIONSHIPS, isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';
import {
  CURRENT_SPOUSE_RELATIONSHIPS,
  SPOUSE_RULES,
  coverageLeftFrom,
  isCurrentSpouseRecord,
  isRelationshipEndDue,
  isSpouseEligibleOn,
  relationshipEndOf,
  spouseStandingOn,
  type SpouseStanding,
} from './spouse-rules.ts';

describe('the spouse rules table', () => {
  it('has a row with a source for every spouse-like relationship and none for a child-like one', () => {
    expect(Object.keys(SPOUSE_RULES).sort()).toEqual(DEPENDENT_RELATIONSHIPS.filter(isSpouseLike).sort());
    for (const rule of Object.values(SPOUSE_RULES)) expect(rule.source).toMatch(/plan rule/);
    expect(CURRENT_SPOUSE_RELATIONSHIPS).toEqual(['spouse', 'domestic_partner', 'civil_union']);
  });
});

describe('isCurrentSpouseRecord (at most one per member)', () => {
  it.each([
    ['spouse', null, true],
    ['domestic_partner', null, true],
    ['civil_union', null, true],
    ['spouse', '2026-02-10', false],
    ['domestic_partner', '2026-02-10', false],
    ['ex_spouse', null, false],
    ['ex_spouse', '2026-02-10', false],
    ['child', null, false],
    ['other', null, false],
  ] as const)('a %s with relationship_end_date %s is current: %s', (relationship, endDate, current) => {
    expect(isCurrentSpouseRecord(relationship, endDate)).toBe(current);
  });
});

describe('spouseStandingOn a coverage start (the divorce date is the last day in, the day after the first day out)', () => {
  it.each<[DependentRelationship, string | null, string, SpouseStanding | undefined]>([
    ['spouse', null, '2026-03-01', 'current'],
    ['domestic_partner', null, '2026-03-01', 'current'],
    ['civil_union', null, '2026-03-01', 'current'],
    ['ex_spouse', null, '2026-03-01', 'end_date_unknown'],
    ['ex_spouse', '2026-02-25', '2026-02-24', 'current'],
    ['ex_spouse', '2026-02-25', '2026-02-25', 'current'],
    ['ex_spouse', '2026-02-25', '2026-02-26', 'ended'],
    ['spouse', '2026-02-25', '2026-02-25', 'current'],
    ['spouse', '2026-02-25', '2026-02-26', 'ended'],
    ['domestic_partner', '2026-12-31', '2027-01-01', 'ended'],
    ['child', null, '2026-03-01', undefined],
    ['step_child', null, '2026-03-01', undefined],
  ])('a %s whose relationship ends on %s, for coverage from %s: %s', (relationship, endDate, day, standing) => {
    expect(spouseStandingOn(relationship, endDate, day)).toBe(standing);
  });
});

describe('relationshipEndOf (the divorce or dissolution date is the last day covered)', () => {
  it.each<[DependentRelationship, string | null, ReturnType<typeof relationshipEndOf>]>([
    ['spouse', '2026-02-20', { lastDay: '2026-02-20', firstDayOut: '2026-02-21', reason: 'divorce' }],
    ['ex_spouse', '2026-02-28', { lastDay: '2026-02-28', firstDayOut: '2026-03-01', reason: 'divorce' }],
    // A partner is no qualified beneficiary (29 U.S.C. 1167(3)): a reason that is no COBRA event.
    ['domestic_partner', '2026-12-31', { lastDay: '2026-12-31', firstDayOut: '2027-01-01', reason: 'domestic_partnership' }],
    ['civil_union', '2024-02-28', { lastDay: '2024-02-28', firstDayOut: '2024-02-29', reason: 'domestic_partnership' }],
    ['spouse', null, undefined],
    ['ex_spouse', null, undefined],
    ['child', '2026-02-20', undefined],
  ])('a %s whose relationship ends on %s: %o', (relationship, endDate, end) => {
    expect(relationshipEndOf(relationship, endDate)).toEqual(end);
  });

  it.each([
    ['2026-02-20', '2026-02-20', false],
    ['2026-02-20', '2026-02-21', true],
    ['2026-02-20', '2026-03-02', true],
  ])('ending on %s, due on %s: %s (from the first day without coverage)', (endDate, today, due) => {
    expect(isRelationshipEndDue(relationshipEndOf('spouse', endDate)!, today)).toBe(due);
  });
});

describe('isSpouseEligibleOn a later start (renewal, a later plan year)', () => {
  it.each<[DependentRelationship, string | null, string, boolean | undefined]>([
    ['spouse', null, '2027-01-01', true],
    ['spouse', '2026-12-31', '2026-12-31', true],
    ['spouse', '2026-12-31', '2027-01-01', false],
    ['ex_spouse', '2026-12-31', '2027-01-01', false],
    ['ex_spouse', null, '2027-01-01', false],
    ['child', null, '2027-01-01', undefined],
  ])('a %s ending %s, from %s: %s', (relationship, endDate, day, eligible) => {
    expect(isSpouseEligibleOn(relationship, endDate, day)).toBe(eligible);
  });
});

describe('coverageLeftFrom (every coverage of the dependent goes on without them)', () => {
  const end = relationshipEndOf('ex_spouse', '2026-02-20')!;
  const entry = (plan_id: string, effective_start: string, effective_end: string | null) => ({ plan_id, effective_start, effective_end });
  it.each([
    ['running past the last day: from the first day out', [entry('medical', '2026-01-01', null)], [['2026-02-21', ['medical']]]],
    ['ending on the day after the last day: from the first day out', [entry('medical', '2026-01-01', '2026-02-21')], [['2026-02-21', ['medical']]]],
    ['ending on the last day: nothing', [entry('medical', '2026-01-01', '2026-02-20')], []],
    ['starting on the first day out', [entry('medical', '2026-02-21', null)], [['2026-02-21', ['medical']]]],
    ['starting later (a later plan year): from its own start', [entry('medical', '2027-01-01', '2027-12-31')], [['2027-01-01', ['medical']]]],
    ['cancelled (ending before it starts): nothing', [entry('medical', '2027-01-01', '2026-12-31')], []],
    [
      'several: earliest day first, plans of one day together',
      [entry('dental', '2027-01-01', null), entry('medical', '2026-01-01', '2026-12-31'), entry('vision', '2025-07-01', null)],
      [
        ['2026-02-21', ['medical', 'vision']],
        ['2027-01-01', ['dental']],
      ],
    ],
  ] as const)('%s', (_case, coverage, expected) => {
    expect(coverageLeftFrom(end, coverage).map(({ day, planIds }) => [day, [...planIds].sort()])).toEqual(expected);
  });
});
