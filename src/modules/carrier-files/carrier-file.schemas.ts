import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { CARRIER_FILE_DISCREPANCY_KINDS } from './carrier-file-rules.ts';
import { CARRIER_FILE_FORMATS } from './carrier-file.table.ts';

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

const DiscrepancySchema = Type.Object({
  kind: StringEnum(CARRIER_FILE_DISCREPANCY_KINDS),
  member: Nullable(IdSchema),
  dependent: Nullable(IdSchema),
  line_of_coverage: Nullable(StringEnum(LINES_OF_COVERAGE)),
  fields: Type.Array(Type.String(), { description: 'The fields that differ (dates, demographics)' }),
  file_lines: Type.Array(Type.Integer(), { description: "The file's lines it comes from (CSV: the header is line 1; 834: the position of the HD segment)" }),
  message: Type.String(),
});

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
