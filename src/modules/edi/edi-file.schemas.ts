import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { EDI_DELIVERY_METHODS, EDI_FILE_ACTIONS, EDI_FILE_KINDS, EDI_FILE_STATUSES, EDI_USAGE_INDICATORS } from './edi.table.ts';

const MissingPersonSchema = Type.Object(
  {
    member: IdSchema,
    person: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
  },
  { title: 'EdiMissingPerson', description: 'Listed by the last accepted full file, not by this one: the carrier will end this coverage' },
);

const LeftOutSchema = Type.Object(
  {
    member: IdSchema,
    reason: Type.String({ description: 'The element and the rule it breaks (e.g. "NM109: is not an SSN the SSA issues"), never the value' }),
  },
  {
    title: 'EdiLeftOutMember',
    description:
      'A member the build could not write; their changes wait for the next file. A change file lists a member and reason only the first time they are reported (GET /edi_left_out lists those standing)',
  },
);

const UnmappedChangeSchema = Type.Object(
  {
    benefit_change: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
  },
  {
    title: 'EdiUnmappedChange',
    description:
      "A benefit change of the group the file could not carry: its line has no 834 code (HD03) in the guide or the profile's companion_guide.line_of_coverage_codes. It waits (awaiting_file) until the line is mapped or the change is completed by hand; an admin alert (edi_unmapped_line) is raised once per change",
  },
);

/** A member a group's 834 builds leave out, and why, since first reported (until the member is written into a file). */
export const EdiLeftOutSchema = Type.Object(
  {
    id: IdSchema,
    group: IdSchema,
    employer: IdSchema,
    member: IdSchema,
    reason: Type.String({ description: 'The element and the rule it breaks, never the value' }),
    edi_file: Nullable(IdSchema),
    created_at: TimestampSchema,
  },
  {
    title: 'EdiLeftOut',
    description: 'edi_file: the file whose left_out reported it; null when the build wrote no file (everyone waiting was left out)',
  },
);
export type EdiLeftOutResponse = Static<typeof EdiLeftOutSchema>;

export const ListEdiLeftOutQuerySchema = Type.Object(
  { ...PageQuerySchema, group: Type.Optional(IdSchema), member: Type.Optional(IdSchema) },
  { additionalProperties: false },
);

export const AcknowledgementResultSchema = Type.Object(
  {
    kind: StringEnum(['999', 'TA1'] as const),
    result: StringEnum(['accepted', 'accepted_with_errors', 'rejected'] as const),
    /** The X12 codes, e.g. AK9 or TA1 acknowledgement code and error codes. */
    codes: Type.Array(Type.String()),
    received_at: TimestampSchema,
  },
  { title: 'EdiAcknowledgementResult' },
);

export const EdiFileSchema = Type.Object(
  {
    id: IdSchema,
    group: IdSchema,
    employer: IdSchema,
    kind: StringEnum(EDI_FILE_KINDS, { description: 'change: what changed since the last file (BGN08 2); full: everyone covered on as_of' }),
    action: StringEnum(EDI_FILE_ACTIONS, { description: 'BGN08: change 2, replace RX, verify 4' }),
    status: StringEnum(EDI_FILE_STATUSES),
    as_of: DateSchema,
    interchange_control_number: Type.Integer({ description: 'ISA13' }),
    group_control_number: Type.Integer({ description: 'GS06' }),
    transaction_set_control_number: Type.String({ description: 'ST02' }),
    usage_indicator: StringEnum(EDI_USAGE_INDICATORS, { description: 'ISA15' }),
    member_count: Type.Integer({ description: 'Subscribers in the file (each with their dependents)' }),
    segment_count: Type.Integer({ description: 'Segments in the file, ISA through IEA' }),
    byte_count: Type.Integer(),
    file_name: Type.String(),
    content_sha256: Type.String({ description: "Hex SHA-256 of the file's content" }),
    benefit_changes: Type.Array(IdSchema, { description: 'The benefit changes the file carries (change files), in file order' }),
    missing: Nullable(Type.Array(MissingPersonSchema, { description: 'Full files: coverage the last accepted full file listed and this one does not' })),
    left_out: Type.Array(LeftOutSchema, {
      description:
        'Change files: members newly left out (each member and reason is listed once, then stands in GET /edi_left_out); full files: everyone the file leaves out',
    }),
    unmapped: Type.Array(UnmappedChangeSchema, {
      description:
        'Change files: the benefit changes waiting for a file when it was built that it could not carry for want of a code of their line; [] for full files',
    }),
    delivery_method: StringEnum(EDI_DELIVERY_METHODS),
    delivery_attempts: Type.Integer({ description: 'Upload attempts made so far (failed ones included, every retry and re-upload counted)' }),
    delivery_error: Nullable(
      Type.String({ description: 'Why the last attempt failed (null once one succeeds); names the host and the step, never a secret or an address' }),
    ),
    next_delivery_attempt_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When the job queue next tries to upload the file (past while that attempt runs); null when no attempt is scheduled',
      }),
    ),
    remote_path: Nullable(Type.String()),
    acknowledgement: Nullable(AcknowledgementResultSchema),
    created_at: TimestampSchema,
    confirmed_at: Nullable(TimestampSchema),
    delivered_at: Nullable(TimestampSchema),
    acknowledged_at: Nullable(TimestampSchema),
    replaces: Type.Union([IdSchema, Type.Null()], {
      description: 'The rejected file this one was built to resend (POST /edi_files/{id}/resend), carrying its benefit changes again; null otherwise',
    }),
  },
  { title: 'EdiFile' },
);
export type EdiFileResponse = Static<typeof EdiFileSchema>;

export const CreateEdiFileBodySchema = Type.Object(
  {
    group: IdSchema,
    kind: StringEnum(EDI_FILE_KINDS),
    as_of: Type.Optional(DateSchema),
    action: Type.Optional(StringEnum(['replace', 'verify'] as const, { description: 'Full files only: replace (RX, the default) or verify (4)' })),
  },
  { title: 'CreateEdiFileBody', additionalProperties: false },
);
export type CreateEdiFileBody = Static<typeof CreateEdiFileBodySchema>;

export const ListEdiFilesQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    group: Type.Optional(IdSchema),
    kind: Type.Optional(StringEnum(EDI_FILE_KINDS)),
    status: Type.Optional(StringEnum(EDI_FILE_STATUSES)),
  },
  { additionalProperties: false },
);

export const AcknowledgementBodySchema = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'The 999 or TA1 as the carrier sent it (X12 text)' }),
  },
  { title: 'EdiAcknowledgementBody', additionalProperties: false },
);
export type AcknowledgementBody = Static<typeof AcknowledgementBodySchema>;

/** The X12 text, streamed (typed for the route as what it sends: a stream of the text). */
export const EdiContentSchema = Type.Unsafe<NodeJS.ReadableStream>({ type: 'string', description: 'The X12 834 text' });
