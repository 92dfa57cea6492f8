import { Type, type Static } from 'typebox';
import {
  DateSchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { CHANGE_KINDS, BENEFIT_CHANGE_STATUSES } from '../benefit-changes/benefit-change.table.ts';
import { ENROLLMENT_STATUSES } from '../enrollments/enrollment.table.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { ENROLLMENT_TYPES, WINDOW_STATUSES } from './open-enrollment-window.table.ts';

const PlansInput = Type.Array(IdSchema, { maxItems: 100, uniqueItems: true, description: 'Plan identifiers offered in the window' });

export const CreateWindowBodySchema = Type.Object(
  {
    employer: IdSchema,
    start_date: Type.Optional(Nullable(DateSchema)),
    end_date: Type.Optional(Nullable(DateSchema)),
    renewal_date: Type.Optional(Nullable(DateSchema)),
    plans: Type.Optional(PlansInput),
    enrollment_type: Type.Optional(StringEnum(ENROLLMENT_TYPES, { default: 'active' })),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'CreateOpenEnrollmentWindowBody', additionalProperties: false },
);
export type CreateWindowBody = Static<typeof CreateWindowBodySchema>;

export const UpdateWindowBodySchema = Type.Object(
  {
    start_date: Type.Optional(Nullable(DateSchema)),
    end_date: Type.Optional(Nullable(DateSchema)),
    renewal_date: Type.Optional(Nullable(DateSchema)),
    plans: Type.Optional(PlansInput),
    enrollment_type: Type.Optional(StringEnum(ENROLLMENT_TYPES)),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'UpdateOpenEnrollmentWindowBody', additionalProperties: false },
);
export type UpdateWindowBody = Static<typeof UpdateWindowBodySchema>;

/** One item per member and line of coverage that changed (docs/decisions.md "Open enrollment windows", `summaries`). */
export const WindowSummarySchema = Type.Object(
  {
    member: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
    status: StringEnum(BENEFIT_CHANGE_STATUSES),
    changes: Type.Array(StringEnum(CHANGE_KINDS)),
    previous_plan: Nullable(IdSchema),
    next_plan: Nullable(IdSchema),
  },
  { title: 'OpenEnrollmentWindowSummary' },
);
describeProperties(WindowSummarySchema, {
  member: 'The member (member identifier)',
  line_of_coverage: 'The line of coverage that changed',
  status: 'What happened to the line: new, removed, change or no_change',
  changes: 'The kinds of change, when status is change',
  previous_plan: 'The plan of the previous plan year (plan identifier); null when none',
  next_plan: 'The plan of the new plan year (plan identifier); null when none',
});
export type WindowSummary = Static<typeof WindowSummarySchema>;

export const OpenEnrollmentWindowSchema = Type.Object(
  {
    id: IdSchema,
    employer: IdSchema,
    start_date: Nullable(DateSchema),
    end_date: Nullable(DateSchema),
    renewal_date: Nullable(DateSchema),
    status: StringEnum(WINDOW_STATUSES),
    completed_at: Nullable(TimestampSchema),
    completed_member_count: Type.Integer(),
    incomplete_member_count: Type.Integer(),
    summaries: Type.Array(WindowSummarySchema),
    plans: Type.Array(IdSchema),
    enrollment_type: StringEnum(ENROLLMENT_TYPES),
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'OpenEnrollmentWindow' },
);
describeProperties(OpenEnrollmentWindowSchema, {
  employer: 'The employer holding open enrollment (employer identifier)',
  start_date: 'First day members may enroll; null until set',
  end_date: 'Last day members may enroll; null until set',
  renewal_date: 'First day of the new plan year the elections take effect; null until set',
  status: 'Lifecycle: setup_required → build_in_progress → active → closed → completed',
  completed_at: 'When the window was completed; null before',
  completed_member_count: 'Members who submitted an enrollment in this window',
  incomplete_member_count: 'Eligible members who have not',
  summaries: 'One item per member and line of coverage that changed, after completion',
  plans: 'The plans offered in this window (plan identifiers)',
  enrollment_type: 'active: members must elect; passive: current elections carry over to the new plan year unless changed',
});
export type WindowResponse = Static<typeof OpenEnrollmentWindowSchema>;

export const ListWindowsQuerySchema = Type.Object(
  { ...PageQuerySchema, employer: Type.Optional(IdSchema), status: Type.Optional(StringEnum(WINDOW_STATUSES)) },
  { additionalProperties: false },
);

export const IncompleteMembersQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    format: Type.Optional(StringEnum(['json', 'csv'] as const, { description: 'csv: every row as CSV with a header row (cursor and page_size do not apply)' })),
  },
  { additionalProperties: false },
);

export const IncompleteMemberSchema = Type.Object(
  {
    member: IdSchema,
    first_name: Type.String(),
    last_name: Type.String(),
    email: Nullable(Type.String()),
    enrollment: Nullable(IdSchema),
    enrollment_status: Nullable(StringEnum(ENROLLMENT_STATUSES)),
  },
  { title: 'IncompleteMember' },
);
export type IncompleteMember = Static<typeof IncompleteMemberSchema>;
