/**
 * Coverage tiers and how the enrolled dependents pick one (docs/decisions.md "Enrollments", Pricing). The five tiers
 * are the keys of Plan.composite_rates and of a plan configuration's ContributionStrategy.
 */
export const COVERAGE_TIERS = ['member', 'member_spouse', 'member_child', 'member_children', 'member_family'] as const;
export type CoverageTier = (typeof COVERAGE_TIERS)[number];

/** Dependent.member_relationship: the contract's values, in its order (docs/api.md "Dependent"). */
export const DEPENDENT_RELATIONSHIPS = [
  'spouse',
  'domestic_partner',
  'civil_union',
  'ex_spouse',
  'child',
  'grandchild',
  'step_child',
  'foster_child',
  'adopted_child',
  'legal_guardianship',
  'court_ordered_dependent',
  'other',
] as const;
export type DependentRelationship = (typeof DEPENDENT_RELATIONSHIPS)[number];

// A table rather than a list of spouse-like values, so that a new relationship cannot compile unclassified.
const RELATIONSHIP_KIND = {
  spouse: 'spouse_like',
  domestic_partner: 'spouse_like',
  civil_union: 'spouse_like',
  // An ex-spouse is covered in the spouse's place, only through the divorce date (dependents/spouse-rules.ts).
  ex_spouse: 'spouse_like',
  child: 'child_like',
  grandchild: 'child_like',
  step_child: 'child_like',
  foster_child: 'child_like',
  adopted_child: 'child_like',
  legal_guardianship: 'child_like',
  court_ordered_dependent: 'child_like',
  other: 'child_like',
} as const satisfies Record<DependentRelationship, 'spouse_like' | 'child_like'>;

export function isSpouseLike(relationship: DependentRelationship): boolean {
  return RELATIONSHIP_KIND[relationship] === 'spouse_like';
}

/** The relationships isChildLike holds for (for SQL filters). */
export const CHILD_LIKE_RELATIONSHIPS = (Object.keys(RELATIONSHIP_KIND) as DependentRelationship[]).filter(
  (relationship) => RELATIONSHIP_KIND[relationship] === 'child_like',
);

export function isChildLike(relationship: DependentRelationship): boolean {
  return RELATIONSHIP_KIND[relationship] === 'child_like';
}

/** The tier of a member covered with dependents of these relationships (one entry per enrolled dependent). */
export function coverageTier(relationships: readonly DependentRelationship[]): CoverageTier {
  const hasSpouseLike = relationships.some(isSpouseLike);
  const childLikeCount = relationships.filter(isChildLike).length;
  if (hasSpouseLike) return childLikeCount > 0 ? 'member_family' : 'member_spouse';
  if (childLikeCount === 0) return 'member';
  return childLikeCount === 1 ? 'member_child' : 'member_children';
}
