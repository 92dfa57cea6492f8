import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, MoneySchema, Nullable, StringEnum } from '../../http/schemas.ts';
import { PAY_FREQUENCIES } from '../members/member.table.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';

export const CoverageQuerySchema = Type.Object({ date: Type.Optional(DateSchema) }, { additionalProperties: false });

export const MemberCoverageSchema = Type.Object(
  {
    member: IdSchema,
    date: DateSchema,
    coverage: Type.Array(
      Type.Object({
        line_of_coverage: StringEnum(LINES_OF_COVERAGE),
        plan: IdSchema,
        enrolled_plan: IdSchema,
        enrollment: IdSchema,
        effective_start: Nullable(DateSchema),
        effective_end: Nullable(DateSchema),
        dependents: Type.Array(IdSchema),
        volume: Nullable(MoneySchema),
        premium: Nullable(MoneySchema),
        employer_contribution: Nullable(MoneySchema),
        member_contribution: Nullable(MoneySchema),
        pay_period: Nullable(
          Type.Object(
            {
              pay_schedule: IdSchema,
              frequency: StringEnum(PAY_FREQUENCIES),
              periods_per_year: Type.Integer({ description: 'weekly 52, biweekly 26, semimonthly 24, monthly 12' }),
              member_contribution: MoneySchema,
              employer_contribution: MoneySchema,
              last_period_member_contribution: MoneySchema,
              last_period_employer_contribution: MoneySchema,
            },
            {
              description:
                'The monthly contributions per pay period of the member\'s pay schedule (their own, else the employer default): twelve months spread over periods_per_year, whole cents each, the remainder on the last period of the plan year (last_period_*), so the year sums exactly; null without a schedule or a price. docs/decisions.md "Pay schedules and payroll deductions"',
            },
          ),
        ),
      }),
    ),
  },
  { title: 'MemberCoverage' },
);
export type MemberCoverage = Static<typeof MemberCoverageSchema>;
