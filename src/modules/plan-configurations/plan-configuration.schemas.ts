import { Type, type Static } from 'typebox';
import { IdSchema, MetadataResponseSchema, MetadataSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { MONEY_PATTERN } from '../../shared/money.ts';
import { COVERAGE_TIERS, type CoverageTier } from '../plans/coverage-tier.ts';
import { PERCENTAGE_PATTERN } from '../plans/pricing.ts';
import { EMPLOYMENT_STATUSES } from '../members/member.table.ts';
import { TAX_TREATMENTS } from '../payroll/payroll.table.ts';
import { AGE_OUT_RULES, COVERAGE_START_RULES, TERMINATION_POLICIES } from './eligibility.ts';

/** The ACA's 90-day limit on waiting periods (PHSA 2708, 42 U.S.C. 300gg-7; 29 CFR 2590.715-2708(b)). */
export const MAX_WAITING_PERIOD_DAYS = 90;
export const MAX_DEPENDENT_AGE_LIMIT = 99;

/** One coverage tier's rule: the employer pays `contribution` percent, kept between the two monthly thresholds. */
export const ContributionRuleSchema = Type.Object(
  {
    contribution: Type.String({
      pattern: PERCENTAGE_PATTERN,
      description: 'Percentage of the premium the employer pays: "0" to "100", at most 2 decimals',
    }),
    monthly_min_threshold: Type.String({ pattern: MONEY_PATTERN, description: 'Least the employer pays per month (money string)' }),
    monthly_max_threshold: Type.String({ pattern: MONEY_PATTERN, description: 'Most the employer pays per month (money string), not below the minimum' }),
  },
  { title: 'ContributionRule', additionalProperties: false },
);
export type ContributionRule = Static<typeof ContributionRuleSchema>;

/** ContributionStrategy as the contract has it: exactly the five coverage tiers, each required (docs/api.md "ContributionStrategy"). */
export const ContributionStrategySchema = Type.Object(
  Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, ContributionRuleSchema])) as Record<CoverageTier, typeof ContributionRuleSchema>,
  { title: 'ContributionStrategy', additionalProperties: false },
);
export type ContributionStrategy = Static<typeof ContributionStrategySchema>;

const waitingPeriodDays = { minimum: 0, maximum: MAX_WAITING_PERIOD_DAYS, description: 'Days from the hire date before coverage may start' };
const dependentAgeLimit = { minimum: 0, maximum: MAX_DEPENDENT_AGE_LIMIT, description: 'Age at which a child dependent ages out of coverage' };
const TerminationPolicySchema = StringEnum(TERMINATION_POLICIES, { description: "When coverage ends after the member's termination date" });
const AgeOutRuleSchema = StringEnum(AGE_OUT_RULES, { description: 'Which day a child reaching the age limit loses coverage' });
const RequiredSubclassSchema = Nullable(IdSchema);
const COVERAGE_START_RULE_DESCRIPTION =
  "When a new hire's coverage starts (new_hire and rehire enrollments): end_of_waiting_period (the day after the waiting period; the hire date without one), first_of_month_following_waiting_period (that day if a first of the month, else the next first; at most 60 days of waiting period, for the ACA 90-day limit), date_of_hire or first_of_month_following_hire (both without a waiting period). Under the two first-of-the-month rules a member may choose instead the first of a later month, up to 3 months later and within the plan year";
const CoverageStartRuleSchema = StringEnum(COVERAGE_START_RULES, { description: COVERAGE_START_RULE_DESCRIPTION });
const MinimumHoursSchema = Nullable(
  Type.Number({
    minimum: 0,
    maximum: 168,
    description: "Least scheduled hours a week (the member's hours_worked) to be eligible; null for any. ACA full-time is 30.",
  }),
);
const EligibleStatusesSchema = Nullable(
  Type.Array(StringEnum(EMPLOYMENT_STATUSES), {
    minItems: 1,
    maxItems: EMPLOYMENT_STATUSES.length,
    uniqueItems: true,
    description: "The members' employment_status values eligible; null for any",
  }),
);
const WaiverAllowedSchema = Type.Boolean({
  description:
    "Whether an admin's rules_override on an enrollment waives this configuration's waiting period (recorded on the enrollment with the admin's key and reason); false by default",
});
/** Payroll: the deduction's code and tax treatment (docs/decisions.md "Pay schedules and payroll deductions"). */
const DeductionCodeSchema = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_.-]+$',
    description: "The code payroll files this configuration's deduction under (letters, digits, _ . -); null for the plan's line of coverage (e.g. medical)",
  }),
);
const TaxTreatmentSchema = Nullable(
  StringEnum(TAX_TREATMENTS, {
    description:
      "How the deduction is taxed: pre_tax_125 (IRC §125), post_tax, or imputed (group-term life: the member's share after tax, and IRC §79 imputed income over $50,000); null for the line's default (health lines and FSAs/HSA pre_tax_125, life imputed, the others post_tax)",
  }),
);

const employmentFields = {
  coverage_start_rule: CoverageStartRuleSchema,
  minimum_hours_per_week: MinimumHoursSchema,
  eligible_employment_statuses: EligibleStatusesSchema,
  waiting_period_waiver_allowed: WaiverAllowedSchema,
};

export const PlanConfigurationSchema = Type.Object(
  {
    id: IdSchema,
    plan: IdSchema,
    waiting_period_days: Type.Integer(),
    termination_policy: TerminationPolicySchema,
    dependent_age_limit: Type.Integer(),
    dependent_age_out_rule: AgeOutRuleSchema,
    required_subclass: RequiredSubclassSchema,
    ...employmentFields,
    contribution_strategy: Nullable(ContributionStrategySchema),
    deduction_code: DeductionCodeSchema,
    tax_treatment: TaxTreatmentSchema,
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'PlanConfiguration' },
);
export type PlanConfigurationResponse = Static<typeof PlanConfigurationSchema>;

export const CreatePlanConfigurationBodySchema = Type.Object(
  {
    plan: IdSchema,
    waiting_period_days: Type.Optional(Type.Integer({ ...waitingPeriodDays, default: 0 })),
    termination_policy: Type.Optional(StringEnum(TERMINATION_POLICIES, { description: 'Defaults to termination_date', default: 'termination_date' })),
    dependent_age_limit: Type.Optional(Type.Integer({ ...dependentAgeLimit, default: 26 })),
    dependent_age_out_rule: Type.Optional(StringEnum(AGE_OUT_RULES, { description: 'Defaults to date_of_birth', default: 'date_of_birth' })),
    required_subclass: Type.Optional(RequiredSubclassSchema),
    // No schema default: the default depends on waiting_period_days (defaultCoverageStartRule), which the validator cannot see.
    coverage_start_rule: Type.Optional(
      StringEnum(COVERAGE_START_RULES, {
        description: `${COVERAGE_START_RULE_DESCRIPTION}. Defaults to first_of_month_following_waiting_period, or to end_of_waiting_period when waiting_period_days is over 60 (configurations created before this default keep the rule they have)`,
      }),
    ),
    minimum_hours_per_week: Type.Optional(MinimumHoursSchema),
    eligible_employment_statuses: Type.Optional(EligibleStatusesSchema),
    waiting_period_waiver_allowed: Type.Optional(WaiverAllowedSchema),
    deduction_code: Type.Optional(DeductionCodeSchema),
    tax_treatment: Type.Optional(TaxTreatmentSchema),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'CreatePlanConfigurationBody', additionalProperties: false },
);
export type CreatePlanConfigurationBody = Static<typeof CreatePlanConfigurationBodySchema>;

/** The plan is fixed; the contribution strategy is set through its own endpoint. */
export const UpdatePlanConfigurationBodySchema = Type.Object(
  {
    waiting_period_days: Type.Optional(Type.Integer(waitingPeriodDays)),
    termination_policy: Type.Optional(TerminationPolicySchema),
    dependent_age_limit: Type.Optional(Type.Integer(dependentAgeLimit)),
    dependent_age_out_rule: Type.Optional(AgeOutRuleSchema),
    required_subclass: Type.Optional(RequiredSubclassSchema),
    coverage_start_rule: Type.Optional(CoverageStartRuleSchema),
    minimum_hours_per_week: Type.Optional(MinimumHoursSchema),
    eligible_employment_statuses: Type.Optional(EligibleStatusesSchema),
    waiting_period_waiver_allowed: Type.Optional(WaiverAllowedSchema),
    deduction_code: Type.Optional(DeductionCodeSchema),
    tax_treatment: Type.Optional(TaxTreatmentSchema),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'UpdatePlanConfigurationBody', additionalProperties: false },
);
export type UpdatePlanConfigurationBody = Static<typeof UpdatePlanConfigurationBodySchema>;

export const ListPlanConfigurationsQuerySchema = Type.Object({ ...PageQuerySchema, plan: Type.Optional(IdSchema) }, { additionalProperties: false });
export type ListPlanConfigurationsQuery = Static<typeof ListPlanConfigurationsQuerySchema>;
