/**
 * Passive open enrollment (API.md section 9): what of a member's coverage the day before the renewal date is
 * carried into the new period. Each line moves to the plan the window offers for it — the same plan while it
 * still runs, else the plan that renews it — with the dependents still eligible on the renewal date and the
 * volume the new plan issues without evidence. Pure functions over dates as 'YYYY-MM-DD' strings.
 */
import { compareDates } from '../../shared/dates.ts';
import { isChildEligibleOn, type AgeOutRule } from '../plan-configurations/eligibility.ts';
import { isChildLike, type DependentRelationship } from '../plans/coverage-tier.ts';

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
}

/**
 * Whether a covered dependent comes along: spouse-like dependents always; a child while still within the age
 * limit of the member's configuration of the new plan on the renewal date (a child with a disability certified through the renewal date stays,
 * as at submission). Without a configuration the member is not eligible for the plan at all and submission
 * refuses the line; the dependents are kept for it to say so.
 */
export function isDependentCarried(
  dependent: DependentFacts,
  configuration: { dependent_age_limit: number; dependent_age_out_rule: AgeOutRule } | undefined,
  renewalDate: string,
): boolean {
  if (!isChildLike(dependent.relationship) || configuration === undefined) return true;
  return isChildEligibleOn(
    dependent.dob,
    configuration.dependent_age_limit,
    configuration.dependent_age_out_rule,
    renewalDate,
    dependent.disabilityCertifiedThrough,
  );
}

/**
 * The volume asked for in the new period: the volume the member is covered for (not an amount once requested
 * and never approved), at most the new plan's guaranteed-issue volume. Nobody gives evidence of insurability
 * in a passive enrollment, so more than the guaranteed issue would never be approved.
 */
export function carriedVolumeCents(volumeCents: number | null, guaranteedIssueCents: number | null): number | null {
  if (volumeCents === null || guaranteedIssueCents === null) return volumeCents;
  return Math.min(volumeCents, guaranteedIssueCents);
}
