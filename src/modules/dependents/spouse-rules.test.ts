import { describe, expect, it } from 'vitest';
import { DEPENDENT_RELATIONSHIPS, isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';
import { CURRENT_SPOUSE_RELATIONSHIPS, SPOUSE_RULES, isCurrentSpouseRecord, spouseStandingOn, type SpouseStanding } from './spouse-rules.ts';

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
