import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { EDI_ACKNOWLEDGEMENT_SOURCES, EDI_UNMATCHED_KINDS } from './edi.table.ts';

const PartySchema = Type.Object({ qualifier: Type.String(), id: Type.String() }, { title: 'EdiAcknowledgementParty' });

const MismatchSchema = Type.Object(
  {
    element: Type.String({ description: 'The X12 element, e.g. ISA08, AK101, AK202' }),
    expected: Type.String({ description: 'What an acknowledgement of the file must say there' }),
    found: Type.String({ description: 'What this one says (shortened, control characters removed)' }),
  },
  { title: 'EdiAcknowledgementMismatch' },
);

export const EdiUnmatchedAcknowledgementSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('edi_unmatched_acknowledgement'),
    received_via: StringEnum(EDI_ACKNOWLEDGEMENT_SOURCES, { description: "sftp_pickup: read from a carrier's outbound folder" }),
    remote_file: Nullable(Type.String({ description: 'The file name in the outbound folder (left there)' })),
    kind: StringEnum(EDI_UNMATCHED_KINDS, { description: '999 or TA1 as read; unreadable: X12 that is not a well-formed 999 or TA1' }),
    interchange_sender: Nullable(PartySchema),
    interchange_receiver: Nullable(PartySchema),
    interchange_control_number: Nullable(Type.String({ description: "ISA13 of the acknowledgement (the carrier's number)" })),
    control_number: Nullable(Type.String({ description: 'What it names: AK102 (999) or TA101 (TA1), as sent' })),
    edi_file: Nullable(IdSchema),
    reason: Type.String({ description: 'Why it was not applied' }),
    mismatches: Type.Array(MismatchSchema),
    created_at: TimestampSchema,
  },
  {
    title: 'EdiUnmatchedAcknowledgement',
    description:
      "A carrier acknowledgement that is not for one of the provider's files: stored with why, never applied. edi_file is the file whose control number it names when it names one (an element then says it is not that file's).",
  },
);
export type EdiUnmatchedAcknowledgementResponse = Static<typeof EdiUnmatchedAcknowledgementSchema>;

export const ListUnmatchedAcknowledgementsQuerySchema = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });
