/**
 * One current spouse or partner, and when a spouse-like dependent stops being eligible (docs/decisions.md
 * "Dependents, beneficiaries and pay rates", One spouse or partner). Pure rules read by the dependent service
 * (one current spouse-like per member) and by save_and_submit (enrollment-rules.ts).
 */
import { addDays, compareDates } from '../../shared/dates.ts';
import { isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';

/** A spouse-like dependent's standing on a coverage day. */
export type SpouseStanding = 'current' | 'ended' | 'end_date_unknown';

interface SpouseRule {
  /** Whether the relationship, without a relationship_end_date, is a current one. */
  currentWithoutEndDate: boolean;
  /**
   * The reason of the enrollment the service records when the relationship_end_date ends the dependent's
   * coverage (relationshipEndOf), and with it whether that is a COBRA qualifying event (cobra-rules.ts).
   */
  endReason: 'divorce' | 'domestic_partnership';
  source: string;
}

const PLAN_TERMS =
  "plan rule (eligibility is the plan's; under the generally applicable plan terms a spouse or partner is a dependent only while the marriage or partnership lasts, so eligibility ends on the divorce or dissolution date; continued coverage after it is COBRA's, 29 U.S.C. 1163(3))";

/**
 * One row per spouse-like relationship. A relationship_end_date (the divorce or dissolution date) ends any of
 * them: the end date itself is the last day in, the day after the first day out.
 */
export const SPOUSE_RULES = {
  // A divorce or legal separation is a COBRA qualifying event for the spouse: 29 U.S.C. 1163(3).
  spouse: { currentWithoutEndDate: true, endReason: 'divorce', source: PLAN_TERMS },
  // A partner is not a spouse under federal law, hence no qualified beneficiary (29 U.S.C. 1167(3)): the
  // dissolution ends coverage under the plan terms, with no COBRA event.
  domestic_partner: { currentWithoutEndDate: true, endReason: 'domestic_partnership', source: `${PLAN_TERMS}; one partner, not with a spouse (plan rule)` },
  civil_union: { currentWithoutEndDate: true, endReason: 'domestic_partnership', source: `${PLAN_TERMS}; one partner, not with a spouse (plan rule)` },
  // A former spouse is never an eligible dependent after the divorce: covered through the divorce date only, which must be known.
  ex_spouse: {
    currentWithoutEndDate: false,
    endReason: 'divorce',
    source: `${PLAN_TERMS}; an ex-spouse is covered through the divorce date (relationship_end_date) at most`,
  },
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

/**
 * Whether a spouse-like dependent may be covered from `day` (a later plan year's start, a renewal date): only
 * while `current` (spouseStandingOn). The one rule carry-over at renewal (open-enrollment/carry-over.ts) and
 * elections reaching into later plan years (enrollments/later-elections.ts) apply. Undefined for a child-like
 * relationship (the age rules decide).
 */
export function isSpouseEligibleOn(relationship: DependentRelationship, relationshipEndDate: string | null, day: string): boolean | undefined {
  const standing = spouseStandingOn(relationship, relationshipEndDate, day);
  return standing === undefined ? undefined : standing === 'current';
}

/** What a relationship_end_date does to the dependent's coverage (docs/decisions.md, A divorce or dissolution ends coverage). */
export interface RelationshipEnd {
  /** The relationship_end_date: the last day covered. */
  lastDay: string;
  /** The day after: the first day without coverage. */
  firstDayOut: string;
  /** The reason of the enrollment that ends the coverage (SPOUSE_RULES endReason). */
  reason: SpouseRule['endReason'];
}

/** The end a spouse-like dependent's relationship_end_date gives their coverage, or undefined (no date, or not spouse-like). */
export function relationshipEndOf(relationship: DependentRelationship, relationshipEndDate: string | null): RelationshipEnd | undefined {
  const rule = ruleOf(relationship);
  if (rule === undefined || relationshipEndDate === null) return undefined;
  return { lastDay: relationshipEndDate, firstDayOut: addDays(relationshipEndDate, 1), reason: rule.endReason };
}

/**
 * Whether the end is carried out on `today`: once its first day without coverage has come (a divorce date
 * before today; the daily sweep of the day after a later one). Until then the date can be cleared or moved
 * and nothing was done.
 */
export function isRelationshipEndDue(end: RelationshipEnd, today: string): boolean {
  return compareDates(end.firstDayOut, today) <= 0;
}

/**
 * From which day each coverage naming the dependent goes on without them (`leaving`: plan id -> the day): the
 * first day out for coverage running on it, a later coverage's own start for coverage starting after it
 * (every coverage of the dependent ends, a later plan year's too). Coverage ending on the last day or earlier,
 * or cancelled (ending before it starts), needs nothing. Earliest day first.
 */
export function coverageLeftFrom(
  end: RelationshipEnd,
  coverage: readonly { plan_id: string; effective_start: string | null; effective_end: string | null }[],
): { day: string; planIds: Set<string> }[] {
  const byDay = new Map<string, Set<string>>();
  for (const entry of coverage) {
    if (entry.effective_start === null) continue;
    if (entry.effective_end !== null && compareDates(entry.effective_end, end.lastDay) <= 0) continue;
    if (entry.effective_end !== null && compareDates(entry.effective_end, entry.effective_start) < 0) continue;
    const day = compareDates(entry.effective_start, end.firstDayOut) > 0 ? entry.effective_start : end.firstDayOut;
    byDay.set(day, (byDay.get(day) ?? new Set<string>()).add(entry.plan_id));
  }
  return [...byDay.entries()].sort(([a], [b]) => compareDates(a, b)).map(([day, planIds]) => ({ day, planIds }));
}

/** The source of the rule for a spouse-like relationship (for messages). */
export function spouseRuleSource(relationship: DependentRelationship): string {
  return ruleOf(relationship)?.source ?? PLAN_TERMS;
}
