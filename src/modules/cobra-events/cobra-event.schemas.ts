import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { ID_PATTERN } from '../../shared/ids.ts';
import { COBRA_EVENT_TYPES } from './cobra-event.table.ts';

/** A record id with its own description. */
const DescribedId = (description: string) => Type.String({ pattern: ID_PATTERN, maxLength: 64, description });

const CobraLineSchema = StringEnum(['medical', 'dental', 'vision'] as const);

export const CobraEventSchema = Type.Object(
  {
    id: IdSchema,
    member: DescribedId('The covered employee'),
    employer: IdSchema,
    enrollment: DescribedId('The approved enrollment whose coverage change recorded the event (for a termination, the one the daily sweep made)'),
    event_type: StringEnum(COBRA_EVENT_TYPES, {
      description:
        '29 U.S.C. 1163: death (1), termination or reduction_of_hours (2), divorce_or_legal_separation (3), medicare_entitlement (4), dependent_ceased_to_be_dependent (5)',
    }),
    event_date: DateSchema,
    coverage_lost_date: Type.String({ format: 'date', description: 'The first day without coverage, YYYY-MM-DD (the last day covered is the day before)' }),
    lines_of_coverage: Type.Array(CobraLineSchema, { description: 'The group health lines lost (medical, dental, vision), by anyone' }),
    member_lost_coverage: Type.Boolean({ description: "Whether the member's own coverage of some line ended" }),
    dependents: Type.Array(IdSchema, { description: 'The dependents who lost coverage of some line' }),
    losses: Type.Array(
      Type.Object({
        line_of_coverage: CobraLineSchema,
        member_lost_coverage: Type.Boolean(),
        dependents: Type.Array(IdSchema),
      }),
      { description: 'Who lost each line' },
    ),
    qualified_beneficiaries: Type.Array(IdSchema, {
      description:
        "Who lost coverage and is a qualified beneficiary by 29 U.S.C. 1167(3): the member only after termination or reduction_of_hours, and the dependents who lost coverage (whether each is a spouse or child, not, say, a domestic partner, remains the administrator's determination)",
    }),
    maximum_coverage_months: Type.Integer({
      enum: [18, 29, 36],
      description:
        '29 U.S.C. 1162(2)(A): 18 for termination and reduction_of_hours (29 once a disability determination extends it), 36 for every other event type',
    }),
    coverage_period_end: Type.String({
      format: 'date',
      description:
        'The last day of continuation coverage, YYYY-MM-DD: event_date moved maximum_coverage_months months (Jan 31 + 1 month is the last day of February)',
    }),
    disability_determination: Nullable(
      Type.Object(
        {
          person: DescribedId('The disabled qualified beneficiary: the member or one of the dependents of the event'),
          disabled_on: DateSchema,
          determined_on: DateSchema,
          recorded_at: TimestampSchema,
        },
        { description: 'The Social Security disability determination that extended the event to 29 months (29 U.S.C. 1162(2)(A)(viii)); null without one' },
      ),
    ),
    created_at: TimestampSchema,
    withdrawn_at: Nullable(
      Type.Unsafe<string>({
        ...TimestampSchema,
        description:
          'When a later change withdrew the event: the coverage change that recorded it was cancelled before it began (e.g. an age-out after a retroactive death or termination had ended the coverage), so its losses no longer happen; the change that cancelled it records its own. Null while the event stands (docs/decisions.md "COBRA events")',
      }),
    ),
    withdrawn_by_enrollment: Nullable(DescribedId('The enrollment whose change withdrew the event')),
  },
  { title: 'CobraEvent' },
);
export type CobraEventResponse = Static<typeof CobraEventSchema>;

export const ListCobraEventsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    employer: Type.Optional(IdSchema),
    member: Type.Optional(IdSchema),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Only events recorded strictly after this instant' })),
  },
  { additionalProperties: false },
);
export type ListCobraEventsQuery = Static<typeof ListCobraEventsQuerySchema>;

export const DisabilityDeterminationBodySchema = Type.Object(
  {
    person: DescribedId('The qualified beneficiary the Social Security Administration determined disabled: the member or a dependent of the event'),
    disabled_on: Type.String({ format: 'date', description: 'The first day of the disability the determination found, YYYY-MM-DD' }),
    determined_on: Type.String({ format: 'date', description: 'The day of the determination (title II or XVI of the Social Security Act), YYYY-MM-DD' }),
  },
  { additionalProperties: false },
);
export type DisabilityDeterminationBody = Static<typeof DisabilityDeterminationBodySchema>;
