/**
 * Premiums and the employer/member split of them (docs/decisions.md "Enrollments", Pricing). Money is integer cents
 * throughout; the percentage is read as integer basis points, so no step uses floating point.
 */
import { toCents } from '../../shared/money.ts';
import type { CoverageTier } from './coverage-tier.ts';
import type { RateBasis } from './plan.table.ts';

export interface PlanRates {
  premium_type: 'composite' | 'age_banded' | null;
  composite_rates: Partial<Record<CoverageTier, string>> | null;
  age_rates: { age: number; amount: string }[] | null;
}

/**
 * The monthly premium for a tier, or `undefined` when the plan carries no rate for it (callers then accept the
 * client's values). `coveredAges` holds the age of every covered person, the member included; only age-banded
 * plans read it. Throws RangeError on a malformed rate or age.
 */
export function premiumCents(rates: PlanRates, tier: CoverageTier, coveredAges: readonly number[]): number | undefined {
  switch (rates.premium_type) {
    case 'composite': {
      const rate = rates.composite_rates?.[tier];
      return rate === undefined ? undefined : toCents(rate);
    }
    case 'age_banded':
      return ageBandedPremiumCents(rates.age_rates ?? [], coveredAges);
    case null:
      return undefined;
  }
}

function ageBandedPremiumCents(bands: readonly { age: number; amount: string }[], coveredAges: readonly number[]): number | undefined {
  if (bands.length === 0) return undefined;
  if (coveredAges.length === 0) throw new RangeError('coveredAges must include at least the member');
  let total = 0;
  for (const age of coveredAges) {
    if (!Number.isSafeInteger(age) || age < 0) throw new RangeError(`not an age: ${age}`);
    total += toCents(bandFor(bands, age).amount);
  }
  if (!Number.isSafeInteger(total)) throw new RangeError(`premium too large: ${total} cents`);
  return total;
}

/**
 * ACA small-group age rating, 45 CFR 147.102(c)(3)(i): with respect to family members under 21, the premiums of
 * no more than the three oldest covered children under 21 are taken into account.
 */
export const ACA_CHARGED_CHILDREN_UNDER_21 = 3;
const ACA_CHILD_AGE_LIMIT = 21;

/**
 * The ages an age-banded premium charges: the member and every adult as given; children under 21 only the
 * three oldest when the plan applies the ACA rule (`limitChildren`).
 */
export function chargedAges(adultAges: readonly number[], childAges: readonly number[], limitChildren: boolean): number[] {
  if (!limitChildren) return [...adultAges, ...childAges];
  const under21 = childAges.filter((age) => age < ACA_CHILD_AGE_LIMIT).sort((a, b) => b - a);
  return [...adultAges, ...childAges.filter((age) => age >= ACA_CHILD_AGE_LIMIT), ...under21.slice(0, ACA_CHARGED_CHILDREN_UNDER_21)];
}

/** Cents of volume in one rated unit: $1,000 of life volume, $100 of monthly disability benefit. */
const UNIT_CENTS: Record<Exclude<RateBasis, 'flat'>, bigint> = { per_1000_volume: 100_000n, per_100_monthly_benefit: 10_000n };

/**
 * The monthly premium of a plan rated per unit of volume (`basis` other than flat), or `undefined` when the
 * plan carries no rate for the tier. Each covered person is charged on their own volume in force (a person
 * without one is not charged): composite at the tier's rate, age_banded at the band of the person's age.
 * The sum is rounded half-up to the cent once, in exact integers.
 */
export function volumePremiumCents(
  rates: PlanRates,
  basis: Exclude<RateBasis, 'flat'>,
  tier: CoverageTier,
  persons: readonly { age: number; volumeCents: number | null }[],
): number | undefined {
  const rateOf = (age: number): number | undefined => {
    switch (rates.premium_type) {
      case 'composite': {
        const rate = rates.composite_rates?.[tier];
        return rate === undefined ? undefined : toCents(rate);
      }
      case 'age_banded':
        return rates.age_rates && rates.age_rates.length > 0 ? toCents(bandFor(rates.age_rates, age).amount) : undefined;
      case null:
        return undefined;
    }
  };
  if (rateOf(0) === undefined) return undefined;
  let total = 0n;
  for (const { age, volumeCents } of persons) {
    if (!Number.isSafeInteger(age) || age < 0) throw new RangeError(`not an age: ${age}`);
    if (volumeCents === null) continue;
    if (!Number.isSafeInteger(volumeCents) || volumeCents < 0) throw new RangeError(`not a volume in cents: ${volumeCents}`);
    total += BigInt(rateOf(age)!) * BigInt(volumeCents);
  }
  const unit = UNIT_CENTS[basis];
  const premium = Number((total + unit / 2n) / unit);
  if (!Number.isSafeInteger(premium)) throw new RangeError(`premium too large: ${premium} cents`);
  return premium;
}

/** The band with the greatest `age` not above the person's age; someone younger than every band gets the lowest. */
function bandFor<T extends { age: number }>(bands: readonly T[], age: number): T {
  let applicable: T | undefined;
  let lowest: T | undefined;
  // Strict comparisons: with duplicate ages the first band listed wins.
  for (const band of bands) {
    if (band.age <= age && (applicable === undefined || band.age > applicable.age)) applicable = band;
    if (lowest === undefined || band.age < lowest.age) lowest = band;
  }
  const band = applicable ?? lowest;
  if (band === undefined) throw new RangeError('no age bands');
  return band;
}

/** One tier's rule of a ContributionStrategy (docs/api.md "ContributionRule"): a percentage and two money thresholds. */
export interface ContributionRule {
  contribution: string;
  monthly_min_threshold: string;
  monthly_max_threshold: string;
}

/** "0" to "100" with at most two decimals; no sign, exponent or leading zero. */
export const PERCENTAGE_PATTERN = '^(100(\\.0{1,2})?|[1-9]?[0-9](\\.[0-9]{1,2})?)$';
const percentageRegExp = new RegExp(PERCENTAGE_PATTERN);

export function isPercentage(value: string): boolean {
  return percentageRegExp.test(value);
}

/** "33.33" -> 3333. */
export function toBasisPoints(percentage: string): number {
  if (!percentageRegExp.test(percentage)) throw new RangeError(`not a percentage from 0 to 100: ${percentage}`);
  const [whole = '0', fraction = ''] = percentage.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/**
 * The employer's and the member's share of a premium. The employer pays `contribution` percent, rounded
 * half-up to the cent, then raised to the minimum and lowered to the maximum threshold (the maximum wins when
 * they cross), and never more than the premium; the member pays the rest.
 */
export function contributionSplit(premiumCents: number, rule: ContributionRule): { employerCents: number; memberCents: number } {
  if (!Number.isSafeInteger(premiumCents) || premiumCents < 0) throw new RangeError(`not a premium in cents: ${premiumCents}`);
  const basisPoints = toBasisPoints(rule.contribution);
  const minimumCents = toCents(rule.monthly_min_threshold);
  const maximumCents = toCents(rule.monthly_max_threshold);
  // BigInt keeps premium * basis points exact above Number.MAX_SAFE_INTEGER (premiums up to 999999999999.99).
  const percentageShare = Number((BigInt(premiumCents) * BigInt(basisPoints) + 5000n) / 10000n);
  const thresholded = Math.min(Math.max(percentageShare, minimumCents), maximumCents);
  const employerCents = Math.min(Math.max(thresholded, 0), premiumCents);
  return { employerCents, memberCents: premiumCents - employerCents };
}

/** 3333 -> "33.33". */
export function fromBasisPoints(basisPoints: number): string {
  return `${Math.trunc(basisPoints / 100)}.${String(basisPoints % 100).padStart(2, '0')}`;
}
