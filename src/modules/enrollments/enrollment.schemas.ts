import { payPeriodAmountsSchema } from '../payroll/pay-schedule.schemas.ts';
import { Type, type Static } from 'typebox';
import {
  describeProperties,
  DateSchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  MoneySchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../http/schemas.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { COVERAGE_WAIVER_REASONS, ENROLLMENT_REASONS } from './enrollment-rules.ts';
import { OTHER_COVERAGE_TYPES } from './life-events.ts';
import { PERCENTAGE_PATTERN } from '../plans/pricing.ts';
import { BENEFICIARY_DESIGNATIONS, ENROLLMENT_CANCELLATION_REASONS, ENROLLMENT_CATEGORIES, ENROLLMENT_STATUSES, EOI_STATUSES } from './enrollment.table.ts';

const PrimaryCareProviderInput = Type.Object(
  {
    full_name: Type.String({ minLength: 1, maxLength: 255 }),
    is_existing_patient: Type.Optional(Type.Boolean({ default: false })),
    provider_id_number: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  },
  { additionalProperties: false },
);
export type PrimaryCareProviderInput = Static<typeof PrimaryCareProviderInput>;

export const PrimaryCareProviderSchema = Type.Object(
  {
    id: IdSchema,
    full_name: Type.String(),
    is_existing_patient: Type.Boolean(),
    provider_id_number: Nullable(Type.String()),
  },
  { title: 'PrimaryCareProvider' },
);
describeProperties(PrimaryCareProviderSchema, {
  full_name: 'Full name of the primary care provider',
  is_existing_patient: 'Whether the person is already a patient of this provider',
  provider_id_number: "The provider's identification number with the carrier (e.g. NPI); null when unknown",
});
export type PrimaryCareProvider = Static<typeof PrimaryCareProviderSchema>;

const EnrolledDependentInput = Type.Object(
  {
    dependent: IdSchema,
    primary_care_provider: Type.Optional(Nullable(PrimaryCareProviderInput)),
    requested_volume: Type.Optional(Nullable(MoneySchema)),
  },
  { additionalProperties: false },
);

const BeneficiaryDesignationInput = Type.Object(
  {
    beneficiary: IdSchema,
    designation: StringEnum(BENEFICIARY_DESIGNATIONS),
    percentage: Type.String({
      pattern: PERCENTAGE_PATTERN,
      description: 'Share of the benefit: "0.01" to "100", at most 2 decimals; per designation the shares sum to 100',
    }),
  },
  { additionalProperties: false },
);
export type BeneficiaryDesignationInput = Static<typeof BeneficiaryDesignationInput>;

const EnrolledPlanInput = Type.Object(
  {
    plan: IdSchema,
    beneficiary_designations: Type.Optional(
      Type.Array(BeneficiaryDesignationInput, {
        maxItems: 20,
        description:
          "Life and accidental_death plans only: the member's beneficiaries who receive the benefit (primary; contingent when no primary survives). Replaced whole.",
      }),
    ),
    enrolled_dependents: Type.Optional(Type.Array(EnrolledDependentInput, { maxItems: 30 })),
    primary_care_provider: Type.Optional(Nullable(PrimaryCareProviderInput)),
    effective_start: Type.Optional(Nullable(DateSchema)),
    effective_end: Type.Optional(Nullable(DateSchema)),
    premium: Type.Optional(Nullable(MoneySchema)),
    employer_contribution: Type.Optional(Nullable(MoneySchema)),
    member_contribution: Type.Optional(Nullable(MoneySchema)),
    payroll_provider_external_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    requested_volume: Type.Optional(Nullable(MoneySchema)),
  },
  { additionalProperties: false },
);
export type EnrolledPlanInput = Static<typeof EnrolledPlanInput>;

const CoverageWaiverInput = Type.Object(
  {
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
    reason: StringEnum(COVERAGE_WAIVER_REASONS),
    member: Type.Optional(Nullable(IdSchema)),
    dependent: Type.Optional(Nullable(IdSchema)),
  },
  { additionalProperties: false },
);
export type CoverageWaiverInput = Static<typeof CoverageWaiverInput>;

/** An EOI decision on an enrolled plan or one of its dependents, named by id. */
const EoiDecision = Type.Object({ id: IdSchema, eoi_status: StringEnum(['approved', 'denied'] as const) }, { additionalProperties: false });
const EnrolledPlanEoiInput = Type.Object(
  {
    id: IdSchema,
    eoi_status: Type.Optional(StringEnum(['approved', 'denied'] as const)),
    enrolled_dependents: Type.Optional(Type.Array(EoiDecision, { maxItems: 30 })),
  },
  { additionalProperties: false },
);

const elections = {
  effective_start: Type.Optional(Nullable(DateSchema)),
  effective_end: Type.Optional(Nullable(DateSchema)),
  reason: Type.Optional(Nullable(StringEnum(ENROLLMENT_REASONS))),
  change_date: Type.Optional(Nullable(DateSchema)),
  qualifying_life_event_documents: Type.Optional(Type.Array(IdSchema, { maxItems: 20, uniqueItems: true })),
  enrolled_plans: Type.Optional(Type.Array(EnrolledPlanInput, { maxItems: 20 })),
  coverage_waivers: Type.Optional(Type.Array(CoverageWaiverInput, { maxItems: 20 })),
  metadata: Type.Optional(MetadataSchema),
  other_coverage: Type.Optional(
    Nullable(
      StringEnum(OTHER_COVERAGE_TYPES, {
        description:
          'The other coverage a lost_coverage, gain_coverage, dependent_lost_coverage or dependent_gained_coverage event is about: losing medicaid or chip, or becoming eligible for medicaid_chip_premium_assistance, opens 60 days instead of 30 (29 U.S.C. 1181(f)(3)).',
      }),
    ),
  ),
  medicare_entitled_dependent: Type.Optional(
    Nullable({
      ...IdSchema,
      description:
        "medicare_eligible only: the member's dependent whose own Medicare entitlement this records (they may drop that dependent's coverage; no COBRA event). Null or absent: the employee's own entitlement, a COBRA qualifying event for the spouse and children who lose coverage (29 U.S.C. 1163(4)).",
    }),
  ),
  rules_override: Type.Optional(
    Nullable(
      Type.Object(
        {
          reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Why the life event rules do not apply to this enrollment (kept on the record).' }),
        },
        {
          additionalProperties: false,
          description:
            'Admin API keys only: submit this qle enrollment past the life event rules (window, who may be added or dropped, plan changes, coverage start; see docs/decisions.md). null removes it. Every other rule still applies.',
        },
      ),
    ),
  ),
};

export const CreateEnrollmentBodySchema = Type.Object(
  { member: IdSchema, category: StringEnum(ENROLLMENT_CATEGORIES), ...elections },
  { title: 'CreateEnrollmentBody', additionalProperties: false },
);
export type CreateEnrollmentBody = Static<typeof CreateEnrollmentBodySchema>;

/**
 * While not_started, any election may change (lists are replaced whole). While not_started, pending, approved
 * or synced, `enrolled_plans` may instead carry EOI decisions only: items naming existing enrolled plans by
 * `id` (after approval an approved EOI raises the volume from the decision date; docs/decisions.md, EOI).
 */
export const UpdateEnrollmentBodySchema = Type.Object(
  {
    ...elections,
    enrolled_plans: Type.Optional(
      Type.Union([Type.Array(EnrolledPlanInput, { maxItems: 20 }), Type.Array(EnrolledPlanEoiInput, { minItems: 1, maxItems: 20 })]),
    ),
  },
  { title: 'UpdateEnrollmentBody', additionalProperties: false },
);
export type UpdateEnrollmentBody = Static<typeof UpdateEnrollmentBodySchema>;

/** A PATCH body of EOI decisions: `enrolled_plans` names enrolled plans by `id`, and nothing else may change but metadata. */
export type EoiDecisionBody = Omit<UpdateEnrollmentBody, 'enrolled_plans'> & { enrolled_plans: Static<typeof EnrolledPlanEoiInput>[] };

/**
 * Whether a PATCH body records EOI decisions rather than editing the enrollment: it has `enrolled_plans`, at
 * least one, and every one names an enrolled plan by `id` (docs/decisions.md "Enrollments", EOI). Any other body
 * (also one without `enrolled_plans`, or with an empty list) is an edit of a not_started enrollment. Decisions
 * combined with other fields are refused by the decisions, not read as an edit.
 */
export function isEoiDecisionBody(body: UpdateEnrollmentBody): body is EoiDecisionBody {
  const plans = body.enrolled_plans;
  return plans !== undefined && plans.length > 0 && plans.every((plan) => 'id' in plan);
}

const volumeFields = {
  volume: Nullable(MoneySchema),
  requested_volume: Nullable(MoneySchema),
  volume_approved_at: Nullable(TimestampSchema),
  eoi_dismissed_at: Nullable(TimestampSchema),
  eoi_status: StringEnum(EOI_STATUSES),
};

export const EnrolledDependentSchema = Type.Object(
  {
    id: IdSchema,
    plan: IdSchema,
    dependent: IdSchema,
    primary_care_provider: Nullable(PrimaryCareProviderSchema),
    ...volumeFields,
  },
  { title: 'EnrolledDependent' },
);
describeProperties(EnrolledDependentSchema, {
  plan: 'The plan this dependent is enrolled in (plan identifier)',
  dependent: 'The dependent covered (dependent identifier)',
  primary_care_provider: "The dependent's primary care provider, where the plan requires one; null otherwise",
  volume: 'The approved coverage amount (life and disability lines), a decimal string; null for lines without a volume',
  requested_volume: 'The coverage amount asked for, a decimal string; above the guaranteed issue amount it waits for evidence of insurability',
  volume_approved_at: 'When the requested volume was approved; null until then',
  eoi_dismissed_at: 'When the evidence of insurability request was dismissed (the volume stays at the guaranteed issue amount); null otherwise',
  eoi_status: 'Evidence of insurability: whether the requested volume needs it and where it stands',
});

export const EnrolledPlanSchema = Type.Object(
  {
    id: IdSchema,
    enrollment: IdSchema,
    plan: IdSchema,
    enrolled_dependents: Type.Array(EnrolledDependentSchema),
    primary_care_provider: Nullable(PrimaryCareProviderSchema),
    effective_start: Nullable(DateSchema),
    effective_end: Nullable(DateSchema),
    premium: Nullable(MoneySchema),
    employer_contribution: Nullable(MoneySchema),
    member_contribution: Nullable(MoneySchema),
    payroll_provider_external_id: Nullable(Type.String()),
    pay_period: payPeriodAmountsSchema(),
    ...volumeFields,
    beneficiary_designations: Type.Array(
      Type.Object({
        id: IdSchema,
        beneficiary: IdSchema,
        designation: StringEnum(BENEFICIARY_DESIGNATIONS, { description: 'primary or contingent (paid when no primary survives)' }),
        percentage: Type.String({ description: 'Share of the benefit: "0.01" to "100"; per designation the shares sum to 100' }),
      }),
    ),
    primary_beneficiary_missing: Type.Boolean({
      description: 'Read-only. True for a life or accidental_death plan without a primary beneficiary designation: the benefit would go to the estate.',
    }),
  },
  { title: 'EnrolledPlan' },
);
describeProperties(EnrolledPlanSchema, {
  enrollment: 'The enrollment this election belongs to (enrollment identifier)',
  plan: 'The plan elected (plan identifier)',
  enrolled_dependents: 'The dependents covered under this plan',
  primary_care_provider: "The member's primary care provider, where the plan requires one; null otherwise",
  effective_start: 'First day of coverage under this plan; null until known',
  effective_end: 'Last day of coverage under this plan; null when open-ended',
  premium: 'Monthly premium of this election, a decimal string, priced from the plan rates; null until priced',
  employer_contribution: "The employer's share of the monthly premium, from the plan configuration's contribution strategy",
  member_contribution: "The member's share of the monthly premium (premium minus the employer contribution)",
  payroll_provider_external_id: "This election's id in the payroll system (for deductions); null when not set",
  volume: 'The approved coverage amount (life and disability lines), a decimal string; null for lines without a volume',
  requested_volume: 'The coverage amount asked for, a decimal string; above the guaranteed issue amount it waits for evidence of insurability',
  volume_approved_at: 'When the requested volume was approved; null until then',
  eoi_dismissed_at: 'When the evidence of insurability request was dismissed (the volume stays at the guaranteed issue amount); null otherwise',
  eoi_status: 'Evidence of insurability: whether the requested volume needs it and where it stands',
  beneficiary_designations: 'Who receives the benefit of a life or accidental death plan: each beneficiary, primary or contingent, and their percentage',
});

export const CoverageWaiverSchema = Type.Object(
  {
    id: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
    reason: StringEnum(COVERAGE_WAIVER_REASONS),
    member: Nullable(IdSchema),
    dependent: Nullable(IdSchema),
  },
  { title: 'CoverageWaiver' },
);
describeProperties(CoverageWaiverSchema, {
  line_of_coverage: 'The line of coverage declined',
  reason: 'Why coverage was declined',
  member: 'The member who declines (member identifier); null when the waiver is for a dependent',
  dependent: 'The dependent who declines (dependent identifier); null when the waiver is for the member',
});

export const EnrollmentSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    employer: IdSchema,
    category: StringEnum(ENROLLMENT_CATEGORIES),
    status: StringEnum(ENROLLMENT_STATUSES),
    effective_start: Nullable(DateSchema),
    effective_end: Nullable(DateSchema),
    reason: Nullable(StringEnum(ENROLLMENT_REASONS)),
    change_date: Nullable(DateSchema),
    qualifying_life_event_documents: Type.Array(IdSchema),
    enrolled_plans: Type.Array(EnrolledPlanSchema),
    coverage_waivers: Type.Array(CoverageWaiverSchema),
    metadata: MetadataResponseSchema,
    submitted_at: Nullable(TimestampSchema),
    approved_at: Nullable(TimestampSchema),
    open_enrollment_window: Nullable(IdSchema),
    cancellation_reason: Nullable(
      StringEnum(ENROLLMENT_CANCELLATION_REASONS, {
        description:
          "Read-only. Why the service cancelled the enrollment (member_terminated: the member's termination ended coverage before it would start); null when a client cancelled it or it is not cancelled.",
      }),
    ),
    other_coverage: Nullable(StringEnum(OTHER_COVERAGE_TYPES)),
    medicare_entitled_dependent: Nullable(IdSchema),
    rules_override: Nullable(
      Type.Object(
        { reason: Type.String({ description: 'Why the admin overrode the rules' }), api_key: IdSchema, created_at: TimestampSchema },
        { description: 'Read-only. The admin override of the life event rules: why, the admin API key that set it, when; null without one.' },
      ),
    ),
    created_at: TimestampSchema,
  },
  { title: 'Enrollment' },
);
describeProperties(EnrollmentSchema, {
  member: 'The member enrolling (member identifier)',
  employer: "The member's employer (employer identifier)",
  category: 'Why the enrollment exists: a qualifying life event (qle), open enrollment, or a carrier sync',
  status: 'Lifecycle: not_started → pending (submitted) → approved → synced (every carrier told) or failed; cancelled',
  effective_start: 'First day of the coverage this enrollment elects; null until known',
  effective_end: 'Last day of that coverage; null when open-ended',
  reason: 'The qualifying life event or other cause of the change; null when not given',
  change_date: 'The date of the life event (birth, marriage, loss of coverage, ...); null when not given',
  qualifying_life_event_documents: 'Documents proving the life event (document identifiers)',
  enrolled_plans: 'The plans elected, each with its dependents and price',
  coverage_waivers: 'The lines of coverage declined, by the member or a dependent',
  submitted_at: 'When the enrollment was submitted (save_and_submit); null before',
  approved_at: 'When the enrollment was approved; null before',
  open_enrollment_window: 'The open enrollment window this enrollment belongs to (window identifier); null outside one',
  other_coverage: 'The other coverage the life event concerns (lost or gained); Medicaid or CHIP gives a 60-day window; null when not given',
  medicare_entitled_dependent: 'The dependent entitled to Medicare (dependent identifier); null when none',
});
export type EnrollmentResponse = Static<typeof EnrollmentSchema>;

export const ListEnrollmentsQuerySchema = Type.Object(
  { ...PageQuerySchema, member: Type.Optional(IdSchema), employer: Type.Optional(IdSchema), status: Type.Optional(StringEnum(ENROLLMENT_STATUSES)) },
  { additionalProperties: false },
);
