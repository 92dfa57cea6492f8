import { Type, type Static } from 'typebox';
import { SSN_INPUT_PATTERN } from '../../shared/ssn.ts';
import {
  AddressResponseSchema,
  AddressSchema,
  DateSchema,
  EmailSchema,
  ExternalIdQuerySchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { PhoneNumberSchema } from '../employers/employer.schemas.ts';
import { BIOLOGICAL_SEXES, EMPLOYMENT_EVENT_TYPES, EMPLOYMENT_STATUSES, LEAVE_TYPES, PAY_FREQUENCIES, TERMINATION_REASONS } from './member.table.ts';
import { REHIRE_RULES } from './rehire-rules.ts';

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const MemberSchema = Type.Object(
  {
    id: IdSchema,
    employer: IdSchema,
    first_name: Type.String(),
    last_name: Type.String(),
    dob: DateSchema,
    ssn_last_four: Nullable(Type.String({ description: 'Last four digits of the SSN; the SSN itself is write-only' })),
    email: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    address: AddressResponseSchema,
    hire_date: DateSchema,
    original_hire_date: Type.Unsafe<string>({ ...DateSchema, description: 'The first hire date, kept when a rehire moves hire_date' }),
    termination_date: Nullable(DateSchema),
    termination_reason: Nullable(StringEnum(TERMINATION_REASONS)),
    date_of_death: Nullable(DateSchema),
    rehire_rule: Nullable(
      StringEnum(REHIRE_RULES, {
        description: 'The rule of the latest rehire (POST /members/{id}/rehire); null for a member never rehired. docs/decisions.md "Employment history"',
      }),
    ),
    biological_sex: Nullable(StringEnum(BIOLOGICAL_SEXES)),
    employment_status: Nullable(StringEnum(EMPLOYMENT_STATUSES)),
    hours_worked: Nullable(Type.Number()),
    pay_frequency: Nullable(StringEnum(PAY_FREQUENCIES)),
    payroll_provider_external_id: Nullable(Type.String()),
    job_title: Nullable(Type.String()),
    business_unit: Nullable(IdSchema),
    pay_schedule: Nullable(IdSchema),
    subclasses: Type.Array(IdSchema),
    enrollments: Type.Array(IdSchema, { description: "Ids of the member's enrollments" }),
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'Member' },
);
describeProperties(MemberSchema, {
  employer: "The member's employer (employer identifier)",
  first_name: 'First name',
  last_name: 'Last name',
  dob: 'Date of birth',
  email: 'Email address; null when not given',
  phone_number: 'Phone number, digits only; null when not given',
  hire_date: 'The date of the current employment (moved by a rehire)',
  termination_date: 'Last day of employment; null while employed',
  termination_reason: 'Why employment ended (it decides the COBRA qualifying event); null while employed',
  date_of_death: "The member's date of death; null otherwise",
  biological_sex: 'Biological sex, as carriers ask it; null when not given',
  employment_status: 'full_time, part_time, seasonal or temporary; eligibility rules may read it; null when not given',
  hours_worked: 'Hours worked per week, which eligibility rules may read; null when not given',
  pay_frequency: 'How often the member is paid (for per-paycheck deductions); null when not given',
  payroll_provider_external_id: "The member's id in the payroll system; filter by it with ?payroll_provider_external_id=",
  job_title: 'Job title; null when not given',
  business_unit: 'The business unit (legal entity) the member works for (business unit identifier); null when not given',
  pay_schedule:
    'The pay schedule the member is paid on (pay schedule identifier, of the same employer); null for the employer\'s default schedule. docs/decisions.md "Pay schedules and payroll deductions"',
  subclasses: 'The subclasses (departments, classes) the member belongs to (subclass identifiers)',
});
export type MemberResponse = Static<typeof MemberSchema>;

const writable = {
  ssn: Type.Optional(
    Nullable(
      Type.String({
        pattern: SSN_INPUT_PATTERN,
        description:
          'Write-only: 9 digits, or written 123-45-6789 (stored as 9 digits, encrypted), never returned. An SSN the SSA issues (not area 000, 666 or 900-999, group 00 or serial 0000), and not one another member of the employer has.',
      }),
    ),
  ),
  email: Type.Optional(Nullable(EmailSchema)),
  phone_number: Type.Optional(Nullable(PhoneNumberSchema)),
  termination_date: Type.Optional(Nullable(DateSchema)),
  termination_reason: Type.Optional(
    Nullable(
      StringEnum(TERMINATION_REASONS, {
        description:
          'Why the employment ended (needs termination_date; cleared when termination_date is cleared or moved without it). Decides the COBRA event and the 834 INS04: docs/decisions.md "Employment history".',
      }),
    ),
  ),
  date_of_death: Type.Optional(
    Nullable(Type.Unsafe<string>({ ...DateSchema, description: 'Without a termination_date, the employment ends that day with termination_reason death.' })),
  ),
  biological_sex: Type.Optional(Nullable(StringEnum(BIOLOGICAL_SEXES))),
  employment_status: Type.Optional(Nullable(StringEnum(EMPLOYMENT_STATUSES))),
  hours_worked: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 168, description: 'Hours per week' }))),
  pay_frequency: Type.Optional(Nullable(StringEnum(PAY_FREQUENCIES))),
  payroll_provider_external_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  job_title: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  business_unit: Type.Optional(Nullable(IdSchema)),
  pay_schedule: Type.Optional(Nullable(IdSchema)),
  subclasses: Type.Optional(Type.Array(IdSchema, { maxItems: 50, uniqueItems: true })),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateMemberBodySchema = Type.Object(
  { employer: IdSchema, first_name: Name, last_name: Name, dob: DateSchema, address: AddressSchema, hire_date: DateSchema, ...writable },
  { title: 'CreateMemberBody', additionalProperties: false },
);
export type CreateMemberBody = Static<typeof CreateMemberBodySchema>;

export const UpdateMemberBodySchema = Type.Object(
  {
    first_name: Type.Optional(Name),
    last_name: Type.Optional(Name),
    dob: Type.Optional(DateSchema),
    address: Type.Optional(AddressSchema),
    hire_date: Type.Optional(DateSchema),
    ...writable,
  },
  { title: 'UpdateMemberBody', additionalProperties: false },
);
export type UpdateMemberBody = Static<typeof UpdateMemberBodySchema>;

export const ListMembersQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    employer: Type.Optional(IdSchema),
    payroll_provider_external_id: ExternalIdQuerySchema("Only the members with this payroll_provider_external_id (the payroll system's own id)"),
  },
  { additionalProperties: false },
);

const EmploymentEventDetailsSchema = Type.Object(
  {
    termination_reason: Type.Optional(Nullable(StringEnum(TERMINATION_REASONS))),
    withdrawn: Type.Optional(Type.Boolean()),
    corrected_from: Type.Optional(DateSchema),
    leave_type: Type.Optional(StringEnum(LEAVE_TYPES)),
    hours_before: Type.Optional(Nullable(Type.Number())),
    hours_after: Type.Optional(Nullable(Type.Number())),
    status_before: Type.Optional(Nullable(Type.String())),
    status_after: Type.Optional(Nullable(Type.String())),
    previous_termination_date: Type.Optional(DateSchema),
    days_away: Type.Optional(Type.Integer()),
    rehire_rule: Type.Optional(Type.String()),
    elections: Type.Optional(StringEnum(['reinstate', 'elect_anew'] as const)),
    waiting_period_waived: Type.Optional(Type.Object({ reason: Type.String() })),
  },
  { description: 'The entry\'s own values; which appear depends on event_type (docs/decisions.md "Employment history")' },
);

export const EmploymentEventSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    event_type: StringEnum(EMPLOYMENT_EVENT_TYPES),
    effective_date: DateSchema,
    details: EmploymentEventDetailsSchema,
    recorded_at: TimestampSchema,
  },
  { title: 'EmploymentEvent' },
);
export type EmploymentEventResponse = Static<typeof EmploymentEventSchema>;

export const EmploymentHistorySchema = Type.Object(
  { object: Type.Literal('list'), results: Type.Array(EmploymentEventSchema) },
  { title: 'EmploymentHistory' },
);

export const RehireMemberBodySchema = Type.Object(
  {
    rehire_date: Type.Unsafe<string>({ ...DateSchema, description: 'The first day of the new employment: after the termination_date on record' }),
    elections: Type.Optional(
      StringEnum(['reinstate', 'elect_anew'] as const, {
        description:
          'For a rehire within 30 days of the termination: reinstate (the default) gives back the coverage the termination ended, from rehire_date; elect_anew leaves the member to enroll (reason rehire). Only elect_anew is accepted for a later rehire.',
      }),
    ),
    hours_worked: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 168, description: 'Hours per week in the new employment' }))),
    employment_status: Type.Optional(Nullable(StringEnum(EMPLOYMENT_STATUSES))),
  },
  { title: 'RehireMemberBody', additionalProperties: false },
);
export type RehireMemberBody = Static<typeof RehireMemberBodySchema>;

export const CreateEmploymentEventBodySchema = Type.Object(
  {
    event_type: StringEnum(['leave_of_absence', 'return_from_leave'] as const, {
      description: 'The entries recorded by hand; hires, terminations, rehires and changes of hours or status are recorded by the member writes that make them',
    }),
    effective_date: DateSchema,
    leave_type: Type.Optional(StringEnum(LEAVE_TYPES, { description: 'Required for leave_of_absence' })),
  },
  { title: 'CreateEmploymentEventBody', additionalProperties: false },
);
export type CreateEmploymentEventBody = Static<typeof CreateEmploymentEventBodySchema>;
