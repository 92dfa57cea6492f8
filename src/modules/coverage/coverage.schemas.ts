import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, MoneySchema, Nullable, StringEnum } from '../../http/schemas.ts';
import { payPeriodAmountsSchema } from '../payroll/pay-schedule.schemas.ts';
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
        pay_period: payPeriodAmountsSchema(),
      }),
    ),
  },
  { title: 'MemberCoverage' },
);
export type MemberCoverage = Static<typeof MemberCoverageSchema>;
