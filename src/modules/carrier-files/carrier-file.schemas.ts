import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { CARRIER_FILE_DISCREPANCY_KINDS } from './carrier-file-rules.ts';
import { COVERAGE_TIERS, DEPENDENT_RELATIONSHIPS } from '../plans/coverage-tier.ts';
import { CARRIER_FILE_FORMATS, RESOLUTION_ACTIONS } from './carrier-file.table.ts';

export const CreateCarrierFileBodySchema = Type.Object(
  {
    format: StringEnum(CARRIER_FILE_FORMATS, {
      description:
        'csv: a census, one row per person per line of coverage; x12_834: an 834 as carriers send what they hold (docs/decisions.md "Carrier files")',
    }),
    content: Type.String({ minLength: 1, maxLength: 16 * 1024 * 1024, description: "The carrier's file as text" }),
    as_of: Type.Optional(Type.Unsafe<string>({ ...DateSchema, description: 'The day the file describes; today by default' })),
  },
  { title: 'CreateCarrierFileBody', additionalProperties: false },
);
export type CreateCarrierFileBody = Static<typeof CreateCarrierFileBodySchema>;

const RowProblemSchema = Type.Object({
  line: Type.Integer({ description: 'CSV: the line (the header is line 1); 834: the position of the segment at fault' }),
  column: Type.String({ description: 'CSV: the column; 834: the element (e.g. DMG02)' }),
  message: Type.String(),
});

const CarrierPersonSchema = Type.Object({
  relationship: StringEnum(['employee', ...DEPENDENT_RELATIONSHIPS] as const),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  dob: Nullable(DateSchema),
});

const CarrierValuesSchema = Type.Object(
  {
    first_name: Type.Optional(Nullable(Type.String())),
    last_name: Type.Optional(Nullable(Type.String())),
    dob: Type.Optional(Nullable(DateSchema)),
    plan: Type.Optional(Nullable(Type.String({ description: "The file's plan: an id or a name, as given" }))),
    coverage_start: Type.Optional(Nullable(DateSchema)),
    coverage_end: Type.Optional(Nullable(DateSchema)),
    coverage_level: Type.Optional(
      Nullable(Type.Array(StringEnum(COVERAGE_TIERS), { description: "The tiers the file's coverage level stands for (an 834's ECH: one child or several)" })),
    ),
    dependents: Type.Optional(Type.Array(CarrierPersonSchema, { description: "The dependents the line's rows name (a subscriber id of nobody: not kept)" })),
  },
  {
    title: 'CarrierFileValues',
    description:
      'What the file said: demographics (first_name, last_name, dob) for a demographics discrepancy; the line as the file gave it (plan, coverage_start, coverage_end, coverage_level, dependents) for the other kinds',
  },
);

const ResolutionSchema = Type.Object(
  {
    action: StringEnum(RESOLUTION_ACTIONS),
    resolved_at: TimestampSchema,
    resolved_by: Type.String({ description: 'The id of the API key that resolved it' }),
    note: Nullable(Type.String()),
    benefit_changes: Type.Array(IdSchema, { description: 'The benefit changes a resend recorded' }),
    fields_changed: Type.Array(Type.String(), { description: "Our member's or dependent's fields an accepted value changed" }),
  },
  { title: 'CarrierFileResolution' },
);

const DiscrepancySchema = Type.Object({
  index: Type.Integer({ description: "The discrepancy's position in the list: what a resolution names" }),
  kind: StringEnum(CARRIER_FILE_DISCREPANCY_KINDS),
  member: Nullable(IdSchema),
  dependent: Nullable(IdSchema),
  line_of_coverage: Nullable(StringEnum(LINES_OF_COVERAGE)),
  fields: Type.Array(Type.String(), { description: 'The fields that differ (dates, demographics)' }),
  file_lines: Type.Array(Type.Integer(), { description: "The file's lines it comes from (CSV: the header is line 1; 834: the position of the HD segment)" }),
  message: Type.String(),
  carrier: Type.Union([CarrierValuesSchema, Type.Null()], { description: 'null for comparisons stored before the values were kept' }),
  resolution: Type.Union([ResolutionSchema, Type.Null()], { description: 'null while unresolved' }),
});

export const ResolveDiscrepancyBodySchema = Type.Object(
  {
    discrepancy: Type.Integer({ minimum: 0, maximum: 10_000_000, description: "The discrepancy's index" }),
    action: StringEnum(RESOLUTION_ACTIONS, {
      description:
        "resend: tell the carrier our truth again (a benefit change, or the demographics in the next 834); accept_carrier_value: take the carrier's demographics as ours",
    }),
    note: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { title: 'ResolveCarrierFileDiscrepancyBody', additionalProperties: false },
);
export type ResolveDiscrepancyBody = Static<typeof ResolveDiscrepancyBodySchema>;

export const CarrierFileSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('carrier_file'),
    group: IdSchema,
    employer: IdSchema,
    format: StringEnum(CARRIER_FILE_FORMATS),
    as_of: DateSchema,
    row_count: Type.Integer({ description: 'Rows read, the header aside' }),
    row_problems: Type.Array(RowProblemSchema, { description: 'Rows that could not be read, left out of the comparison' }),
    discrepancies: Type.Array(DiscrepancySchema),
    created_at: TimestampSchema,
  },
  { title: 'CarrierFile' },
);
export type CarrierFileResponse = Static<typeof CarrierFileSchema>;
