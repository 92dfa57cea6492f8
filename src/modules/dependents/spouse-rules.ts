/**
 * One current spouse or partner, and when a spouse-like dependent stops being eligible (docs/decisions.md
 * "Dependents, beneficiaries and pay rates", One spouse or partner). Pure rules read by the dependent service
 * (one current spouse-like per member) and by save_and_submit (enrollment-rules.ts).
 */
import { compareDates } from '../../shared/dates.ts';
import { isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';

/** A spouse-like dependent's standing on a coverage day. */
export type SpouseStanding = 'current' | 'ended' | 'end_date_unknown';

interface SpouseRule {
  /** Whether the relationship, without a relationship_end_date, is a current one. */
  currentWithoutEndDate: boolean;
  source: string;
}

const PLAN_TERMS =
  "plan rule (eligibility is the plan's; under the generally applicable plan terms a spouse or partner is a dependent only while the marriage or partnership lasts, so eligibility ends on the divorce or dissolution date; continued coverage after it is COBRA's, 29 U.S.C. 1163(3))";

/**
 * One row per spouse-like relationship. A relationship_end_date (the divorce or dissolution date) ends any of
 * them: the end date itself is the last day in, the day after the first day out.
 */
export const SPOUSE_RULES = {
  spouse: { currentWithoutEndDate: true, source: PLAN_TERMS },
  domestic_partner: { currentWithoutEndDate: true, source: `${PLAN_TERMS}; one partner, not with a spouse (plan rule)` },
  civil_union: { currentWithoutEndDate: true, source: `${PLAN_TERMS}; one partner, not with a spouse (plan rule)` },
  // A former spouse is never an eligible dependent after the divorce: covered through the divorce date only, which must be known.
  ex_spouse: { currentWithoutEndDate: false, source: `${PLAN_TERMS}; an ex-spouse is covered through the divorce date (relationship_end_date) at most` },
} as const satisfies Record<Extract<DependentRelationship, 'spouse' | 'domestic_partner' | 'civil_union' | 'ex_spouse'>, SpouseRule>;

type SpouseLikeRelationship = keyof typeof SPOUSE_RULES;

/** The relationships that, without a relationship_end_date, make a dependent the member's current spouse or partner. */
export const CURRENT_SPOUSE_RELATIONSHIPS = (Object.keys(SPOUSE_RULES) as SpouseLikeRelationship[]).filter(
  (relationship) => SPOUSE_RULES[relationship].currentWithoutEndDate,
);

function ruleOf(relationship: DependentRelationship): SpouseRule | undefined {
  return isSpouseLike(relationship) ? SPOUSE_RULES[relationship as SpouseLikeRelationship] : undefined;
}

/**
 * Whether a dependent record is the member's current spouse or partner (at most one per member): a spouse,
 * domestic partner or civil-union partner whose relationship has no end date. An ex-spouse never is.
 */
export function isCurrentSpouseRecord(relationship: DependentRelationship, relationshipEndDate: string | null): boolean {
  return relationshipEndDate === null && ruleOf(relationship)?.currentWithoutEndDate === true;
}

/**
 * A spouse-like dependent's standing on `day` (a coverage start): `current` through the relationship_end_date
 * (that day included), `ended` from the day after; an ex-spouse without a recorded end date is
 * `end_date_unknown` (not coverable: the divorce date decides). Undefined for a child-like relationship.
 */
export function spouseStandingOn(relationship: DependentRelationship, relationshipEndDate: string | null, day: string): SpouseStanding | undefined {
  const rule = ruleOf(relationship);
  if (rule === undefined) return undefined;
  if (relationshipEndDate === null) return rule.currentWithoutEndDate ? 'current' : 'end_date_unknown';
  return compareDates(day, relationshipEndDate) <= 0 ? 'current' : 'ended';
}

/** The source of the rule for a spouse-like relationship (for messages). */
export function spouseRuleSource(relationship: DependentRelationship): string {
  return ruleOf(relationship)?.source ?? PLAN_TERMS;
}
