import type { Generated, Selectable } from 'kysely';

/** Lines of coverage of plans and waivers: a value set the contract leaves open (docs/decisions.md "Records and fields"). */
export const LINES_OF_COVERAGE = [
  'medical',
  'dental',
  'vision',
  'life',
  'accidental_death',
  'short_term_disability',
  'long_term_disability',
  'accident',
  'critical_illness',
  'cancer',
  'hospital_indemnity',
  'healthcare_fsa',
  'limited_purpose_fsa',
  'dependent_care_fsa',
  'hsa',
] as const;
export type LineOfCoverage = (typeof LINES_OF_COVERAGE)[number];

export const PREMIUM_TYPES = ['composite', 'age_banded'] as const;
export type PremiumType = (typeof PREMIUM_TYPES)[number];

/** What a rate is per: the premium itself, $1,000 of volume (life) or $100 of monthly benefit (disability). */
export const RATE_BASES = ['flat', 'per_1000_volume', 'per_100_monthly_benefit'] as const;
export type RateBasis = (typeof RATE_BASES)[number];

/** The date an age-banded rate reads a covered person's age on. */
export const AGE_RATING_DATES = ['coverage_start', 'plan_year_start'] as const;
export type AgeRatingDate = (typeof AGE_RATING_DATES)[number];

export interface PlanTable {
  id: string;
  provider_id: string;
  /** From the plan's group. */
  employer_id: string;
  group_id: string;
  plan_name: string;
  plan_type: string | null;
  line_of_coverage: LineOfCoverage;
  /** The plan year. */
  effective_start: string;
  effective_end: string;
  premium_type: PremiumType | null;
  /** JSON text: { tier: money string } for the five coverage tiers. */
  composite_rates: string | null;
  /** JSON text: [{ age, amount }]. */
  age_rates: string | null;
  guaranteed_issue_volume_cents: number | null;
  requires_primary_care_provider: boolean | number;
  /** Age-banded premiums charge at most the three oldest covered children under 21 (45 CFR 147.102(c)(3)(i)). */
  aca_child_rating_limit: Generated<boolean | number>;
  /** JSON text of the plan's VolumeRules (plan.schemas.ts), or null for none. */
  volume_rules: Generated<string | null>;
  rate_basis: Generated<RateBasis>;
  age_rating_date: Generated<AgeRatingDate>;
  /** The plan this one renews (last year's), and the plan that renews this one: each link is kept on both sides. */
  previous_plan_id: string | null;
  next_plan_id: string | null;
  metadata: string;
  created_at: string;
}

export type PlanRow = Selectable<PlanTable>;
