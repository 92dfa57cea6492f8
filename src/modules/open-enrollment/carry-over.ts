/**
 * Passive open enrollment (docs/decisions.md "Open enrollment windows", `complete` of a passive window): what of a
 * member's coverage the day before the renewal date is carried into the new period. Each line moves to the plan the
 * window offers for it — the same plan while it still runs, else the plan that renews it — with the dependents still
 * eligible on the renewal date and volumes cut to fit the new plan's limits. Pure functions over dates as
 * 'YYYY-MM-DD' strings and cents.
 */
import { compareDates } from '../../shared/dates.ts';
import { toCentsOrNull } from '../../shared/money.ts';
import { guaranteedIssueCents, spouseMaximumCents } from '../enrollments/volume-decisions.ts';
import { isChildEligibleOn, type AgeOutRule } from '../plan-configurations/eligibility.ts';
import { isChildLike, type DependentRelationship } from '../plans/coverage-tier.ts';
import { isSpouseEligibleOn } from '../dependents/spouse-rules.ts';
import type { VolumeRules } from '../plans/plan.schemas.ts';

export interface OfferedPlan {
  id: string;
  effective_start: string;
  effective_end: string;
  /** The plan this one renews, if any. */
  previous_plan_id: string | null;
}

function runsOn(plan: OfferedPlan, date: string): boolean {
  return compareDates(plan.effective_start, date) <= 0 && compareDates(plan.effective_end, date) >= 0;
}

/**
 * The offered plan a line held on `planId` is carried to on `renewalDate`: that plan itself while it still
 * runs on that day, else its successor (the plan whose previous_plan it is) when that runs then; `undefined`
 * when the window offers neither, so that the line is not carried and its coverage ends with its plan.
 */
export function carriedPlan<T extends OfferedPlan>(planId: string, offered: readonly T[], renewalDate: string): T | undefined {
  const running = offered.filter((plan) => runsOn(plan, renewalDate));
  return running.find((plan) => plan.id === planId) ?? running.find((plan) => plan.previous_plan_id === planId);
}

export interface DependentFacts {
  relationship: DependentRelationship;
  dob: string;
  /** The last day a current disability certification counts (disabilityCertifiedThrough), or null. */
  disabilityCertifiedThrough: string | null;
  /** A spouse-like dependent's divorce or dissolution date (the last day of the relationship), or null. */
  relationshipEndDate: string | null;
}

/**
 * Whether a covered dependent comes along: a spouse-like dependent while still the member's spouse or partner on
 * the renewal date (not past a relationship_end_date, and an ex-spouse only with one: dependents/spouse-rules.ts,
 * as at submission); a child while still within the age
 * limit of the member's configuration of the new plan on the renewal date (a child with a disability certified through the renewal date stays,
 * as at submission). Without a configuration the member is not eligible for the plan at all and submission
 * refuses the line; the dependents are kept for it to say so.
 */
export function isDependentCarried(
  dependent: DependentFacts,
  configuration: { dependent_age_limit: number; dependent_age_out_rule: AgeOutRule } | undefined,
  renewalDate: string,
): boolean {
  const spouseEligible = isSpouseEligibleOn(dependent.relationship, dependent.relationshipEndDate, renewalDate);
  if (spouseEligible !== undefined) return spouseEligible;
  if (!isChildLike(dependent.relationship) || configuration === undefined) return true;
  return isChildEligibleOn(
    dependent.dob,
    configuration.dependent_age_limit,
    configuration.dependent_age_out_rule,
    renewalDate,
    dependent.disabilityCertifiedThrough,
  );
}

/** What of the new plan limits a carried volume. */
export interface VolumeLimits {
  guaranteedIssueCents: number | null;
  rules: VolumeRules | null;
}

export type CoveredPerson = 'member' | 'spouse' | 'child';

interface VolumeCap {
  person: CoveredPerson;
  /** The most the person may be carried with, in cents, or null when the plan sets no such limit. */
  cents: (limits: VolumeLimits, memberCarriedCents: number | null) => number | null;
}

/**
 * The new plan's limits on a carried volume, per person (decisions.md "Volume rules" and "Guaranteed issue per
 * person type"), the lowest applying. The guaranteed issue because nobody gives evidence of insurability in a
 * passive enrollment, so more would never be approved; the rest because submission refuses more.
 */
const VOLUME_CAPS: readonly VolumeCap[] = [
  { person: 'member', cents: ({ guaranteedIssueCents: plan, rules }) => guaranteedIssueCents(plan, rules, 'member') },
  { person: 'member', cents: ({ rules }) => toCentsOrNull(rules?.maximum) },
  { person: 'spouse', cents: ({ guaranteedIssueCents: plan, rules }) => guaranteedIssueCents(plan, rules, 'spouse') },
  // spouse_max_percent of the member's volume as carried, the member's requested volume of the new enrollment.
  { person: 'spouse', cents: ({ rules }, member) => (rules === null ? null : spouseMaximumCents(rules, member)) },
  { person: 'child', cents: ({ guaranteedIssueCents: plan, rules }) => guaranteedIssueCents(plan, rules, 'child') },
  { person: 'child', cents: ({ rules }) => toCentsOrNull(rules?.child_maximum) },
];

/** A volume rounded down to a multiple of the plan's increment (unchanged without one). */
export function roundedDownToIncrement(volumeCents: number, rules: VolumeRules | null): number {
  const increment = toCentsOrNull(rules?.increment);
  return increment === null || increment <= 0 ? volumeCents : volumeCents - (volumeCents % increment);
}

/**
 * The volume a person is carried with: the volume they are covered for (not an amount once requested and never
 * approved), lowered to the lowest of the new plan's limits for them and then to a multiple of its increment.
 * Never more than they had: a passive enrollment buys nothing. A member's volume below the new `minimum` is
 * left as cut (raising it would buy more), so that submission refuses it and the member stays incomplete.
 */
export function carriedVolumeCents(volumeCents: number | null, person: CoveredPerson, limits: VolumeLimits, memberCarriedCents: number | null): number | null {
  if (volumeCents === null) return null;
  const caps = VOLUME_CAPS.filter((cap) => cap.person === person).flatMap((cap) => cap.cents(limits, memberCarriedCents) ?? []);
  return roundedDownToIncrement(Math.min(volumeCents, ...caps), limits.rules);
}

/** The volumes of one carried line: the member's first, since a spouse's limit is a share of it. */
export function carriedVolumes(
  limits: VolumeLimits,
  memberCents: number | null,
  dependents: readonly { relationship: DependentRelationship; volumeCents: number | null }[],
): { member: number | null; dependents: (number | null)[] } {
  const member = carriedVolumeCents(memberCents, 'member', limits, null);
  return {
    member,
    dependents: dependents.map((dependent) =>
      carriedVolumeCents(dependent.volumeCents, isChildLike(dependent.relationship) ? 'child' : 'spouse', limits, member),
    ),
  };
}
