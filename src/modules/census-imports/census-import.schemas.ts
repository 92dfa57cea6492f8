import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, OptionalBodySchema, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { CENSUS_IMPORT_FORMATS, CENSUS_IMPORT_STATUSES, CENSUS_ROW_KINDS, CENSUS_ROW_OUTCOMES, CENSUS_ROW_TARGETS } from './census-import.table.ts';
import { CENSUS_IMPORT_COLUMNS } from './census-row-reader.ts';
import { CENSUS_WARNING_CODES, DEFAULT_MAX_TERMINATION_SHARE } from './census-rules.ts';

const Cell = Nullable(Type.Union([Type.String({ maxLength: 4096 }), Type.Number()]));

export const CensusJsonRowSchema = Type.Object(Object.fromEntries(CENSUS_IMPORT_COLUMNS.map((column) => [column, Type.Optional(Cell)])), {
  additionalProperties: false,
  description: 'One row: the CSV columns by name (docs/decisions.md "Census imports")',
});

const MaxShare = Type.Number({
  minimum: 0,
  maximum: 1,
  default: DEFAULT_MAX_TERMINATION_SHARE,
  description: "Above this share of the employer's employed members terminated by the file, the apply needs confirm_terminations (default 0.1)",
});

export const CreateCensusImportBodySchema = Type.Object(
  {
    employer: IdSchema,
    rows: Type.Array(CensusJsonRowSchema, { maxItems: 100_000 }),
    max_termination_share: Type.Optional(MaxShare),
  },
  { title: 'CreateCensusImportBody', additionalProperties: false },
);
export type CreateCensusImportBody = Static<typeof CreateCensusImportBodySchema>;

/** The CSV body (Content-Type: text/csv), with the employer in the query. */
export const CENSUS_CSV_DESCRIPTION = 'The CSV file, header on line 1 (the employer and max_termination_share in the query)';

export const CreateCensusImportQuerySchema = Type.Object(
  {
    employer: Type.Optional(IdSchema),
    max_termination_share: Type.Optional(MaxShare),
  },
  { additionalProperties: false },
);

/** No body, `{}` or `{ confirm_terminations }` (docs/decisions.md "Requests": an action's optional fields). */
export const ApplyCensusImportBodySchema = OptionalBodySchema(
  Type.Object(
    {
      confirm_terminations: Type.Optional(
        Type.Boolean({ description: "Required (true) when the import terminates more than its max_termination_share of the employer's employed members" }),
      ),
    },
    { title: 'ApplyCensusImportBody', additionalProperties: false, description: 'Optional: send no body, `{}`, or confirm_terminations' },
  ),
);
export type ApplyCensusImportBody = Static<typeof ApplyCensusImportBodySchema>;

const SummarySchema = Type.Object({
  create: Type.Integer(),
  update: Type.Integer(),
  unchanged: Type.Integer(),
  error: Type.Integer(),
  missing: Type.Integer({ description: 'Employed members of the employer the file left out: listed, never terminated' }),
  warnings: Type.Integer(),
  terminations: Type.Integer({ description: 'Rows that set a termination_date on a member without one' }),
  employed_members: Type.Integer(),
  needs_termination_confirmation: Type.Boolean(),
});

export const CensusImportSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('census_import'),
    employer: IdSchema,
    status: StringEnum(CENSUS_IMPORT_STATUSES),
    format: StringEnum(CENSUS_IMPORT_FORMATS),
    total_rows: Type.Integer({ description: "The file's rows (the header aside)" }),
    processed_rows: Type.Integer({ description: 'Rows checked so far' }),
    applied_rows: Type.Integer({ description: 'Rows applied so far' }),
    max_termination_share: Type.Number(),
    summary: SummarySchema,
    failure: Nullable(Type.String({ description: 'Why the check failed (status failed)' })),
    created_at: TimestampSchema,
    checked_at: Nullable(TimestampSchema),
    applied_at: Nullable(TimestampSchema),
  },
  { title: 'CensusImport' },
);
export type CensusImportResponse = Static<typeof CensusImportSchema>;

const ProblemSchema = Type.Object({ line: Nullable(Type.Integer()), column: Nullable(Type.String()), message: Type.String() });

export const CensusImportRowSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('census_import_row'),
    kind: StringEnum(CENSUS_ROW_KINDS),
    line: Nullable(Type.Integer({ description: 'The file line (header = line 1); null for a missing member' })),
    target: StringEnum(CENSUS_ROW_TARGETS),
    employee_id: Nullable(Type.String()),
    relationship: Nullable(Type.String()),
    member: Nullable(IdSchema),
    dependent: Nullable(IdSchema),
    changes: Type.Array(
      Type.Object({ field: Type.String(), old: Type.Unknown(), new: Type.Unknown() }, { description: 'old -> new; the SSN only as new: "changed"' }),
    ),
    errors: Type.Array(ProblemSchema),
    warnings: Type.Array(Type.Object({ ...ProblemSchema.properties, code: StringEnum(CENSUS_WARNING_CODES) })),
    outcome: Nullable(StringEnum(CENSUS_ROW_OUTCOMES, { description: 'What the apply did; null until applied' })),
    outcome_message: Nullable(Type.String()),
    applied_at: Nullable(TimestampSchema),
    created_at: TimestampSchema,
  },
  { title: 'CensusImportRow' },
);
export type CensusImportRowResponse = Static<typeof CensusImportRowSchema>;

export const ListCensusImportRowsQuerySchema = Type.Object(
  { ...PageQuerySchema, kind: Type.Optional(StringEnum(CENSUS_ROW_KINDS)) },
  { additionalProperties: false },
);
