import { describe, expect, it } from 'vitest';
import {
  COVERAGE_TIERS,
  DEPENDENT_RELATIONSHIPS,
  coverageTier,
  isChildLike,
  isSpouseLike,
  type CoverageTier,
  type DependentRelationship,
} from './coverage-tier.ts';

const SPOUSE_LIKE: readonly DependentRelationship[] = ['spouse', 'domestic_partner', 'civil_union', 'ex_spouse'];
const CHILD_LIKE: readonly DependentRelationship[] = [
  'child',
  'grandchild',
  'step_child',
  'foster_child',
  'adopted_child',
  'legal_guardianship',
  'court_ordered_dependent',
  'other',
];

describe('COVERAGE_TIERS and DEPENDENT_RELATIONSHIPS', () => {
  it('when listed, then the tiers are the five ContributionStrategy keys in order', () => {
    expect(COVERAGE_TIERS).toEqual(['member', 'member_spouse', 'member_child', 'member_children', 'member_family']);
  });

  it("when listed, then the relationships are the contract's, in its order", () => {
    expect(DEPENDENT_RELATIONSHIPS).toEqual([...SPOUSE_LIKE, ...CHILD_LIKE]);
  });
});

describe('isSpouseLike and isChildLike', () => {
  it.each(SPOUSE_LIKE)('when the relationship is %s, then it is spouse-like and not child-like', (relationship) => {
    expect(isSpouseLike(relationship)).toBe(true);
    expect(isChildLike(relationship)).toBe(false);
  });

  it.each(CHILD_LIKE)('when the relationship is %s, then it is child-like and not spouse-like', (relationship) => {
    expect(isChildLike(relationship)).toBe(true);
    expect(isSpouseLike(relationship)).toBe(false);
  });
});

describe('coverageTier', () => {
  it.each<[string, CoverageTier, DependentRelationship[]]>([
    ['no dependents', 'member', []],
    ['a spouse', 'member_spouse', ['spouse']],
    ['a domestic partner', 'member_spouse', ['domestic_partner']],
    ['a civil-union partner', 'member_spouse', ['civil_union']],
    ['an ex-spouse', 'member_spouse', ['ex_spouse']],
    ['two spouse-like dependents and no child', 'member_spouse', ['ex_spouse', 'spouse']],
    ['one child', 'member_child', ['child']],
    ['one grandchild', 'member_child', ['grandchild']],
    ['one dependent of relationship other', 'member_child', ['other']],
    ['one court-ordered dependent', 'member_child', ['court_ordered_dependent']],
    ['two children', 'member_children', ['child', 'child']],
    ['a step child and a foster child', 'member_children', ['step_child', 'foster_child']],
    ['every child-like relationship', 'member_children', [...CHILD_LIKE]],
    ['a spouse and a child', 'member_family', ['spouse', 'child']],
    ['a child listed before a spouse', 'member_family', ['child', 'spouse']],
    ['a domestic partner and two children', 'member_family', ['domestic_partner', 'adopted_child', 'child']],
    ['an ex-spouse and a child', 'member_family', ['ex_spouse', 'child']],
    ['two spouse-like dependents and a child', 'member_family', ['spouse', 'ex_spouse', 'child']],
    ['every relationship', 'member_family', [...DEPENDENT_RELATIONSHIPS]],
  ])('when the member covers %s, then the tier is %s', (_case, tier, relationships) => {
    expect(coverageTier(relationships)).toBe(tier);
  });
});
