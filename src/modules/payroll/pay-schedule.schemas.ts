import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, MoneySchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
import { PAY_FREQUENCIES } from './payroll.table.ts';

const SemimonthlyDaysSchema = Type.Array(Type.Integer({ minimum: 1, maximum: 31 }), {
  minItems: 2,
  maxItems: 2,
  description:
    "Semimonthly only: the two days of the month it pays, in order; 31 (or any day past a month's end) is the last day of the month. Defaults to [15, 31]",
});

export const PayScheduleSchema = Type.Object(
  {
    id: IdSchema,
    employer: IdSchema,
    name: Type.String(),
    frequency: StringEnum(PAY_FREQUENCIES),
    first_pay_date: DateSchema,
    semimonthly_days: Nullable(SemimonthlyDaysSchema),
    default: Type.Boolean(),
    created_at: TimestampSchema,
  },
  { title: 'PaySchedule' },
);
describeProperties(PayScheduleSchema, {
  employer: 'The employer whose members it pays (employer identifier)',
  name: 'A name for people (e.g. "Hourly, weekly")',
  frequency: 'weekly (52 pay periods a year), biweekly (26), semimonthly (24) or monthly (12)',
  first_pay_date:
    'The first pay date; weekly and biweekly schedules pay every 7 or 14 days from it, monthly ones on its day of the month (the last day in shorter months)',
  default:
    "Members without a pay_schedule of their own are paid on the employer's default schedule; at most one per employer (the first schedule is it unless told otherwise)",
});
export type PayScheduleResponse = Static<typeof PayScheduleSchema>;

export const CreatePayScheduleBodySchema = Type.Object(
  {
    employer: IdSchema,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    frequency: StringEnum(PAY_FREQUENCIES),
    first_pay_date: DateSchema,
    semimonthly_days: Type.Optional(Nullable(SemimonthlyDaysSchema)),
    default: Type.Optional(
      Type.Boolean({
        description: "Make it the employer's default schedule (the one before stops being it). Defaults to true when the employer has no default yet",
      }),
    ),
  },
  { title: 'CreatePayScheduleBody', additionalProperties: false },
);
export type CreatePayScheduleBody = Static<typeof CreatePayScheduleBodySchema>;

export const UpdatePayScheduleBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    frequency: Type.Optional(StringEnum(PAY_FREQUENCIES, { description: 'Only while no payroll run has paid on the schedule (409 after)' })),
    first_pay_date: Type.Optional(Type.Unsafe<string>({ ...DateSchema, description: 'Only while no payroll run has paid on the schedule (409 after)' })),
    semimonthly_days: Type.Optional(Nullable(SemimonthlyDaysSchema)),
    default: Type.Optional(
      Type.Boolean({ description: "true makes it the employer's default (the one before stops being it); false leaves the employer without one" }),
    ),
  },
  { title: 'UpdatePayScheduleBody', additionalProperties: false },
);
export type UpdatePayScheduleBody = Static<typeof UpdatePayScheduleBodySchema>;

export const ListPaySchedulesQuerySchema = Type.Object({ ...PageQuerySchema, employer: Type.Optional(IdSchema) }, { additionalProperties: false });

export const PayDatesQuerySchema = Type.Object(
  {
    from: DateSchema,
    to: Type.Unsafe<string>({ ...DateSchema, description: 'Last day of the range, inclusive; at most 366 days after from' }),
  },
  { additionalProperties: false },
);
export const PayDatesSchema = Type.Object(
  {
    pay_schedule: IdSchema,
    pay_dates: Type.Array(
      Type.Object({
        pay_date: DateSchema,
        period_start: Type.Unsafe<string>({ ...DateSchema, description: 'The first day of the pay period the pay date closes' }),
      }),
    ),
  },
  { title: 'PayDates' },
);
describeProperties(PayDatesSchema, {
  pay_schedule: 'The pay schedule (pay schedule identifier)',
  pay_dates: 'The pay dates in the range, oldest first, with their periods',
});
export type PayDatesResponse = Static<typeof PayDatesSchema>;

/** A priced election's contributions per pay period (payroll/pay-period-rules.ts payPeriodAmounts): a fresh schema per use. */
export function payPeriodAmountsSchema() {
  return Nullable(
    Type.Object(
      {
        pay_schedule: Type.Unsafe<string>({ ...IdSchema, description: 'The schedule the amounts are for (pay schedule identifier)' }),
        frequency: StringEnum(PAY_FREQUENCIES, { description: "The schedule's frequency" }),
        periods_per_year: Type.Integer({ description: 'weekly 52, biweekly 26, semimonthly 24, monthly 12' }),
        member_contribution: Type.Unsafe<string>({ ...MoneySchema, description: "The member's share each pay period" }),
        employer_contribution: Type.Unsafe<string>({ ...MoneySchema, description: "The employer's share each pay period" }),
        last_period_member_contribution: Type.Unsafe<string>({
          ...MoneySchema,
          description: "The member's share on the plan year's last counted period (with the remainder)",
        }),
        last_period_employer_contribution: Type.Unsafe<string>({
          ...MoneySchema,
          description: "The employer's share on the plan year's last counted period (with the remainder)",
        }),
      },
      {
        description:
          'The monthly contributions per pay period of the member\'s pay schedule (their own, else the employer default): twelve months spread over periods_per_year, whole cents each, the remainder on the last counted period of the plan year (last_period_*), so a full plan year sums exactly; null without a schedule or a price. docs/decisions.md "Pay schedules and payroll deductions"',
      },
    ),
  );
}
