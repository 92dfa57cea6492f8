import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
import { CHANGES } from './deduction-rules.ts';

/** Amounts of the feed: decimal strings with two decimals, negative for a refund. */
export const SignedMoneySchema = Type.String({
  pattern: '^-?(0|[1-9][0-9]{0,13})\\.[0-9]{2}$',
  description: 'Decimal string with 2 decimals; negative for a refund',
});

export const DEDUCTION_LINE_KINDS = ['deduction', 'adjustment'] as const;

export const DeductionLineSchema = Type.Object(
  {
    deduction_code: Type.String(),
    kind: StringEnum(DEDUCTION_LINE_KINDS),
    change: Nullable(StringEnum(CHANGES)),
    member_pre_tax: SignedMoneySchema,
    member_post_tax: SignedMoneySchema,
    employer: SignedMoneySchema,
    imputed_income: SignedMoneySchema,
    adjusted_periods: Type.Array(DateSchema),
  },
  { title: 'PayrollDeductionLine' },
);
describeProperties(DeductionLineSchema, {
  deduction_code: "The plan configuration's deduction_code (its plan's line of coverage when it has none)",
  kind: 'deduction: the pay period of the pay date; adjustment: arrears (positive) or a refund (negative) for pay periods already paid',
  change:
    'deduction lines: started, changed, stopped or unchanged since the previous pay date (what payroll took for it when it was paid); null on adjustments',
  member_pre_tax: "The member's share taken before tax (IRC §125)",
  member_post_tax: "The member's share taken after tax",
  employer: "The employer's share",
  imputed_income:
    'Income to report, not to deduct: IRC §79 group-term life over $50,000, and the employer-paid coverage of a partner who is not a tax dependent',
  adjusted_periods: 'adjustment lines: the pay dates of the paid periods it corrects; empty on deduction lines',
});

export const MemberDeductionsSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    payroll_provider_external_id: Nullable(Type.String()),
    pay_schedule: IdSchema,
    pay_date: DateSchema,
    period_start: DateSchema,
    previous_pay_date: Nullable(DateSchema),
    lines: Type.Array(DeductionLineSchema),
    created_at: TimestampSchema,
  },
  { title: 'MemberPayrollDeductions' },
);
describeProperties(MemberDeductionsSchema, {
  id: 'The member identifier (the page cursor reads it)',
  member: 'The member (member identifier)',
  payroll_provider_external_id: "The member's id in the payroll system; null when not set",
  pay_schedule: 'The schedule the member is paid on: their own, else the employer default',
  pay_date: 'The pay date of the pay period containing the date asked for',
  period_start: 'The first day of that pay period',
  previous_pay_date: 'The pay date before, which changes are measured against; null on the first pay date of the schedule',
  lines: 'One line per deduction code for the period (with what changed), and one adjustment line per code owed for paid periods',
  created_at: 'When the member was created (the order of the list)',
});
export type MemberDeductions = Static<typeof MemberDeductionsSchema>;

export const PayrollDeductionsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    employer: IdSchema,
    pay_date: Type.Unsafe<string>({ ...DateSchema, description: "Any day: the pay period containing it, on each member's schedule" }),
    pay_schedule: Type.Optional(IdSchema),
    format: Type.Optional(StringEnum(['json', 'csv'] as const, { description: 'csv: every row as CSV (header row first), one per member, code and kind' })),
  },
  { additionalProperties: false },
);
export type PayrollDeductionsQuery = Static<typeof PayrollDeductionsQuerySchema>;

export const PAYROLL_DEDUCTIONS_CSV_COLUMNS = [
  'member',
  'payroll_provider_external_id',
  'pay_schedule',
  'pay_date',
  'period_start',
  'deduction_code',
  'kind',
  'change',
  'member_pre_tax',
  'member_post_tax',
  'employer',
  'imputed_income',
  'adjusted_periods',
] as const;

export const CreatePayrollRunBodySchema = Type.Object(
  {
    pay_schedule: IdSchema,
    pay_date: Type.Unsafe<string>({ ...DateSchema, description: "A pay date of the schedule, after the schedule's latest run" }),
  },
  { title: 'CreatePayrollRunBody', additionalProperties: false },
);
export type CreatePayrollRunBody = Static<typeof CreatePayrollRunBodySchema>;

const TotalsSchema = Type.Object({
  member_pre_tax: SignedMoneySchema,
  member_post_tax: SignedMoneySchema,
  employer: SignedMoneySchema,
  imputed_income: SignedMoneySchema,
});

export const PayrollRunSchema = Type.Object(
  {
    id: IdSchema,
    employer: IdSchema,
    pay_schedule: IdSchema,
    pay_date: DateSchema,
    period_start: DateSchema,
    members: Type.Integer(),
    deductions: TotalsSchema,
    adjustments: TotalsSchema,
    created_at: TimestampSchema,
  },
  { title: 'PayrollRun' },
);
describeProperties(PayrollRunSchema, {
  employer: 'The employer (employer identifier)',
  pay_schedule: 'The pay schedule paid (pay schedule identifier)',
  pay_date: 'The pay date marked paid',
  period_start: 'The first day of its pay period',
  members: 'How many members the run recorded amounts for',
  deductions: "The totals taken for the run's own pay period",
  adjustments: 'The totals of the retroactive adjustments it took for earlier paid periods (negative: refunds)',
});
export type PayrollRunResponse = Static<typeof PayrollRunSchema>;

export const ListPayrollRunsQuerySchema = Type.Object(
  { ...PageQuerySchema, employer: Type.Optional(IdSchema), pay_schedule: Type.Optional(IdSchema) },
  { additionalProperties: false },
);
