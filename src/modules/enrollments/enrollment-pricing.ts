/**
 * The price of one election (docs/decisions.md "Enrollments", Pricing and Rate basis): the tier from the covered
 * dependents, the premium from the plan's rates (ages on the plan's age rating date; per unit of volume in force when
 * the plan's rate basis says so), the employer share from the member's plan configuration.
 */
import { ageOn, compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import { toCents } from '../../shared/money.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import { selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { parseContributionStrategy } from '../plan-configurations/plan-configuration.service.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { coverageTier, isChildLike } from '../plans/coverage-tier.ts';
import { toPlanRates } from '../plans/plan.service.ts';
import type { PlanRow } from '../plans/plan.table.ts';
import { chargedAges, contributionSplit, premiumCents, volumePremiumCents } from '../plans/pricing.ts';
import type { EnrolledPlanInput } from './enrollment.schemas.ts';

/** Age in whole years on `date`; 0 for someone not yet born then (priced as a newborn). */
function ageOrZero(dob: string, date: string): number {
  return compareDates(dob, date) > 0 ? 0 : ageOn(dob, date);
}

/**
 * Plans without rates take the client's figures as given; for plans with rates a figure sent is an input
 * error at `path` (they are computed).
 */
export function electionPrice(
  plan: PlanRow,
  configurations: readonly PlanConfigurationRow[],
  subclassIds: readonly string[],
  member: MemberRow,
  covered: readonly DependentRow[],
  coverageStart: string,
  volumes: { member: number | null; dependents: ReadonlyMap<string, number | null> },
  input: EnrolledPlanInput,
  path: (string | number)[],
  errors: InputError[],
): { premium: number | null; employer: number | null; member: number | null } {
  const tier = coverageTier(covered.map((dependent) => dependent.member_relationship));
  const ageDate = plan.age_rating_date === 'plan_year_start' ? plan.effective_start : coverageStart;
  const ageOf = (dependent: DependentRow) => ageOrZero(dependent.dob, ageDate);
  const premium =
    plan.rate_basis === 'flat'
      ? premiumCents(
          toPlanRates(plan),
          tier,
          chargedAges(
            [ageOrZero(member.dob, ageDate), ...covered.filter((dependent) => !isChildLike(dependent.member_relationship)).map(ageOf)],
            covered.filter((dependent) => isChildLike(dependent.member_relationship)).map(ageOf),
            Boolean(plan.aca_child_rating_limit),
          ),
        )
      : volumePremiumCents(toPlanRates(plan), plan.rate_basis, tier, [
          { age: ageOrZero(member.dob, ageDate), volumeCents: volumes.member },
          ...covered.map((dependent) => ({ age: ageOf(dependent), volumeCents: volumes.dependents.get(dependent.id) ?? null })),
        ]);
  if (premium === undefined) {
    // No rates on the plan: the client's figures, as given.
    return {
      premium: input.premium ? toCents(input.premium) : null,
      employer: input.employer_contribution ? toCents(input.employer_contribution) : null,
      member: input.member_contribution ? toCents(input.member_contribution) : null,
    };
  }
  for (const field of ['premium', 'employer_contribution', 'member_contribution'] as const) {
    if (input[field] !== undefined && input[field] !== null) {
      errors.push(inputError([...path, field], "The plan has rates: this figure is computed from them and the member's plan configuration."));
    }
  }
  const configuration = selectPlanConfiguration(subclassIds, configurations);
  const rule = parseContributionStrategy(configuration?.contribution_strategy ?? null)?.[tier];
  // Without a contribution strategy the employer pays nothing and the member the whole premium.
  const split = rule ? contributionSplit(premium, rule) : { employerCents: 0, memberCents: premium };
  return { premium, employer: split.employerCents, member: split.memberCents };
}
