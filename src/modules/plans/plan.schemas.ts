import { PERCENTAGE_PATTERN } from './pricing.ts';
import { Type, type Static } from 'typebox';
import {
  DateSchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  MoneySchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { MONEY_PATTERN } from '../../shared/money.ts';
import { COVERAGE_TIERS, type CoverageTier } from './coverage-tier.ts';
import { AGE_RATING_DATES, LINES_OF_COVERAGE, PREMIUM_TYPES, RATE_BASES } from './plan.table.ts';

/** Oldest age a band may start at; one band per age from 0 gives the largest table. */
export const MAX_BAND_AGE = 120;

const PlanNameSchema = Type.String({ minLength: 1, maxLength: 255 });
const PlanTypeSchema = Type.String({ maxLength: 255, description: 'Free text such as hmo, ppo, epo, hdhp' });
const LineOfCoverageSchema = StringEnum(LINES_OF_COVERAGE);
const PremiumTypeSchema = StringEnum(PREMIUM_TYPES, {
  description: 'composite: one rate per coverage tier (composite_rates); age_banded: a rate per covered person by age (age_rates)',
});

/** The monthly premium of each of the five coverage tiers. */
export const CompositeRatesSchema = Type.Object(
  Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, MoneySchema])) as Record<CoverageTier, typeof MoneySchema>,
  { title: 'CompositeRates', additionalProperties: false, description: 'Monthly premium per coverage tier; all five tiers are required' },
);
export type CompositeRates = Static<typeof CompositeRatesSchema>;

export const AgeRateSchema = Type.Object(
  {
    age: Type.Integer({ minimum: 0, maximum: MAX_BAND_AGE, description: 'The band applies from this age up to the next band' }),
    amount: MoneySchema,
  },
  { title: 'AgeRate', additionalProperties: false },
);
export const AgeRatesSchema = Type.Array(AgeRateSchema, {
  minItems: 1,
  maxItems: MAX_BAND_AGE + 1,
  description: 'Monthly premium per covered person by age band; each age at most once. Anyone younger than every band pays the lowest band.',
});
export type AgeRates = Static<typeof AgeRatesSchema>;

const PreviousPlanSchema = Type.Union([IdSchema, Type.Null()], {
  description: 'The plan this one renews (the plan year before, same group and line of coverage), or null',
});
const NextPlanSchema = Type.Union([IdSchema, Type.Null()], {
  description: 'The plan that renews this one (the next plan year, starting the day after this one ends), or null',
});

const AcaChildRatingLimitSchema = Type.Boolean({
  description:
    'ACA small-group age rating (45 CFR 147.102(c)(3)(i)): an age_banded premium charges at most the three oldest covered children under 21; younger ones are covered free. Default false.',
});

const RateBasisSchema = StringEnum(RATE_BASES, {
  description:
    "What the rates are per. flat (default): a rate is the monthly premium. per_1000_volume (life, accidental_death, critical_illness): a rate is per $1,000 of volume in force. per_100_monthly_benefit (short_term_disability, long_term_disability): a rate is per $100 of monthly benefit in force. With a per-unit basis, composite charges the tier's rate on the election's whole volume; age_banded charges each covered person's band on that person's volume.",
});
const AgeRatingDateSchema = StringEnum(AGE_RATING_DATES, {
  description:
    "The date an age_banded rate reads each covered person's age on: the coverage start (default) or the plan year's start (effective_start), the usual age date of voluntary life.",
});

export const VolumeRulesSchema = Type.Object(
  {
    increment: Type.Optional(Nullable(MoneySchema)),
    minimum: Type.Optional(Nullable(MoneySchema)),
    maximum: Type.Optional(Nullable(MoneySchema)),
    spouse_max_percent: Type.Optional(
      Nullable(Type.String({ pattern: PERCENTAGE_PATTERN, description: "A spouse's volume as at most this percentage of the member's (often 50)" })),
    ),
    child_maximum: Type.Optional(Nullable(MoneySchema)),
    spouse_guaranteed_issue: Type.Optional(
      Nullable(
        Type.String({
          pattern: MONEY_PATTERN,
          description: "A spouse's guaranteed issue: a higher volume needs EOI. Null: the plan's guaranteed_issue_volume",
        }),
      ),
    ),
    child_guaranteed_issue: Type.Optional(
      Nullable(
        Type.String({ pattern: MONEY_PATTERN, description: "A child's guaranteed issue: a higher volume needs EOI. Null: the plan's guaranteed_issue_volume" }),
      ),
    ),
    late_entrant_eoi: Type.Optional(
      Type.Boolean({
        description:
          'A late entrant (electing this line outside their initial window, with no coverage on it the day before) needs EOI for any amount: nothing is in force until EOI is approved. Default false.',
      }),
    ),
  },
  {
    title: 'VolumeRules',
    additionalProperties: false,
    description:
      "Volume rules of a life or disability plan, checked on requested volumes at save_and_submit: a multiple of increment, between minimum and maximum (the member's), a spouse at most spouse_max_percent of the member's requested volume, a child at most child_maximum; and when EOI is needed (guaranteed issue per person type, late entrants). Omitted or null parts do not apply.",
  },
);
export type VolumeRules = Static<typeof VolumeRulesSchema>;
describeProperties(VolumeRulesSchema, {
  increment: 'Volumes must be a multiple of this amount; null for any amount',
  minimum: 'The smallest volume that may be elected; null for no minimum',
  maximum: 'The largest volume that may be elected; null for no maximum',
  child_maximum: 'The largest volume for a child; null for no child maximum',
});

export const PlanSchema = Type.Object(
  {
    id: IdSchema,
    group: IdSchema,
    carrier: IdSchema,
    employer: IdSchema,
    plan_name: Type.String(),
    plan_type: Nullable(Type.String()),
    line_of_coverage: LineOfCoverageSchema,
    effective_start: DateSchema,
    effective_end: DateSchema,
    premium_type: Nullable(PremiumTypeSchema),
    composite_rates: Nullable(CompositeRatesSchema),
    age_rates: Nullable(AgeRatesSchema),
    guaranteed_issue_volume: Nullable(MoneySchema),
    requires_primary_care_provider: Type.Boolean(),
    aca_child_rating_limit: AcaChildRatingLimitSchema,
    volume_rules: Nullable(VolumeRulesSchema),
    rate_basis: RateBasisSchema,
    age_rating_date: AgeRatingDateSchema,
    previous_plan: PreviousPlanSchema,
    next_plan: NextPlanSchema,
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'Plan' },
);
describeProperties(PlanSchema, {
  group: 'The carrier group the plan is sold under (group identifier)',
  carrier: 'The carrier of the plan (carrier identifier)',
  employer: 'The employer offering the plan (employer identifier)',
  plan_name: 'Name of the plan, as members see it',
  plan_type: "The carrier's plan type (e.g. PPO, HMO); null when not given",
  line_of_coverage: 'The line of coverage: medical, dental, vision, life, ...',
  effective_start: 'First day of the plan year',
  effective_end: 'Last day of the plan year',
  premium_type: 'How the plan is rated: composite (by coverage tier) or age banded; null for plans without a premium',
  composite_rates: 'Monthly rates by coverage tier, for composite plans; null otherwise',
  age_rates: 'Monthly rates by age, for age-banded plans; null otherwise',
  guaranteed_issue_volume: 'The coverage amount granted without evidence of insurability, a decimal string; null for lines without a volume',
  requires_primary_care_provider: 'Whether enrollees must name a primary care provider',
  volume_rules: 'The coverage amounts that may be elected (life and disability lines); null otherwise',
});
export type PlanResponse = Static<typeof PlanSchema>;

const writable = {
  plan_type: Type.Optional(Nullable(PlanTypeSchema)),
  premium_type: Type.Optional(Nullable(PremiumTypeSchema)),
  composite_rates: Type.Optional(Nullable(CompositeRatesSchema)),
  age_rates: Type.Optional(Nullable(AgeRatesSchema)),
  guaranteed_issue_volume: Type.Optional(Nullable(MoneySchema)),
  volume_rules: Type.Optional(Nullable(VolumeRulesSchema)),
  rate_basis: Type.Optional(RateBasisSchema),
  age_rating_date: Type.Optional(AgeRatingDateSchema),
  metadata: Type.Optional(MetadataSchema),
};

export const CreatePlanBodySchema = Type.Object(
  {
    group: IdSchema,
    plan_name: PlanNameSchema,
    line_of_coverage: LineOfCoverageSchema,
    effective_start: DateSchema,
    effective_end: DateSchema,
    requires_primary_care_provider: Type.Optional(Type.Boolean({ default: false })),
    aca_child_rating_limit: Type.Optional(AcaChildRatingLimitSchema),
    ...writable,
  },
  { title: 'CreatePlanBody', additionalProperties: false },
);
export type CreatePlanBody = Static<typeof CreatePlanBodySchema>;

/**
 * group and line_of_coverage are fixed: enrollments and waivers depend on them. previous_plan and next_plan link
 * the plan to the plan it renews and the plan that renews it (null unlinks); the other plan's side follows.
 */
export const UpdatePlanBodySchema = Type.Object(
  {
    plan_name: Type.Optional(PlanNameSchema),
    effective_start: Type.Optional(DateSchema),
    effective_end: Type.Optional(DateSchema),
    requires_primary_care_provider: Type.Optional(Type.Boolean()),
    aca_child_rating_limit: Type.Optional(AcaChildRatingLimitSchema),
    previous_plan: Type.Optional(PreviousPlanSchema),
    next_plan: Type.Optional(NextPlanSchema),
    ...writable,
  },
  { title: 'UpdatePlanBody', additionalProperties: false },
);
export type UpdatePlanBody = Static<typeof UpdatePlanBodySchema>;

/**
 * Next plan year's plan, made from this one: its dates, and its rates when they change; everything else is
 * copied (group, line, type, rates unless given, guaranteed issue unless given, primary care rule, metadata
 * merged with any given), and so are the plan's configurations with their contribution strategies.
 */
export const RenewPlanBodySchema = Type.Object(
  {
    effective_start: Type.Optional(Type.String({ format: 'date', description: 'Defaults to the day after the plan ends; a renewal starts on that day' })),
    effective_end: DateSchema,
    plan_name: Type.Optional(PlanNameSchema),
    premium_type: Type.Optional(Nullable(PremiumTypeSchema)),
    composite_rates: Type.Optional(Nullable(CompositeRatesSchema)),
    age_rates: Type.Optional(Nullable(AgeRatesSchema)),
    guaranteed_issue_volume: Type.Optional(Nullable(MoneySchema)),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'RenewPlanBody', additionalProperties: false },
);
export type RenewPlanBody = Static<typeof RenewPlanBodySchema>;

export const ListPlansQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    group: Type.Optional(IdSchema),
    employer: Type.Optional(IdSchema),
    line_of_coverage: Type.Optional(LineOfCoverageSchema),
  },
  { additionalProperties: false },
);
export type ListPlansQuery = Static<typeof ListPlansQuerySchema>;
