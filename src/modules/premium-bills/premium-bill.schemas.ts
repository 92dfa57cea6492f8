import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { ID_PATTERN } from '../../shared/ids.ts';
import { COVERAGE_TIERS } from '../plans/coverage-tier.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { BILL_COLUMNS } from './premium-bill-csv.ts';
import { PREMIUM_BILL_DISCREPANCY_KINDS } from './premium-bill-rules.ts';
import { BILL_MEMBER_KEYS } from './premium-bill.table.ts';

const PERIOD_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$';
const PeriodSchema = Type.String({ pattern: PERIOD_PATTERN, description: 'A month, YYYY-MM' });
/** An amount that may be negative (a credit, a difference): a decimal string with two decimals. */
const SignedMoneySchema = Type.String({
  pattern: '^-?(0|[1-9][0-9]{0,15})\\.[0-9]{2}$',
  description: 'Decimal string with two decimals; negative for a credit',
});

/** A header of the carrier's file, as column_mapping (JSON) or map_<column> (CSV form's query) names it. */
const columnName = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$', ...(description === undefined ? {} : { description }) });
type ColumnName = ReturnType<typeof Type.Optional<ReturnType<typeof columnName>>>;

const ColumnMappingSchema = Type.Object(
  Object.fromEntries(BILL_COLUMNS.map((column) => [column, Type.Optional(columnName())])) as Record<(typeof BILL_COLUMNS)[number], ColumnName>,
  {
    title: 'PremiumBillColumnMapping',
    additionalProperties: false,
    description:
      "The bill's header for each of our columns (member, coverage_tier, period, amount, line_of_coverage), compared without case and surrounding spaces; a column left out is looked for under our name",
  },
);

/**
 * The bill's options: in the JSON body, or in the query of the CSV form (docs/decisions.md "Premium bills").
 * The query's state no `default` (the validators would fill it in, and a JSON bill refuses any option in its query).
 */
const billOptions = (withDefaults: boolean) => ({
  member_key: Type.Optional(
    StringEnum(BILL_MEMBER_KEYS, {
      description:
        "What the member column holds: subscriber_id (the default: the id the group's 834s send as REF*0F, by its EDI profile; the member id without one), member_id, payroll_provider_external_id, or ssn (matched by its keyed digest, never stored)",
      ...(withDefaults ? { default: 'subscriber_id' } : {}),
    }),
  ),
  period: Type.Optional(Type.String({ pattern: PERIOD_PATTERN, description: "The bill's own month, YYYY-MM; by default the latest month on its lines" })),
  bill_date: Type.Optional(
    Type.Unsafe<string>({ ...DateSchema, description: "The bill's date (the correction window counts back from it); today by default" }),
  ),
  correction_window_days: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 730,
      ...(withDefaults ? { default: 60 } : {}),
      description: "The carrier's correction window in days before the bill date (60 by default)",
    }),
  ),
});

export const CreatePremiumBillBodySchema = Type.Object(
  {
    content: Type.String({
      minLength: 1,
      maxLength: 16 * 1024 * 1024,
      description: "The carrier's bill as CSV text: a header line, then one line per member and month",
    }),
    column_mapping: Type.Optional(ColumnMappingSchema),
    ...billOptions(true),
  },
  { title: 'CreatePremiumBillBody', additionalProperties: false },
);
export type CreatePremiumBillBody = Static<typeof CreatePremiumBillBodySchema>;

const LineErrorSchema = Type.Object({
  line: Type.Integer({ description: 'The line of the file (the header is line 1)' }),
  column: StringEnum(BILL_COLUMNS, { description: 'Our name of the column at fault' }),
  message: Type.String(),
});

const TotalsSchema = Type.Object(
  {
    billed: SignedMoneySchema,
    billed_before: SignedMoneySchema,
    expected: SignedMoneySchema,
    difference: SignedMoneySchema,
    deducted: SignedMoneySchema,
    expected_member_share: SignedMoneySchema,
  },
  {
    title: 'PremiumBillTotals',
    description:
      "billed (this bill), billed_before (earlier bills, for the same members and months), expected (our premium), difference = billed + billed_before - expected; deducted (the member's share payroll took under the group's deduction codes) and expected_member_share (what our coverage owes payroll for the months' pay dates)",
  },
);

const deductedSchema = () =>
  Type.Unsafe<string>({
    ...SignedMoneySchema,
    description:
      "The member's share (pre- and after-tax) payroll runs took for the pay periods whose pay date falls in the month, under the deduction codes of the group's plans (of this line when the bill names lines); adjustments of those periods taken later included",
  });
const expectedMemberShareSchema = () =>
  Type.Unsafe<string>({
    ...SignedMoneySchema,
    description:
      "The member's share our coverage owes payroll for the month's pay dates on the member's schedule (the deduction feed's per-period amounts of the coverage in force on each), under the same codes",
  });

const PeriodResultSchema = Type.Object({
  period: PeriodSchema,
  line_of_coverage: Nullable(StringEnum(LINES_OF_COVERAGE)),
  billed: SignedMoneySchema,
  billed_before: SignedMoneySchema,
  expected: SignedMoneySchema,
  difference: SignedMoneySchema,
  deducted: deductedSchema(),
  expected_member_share: expectedMemberShareSchema(),
  payroll_paid: Type.Boolean({
    description:
      "Every pay date of the member's schedule in the month was paid by a payroll run (false without a schedule or a pay date in the month): only then is a difference a deduction_mismatch",
  }),
  billed_tiers: Nullable(Type.Array(StringEnum(COVERAGE_TIERS), { description: "The tiers the bill's lines state (null: none stated)" })),
  our_tiers: Type.Array(StringEnum(COVERAGE_TIERS), { description: 'The tier of each line of our coverage owed that month' }),
  file_lines: Type.Array(Type.Integer(), { description: "The bill's lines for this member and month" }),
});

const DiscrepancySchema = Type.Object({
  kind: StringEnum(PREMIUM_BILL_DISCREPANCY_KINDS),
  period: PeriodSchema,
  line_of_coverage: Nullable(StringEnum(LINES_OF_COVERAGE)),
  file_lines: Type.Array(Type.Integer()),
  benefit_changes: Type.Array(IdSchema, { description: 'retro_outside_window of our change: the benefit changes that took effect before the window' }),
  message: Type.String(),
});

const MemberResultSchema = Type.Object(
  {
    member: Nullable(IdSchema),
    billed: SignedMoneySchema,
    billed_before: SignedMoneySchema,
    expected: SignedMoneySchema,
    difference: SignedMoneySchema,
    deducted: deductedSchema(),
    expected_member_share: expectedMemberShareSchema(),
    periods: Type.Array(PeriodResultSchema),
    discrepancies: Type.Array(DiscrepancySchema),
  },
  {
    title: 'PremiumBillMember',
    description:
      "A member with a discrepancy; member null for a member key none of the employer's members has (the key is never shown). Money of the months with a discrepancy",
  },
);

export const PremiumBillSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('premium_bill'),
    group: IdSchema,
    employer: IdSchema,
    period: PeriodSchema,
    bill_date: DateSchema,
    correction_window_days: Type.Integer(),
    member_key: StringEnum(BILL_MEMBER_KEYS),
    column_mapping: ColumnMappingSchema,
    line_count: Type.Integer({ description: 'Lines read, the header aside' }),
    line_errors: Type.Array(LineErrorSchema, { description: 'Lines that could not be read, left out of the comparison' }),
    totals: TotalsSchema,
    members_billed: Type.Integer({ description: 'Distinct members on the bill (unknown keys included)' }),
    members_covered: Type.Integer({ description: "Members our coverage owes premium for in the bill's month" }),
    members_reconciled: Type.Integer({ description: 'Members compared without a discrepancy' }),
    members: Type.Array(MemberResultSchema, { description: 'Members with a discrepancy, in member id order, unknown keys last' }),
    created_by: Type.String({ description: 'The id of the API key that posted the bill' }),
    created_at: TimestampSchema,
  },
  { title: 'PremiumBill' },
);
export type PremiumBillResponse = Static<typeof PremiumBillSchema>;

/** The CSV form's query parameters: `map_<column>` for each column mapping, and the bill's options (none with a JSON body). */
export const CreatePremiumBillQuerySchema = Type.Object(
  {
    ...(Object.fromEntries(
      BILL_COLUMNS.map((column) => [
        `map_${column}`,
        Type.Optional(columnName(`CSV form: the bill's header for our ${column} column (column_mapping.${column} of the JSON form)`)),
      ]),
    ) as Record<`map_${(typeof BILL_COLUMNS)[number]}`, ColumnName>),
    ...billOptions(false),
  },
  { additionalProperties: false },
);
export type CreatePremiumBillQuery = Static<typeof CreatePremiumBillQuerySchema>;

export const PremiumBillParamsSchema = Type.Object({
  public_id: Type.String({ pattern: ID_PATTERN, maxLength: 64 }),
  bill_id: Type.String({ pattern: ID_PATTERN, maxLength: 64 }),
});
