import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
import { CONNECTION_METHODS } from '../groups/group.table.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { BENEFIT_CHANGE_STATUSES, CHANGE_KINDS, DELIVERY_STATES } from './benefit-change.table.ts';

export const MEMO_MAX_LENGTH = 2000;
export const ASSIGNEE_MAX_LENGTH = 255;

/**
 * The contract's BenefitChange, plus the enrollment, line, coverage dates and hand-off state an integrator needs to
 * act on it (docs/decisions.md "Benefit changes and carriers").
 */
export const BenefitChangeSchema = Type.Object(
  {
    id: IdSchema,
    enrollment: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
    status: StringEnum(BENEFIT_CHANGE_STATUSES, { description: 'new, removed, no_change or change' }),
    changes: Type.Array(StringEnum(CHANGE_KINDS), { description: 'What differs, for a change; empty otherwise' }),
    previous_enrollment_plan: Nullable(IdSchema),
    next_enrollment_plan: Nullable(IdSchema),
    coverage_start: Type.Union([DateSchema, Type.Null()], {
      description: 'First day of the coverage the carrier is told about: the new coverage, or for removed the coverage that ends (read-only)',
    }),
    coverage_end: Type.Union([DateSchema, Type.Null()], {
      description: "Last day of that coverage: the new coverage's end, or for removed the day it ends (read-only)",
    }),
    connection_method: StringEnum(CONNECTION_METHODS, { description: "How it reaches the carrier: the plan group's connection at approval" }),
    memo: Nullable(Type.String()),
    assignee: Nullable(Type.String()),
    completed_at: Nullable(TimestampSchema),
    needs_manual_completion: Type.Boolean({ description: 'True for manual connections: a person completes it with PATCH' }),
    delivery_state: StringEnum(DELIVERY_STATES, {
      description:
        'manual (waiting for a person), queued/sent (carrier API), awaiting_file (834 file, also after a 999/TA1 rejected the file that carried it), completed, rejected (refused by the carrier)',
    }),
    created_at: TimestampSchema,
  },
  { title: 'BenefitChange' },
);
describeProperties(BenefitChangeSchema, {
  enrollment: 'The approved enrollment that caused the change (enrollment identifier)',
  line_of_coverage: 'The line of coverage the change is about',
  previous_enrollment_plan: 'The enrolled plan before the change (enrolled plan identifier); null for new (read-only)',
  next_enrollment_plan: 'The enrolled plan after the change (enrolled plan identifier); null for removed (read-only)',
  memo: 'A note about the change (for a refusal, the carrier reason); null when none',
  assignee: 'Who is handling a manual change; null when no one is (read-only)',
  completed_at: 'When the carrier got the change; null until then',
});
export type BenefitChangeResponse = Static<typeof BenefitChangeSchema>;

export const BenefitChangeListSchema = Type.Array(BenefitChangeSchema);

export const UpdateBenefitChangeBodySchema = Type.Object(
  {
    completed_at: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'When the carrier got the change (manual and edi connections; not in the future). null reopens it while the enrollment is approved.',
        }),
      ),
    ),
    memo: Type.Optional(Nullable(Type.String({ maxLength: MEMO_MAX_LENGTH }))),
    assignee: Type.Optional(Nullable(Type.String({ maxLength: ASSIGNEE_MAX_LENGTH, description: 'Who is handling it' }))),
  },
  { title: 'UpdateBenefitChangeBody', additionalProperties: false },
);
export type UpdateBenefitChangeBody = Static<typeof UpdateBenefitChangeBodySchema>;

export const RefuseBenefitChangeBodySchema = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: MEMO_MAX_LENGTH,
      description: "The carrier's reason, as its report or portal gives it (kept in memo; told to no one else). Never an SSN or other personal data.",
    }),
  },
  { title: 'RefuseBenefitChangeBody', additionalProperties: false },
);
export type RefuseBenefitChangeBody = Static<typeof RefuseBenefitChangeBodySchema>;
