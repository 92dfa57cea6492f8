import { Type, type Static } from 'typebox';
import { DiscriminatedUnion, IdSchema, Nullable, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { COVERAGE_TIERS } from '../plans/coverage-tier.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { EDI_USAGE_INDICATORS } from './edi.table.ts';
import { INTERCHANGE_ID_QUALIFIERS, PAYER_ID_QUALIFIERS } from './x12-codes.ts';

// X12 identifiers: the basic character set without the delimiters this service writes (* ~ : ^).
const X12_TEXT = "^[A-Za-z0-9 !&'()+,./;?=%@\\[\\]_{}\\\\|<>#$-]*[A-Za-z0-9!&'()+,./;?=%@\\[\\]_{}\\\\|<>#$-]$";

const x12Text = (minLength: number, maxLength: number, description: string) => Type.String({ minLength, maxLength, pattern: X12_TEXT, description });

const PartyIdSchema = Type.Object(
  {
    qualifier: StringEnum(INTERCHANGE_ID_QUALIFIERS, { description: 'ISA05/ISA07 interchange id qualifier' }),
    id: x12Text(1, 15, 'ISA06/ISA08 interchange id (padded to 15 characters in the file)'),
  },
  { title: 'EdiPartyId', additionalProperties: false },
);

const SponsorSchema = Type.Object(
  {
    name: x12Text(1, 60, 'N1*P5 plan sponsor name (usually the employer)'),
    tax_id: Type.String({ pattern: '^[0-9]{9}$', description: "The sponsor's FEIN, 9 digits (N103 FI)" }),
  },
  { title: 'EdiSponsor', additionalProperties: false },
);

const PayerSchema = Type.Object(
  {
    name: x12Text(1, 60, 'N1*IN insurer name'),
    id: x12Text(1, 80, "The insurer's id (N104)"),
    id_qualifier: Type.Optional(
      StringEnum(PAYER_ID_QUALIFIERS, { description: 'N103: FI federal taxpayer id, XV CMS plan id, 94 assigned by the receiver', default: 'FI' }),
    ),
  },
  { title: 'EdiPayer', additionalProperties: false },
);

/** Where REF*0F (the subscriber identifier) comes from. */
export const SUBSCRIBER_ID_SOURCES = ['ssn', 'member_id', 'payroll_provider_external_id'] as const;

const CompanionGuideSchema = Type.Object(
  {
    line_of_coverage_codes: Type.Optional(
      Type.Partial(
        Type.Object(Object.fromEntries(LINES_OF_COVERAGE.map((line) => [line, Type.String({ pattern: '^[A-Z]{2,3}$' })])), { additionalProperties: false }),
        {
          additionalProperties: false,
          description:
            "HD03 insurance line codes that differ from the defaults (medical HLT, dental DEN, vision VIS, short- and long-term disability STD and LTD), e.g. PPO for medical, or the code a carrier's companion guide gives a line the implementation guide has none for (life, AD&D, supplemental, accounts): those lines are sent only when mapped here.",
        },
      ),
    ),
    coverage_level_codes: Type.Optional(
      Type.Partial(
        Type.Object(Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, Type.String({ pattern: '^[A-Z0-9]{3}$' })])), { additionalProperties: false }),
        {
          additionalProperties: false,
          description:
            'HD05 coverage level codes per tier that differ from the defaults (member EMP, member_spouse ESP, member_child ECH, member_children ECH, member_family FAM), e.g. member_child: E1D',
        },
      ),
    ),
    subscriber_id_source: Type.Optional(
      StringEnum(SUBSCRIBER_ID_SOURCES, { description: 'What REF*0F carries: the SSN, the member id, or the payroll id', default: 'ssn' }),
    ),
    send_member_ssn: Type.Optional(Type.Boolean({ description: "Whether NM108/NM109 carry the employee's SSN", default: true })),
    send_dependent_ssn: Type.Optional(
      Type.Boolean({ description: "Whether NM108/NM109 carry dependents' SSNs (those given with the dependent's write-only ssn)", default: false }),
    ),
  },
  { title: 'EdiCompanionGuide', additionalProperties: false },
);

const ScheduleSchema = Type.Object(
  {
    time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, local to time_zone' }),
    time_zone: Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. America/Chicago' }),
  },
  { title: 'EdiSchedule', additionalProperties: false, description: 'A change file is built (and delivered) once a day at this time' },
);

const SFTP_COMMON = {
  method: Type.Literal('sftp'),
  host: Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: '^[A-Za-z0-9.-]+$|^\\[?[0-9A-Fa-f:.]+\\]?$',
    description:
      "The carrier's SFTP server: a public internet host. Private, loopback, link-local and other internal addresses and names (localhost, *.internal, single labels) are refused; a name is resolved, and checked again, at each connection",
  }),
  port: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      default: 22,
      description: "One of the SFTP ports the service connects to (SFTP_ALLOWED_PORTS; 22 and 2222 unless the operator's configuration says otherwise)",
    }),
  ),
  username: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f]+$' }),
  host_key_fingerprint: Type.String({
    pattern: '^SHA256:[A-Za-z0-9+/]{43}$',
    description: "The server's pinned host key, as `ssh-keygen -lf` prints it (SHA256:...)",
  }),
  inbound_directory: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\u0000-\\u001f]+$', description: 'Where files are uploaded' }),
  outbound_directory: Type.Optional(
    Nullable(
      Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\u0000-\\u001f]+$', description: 'Where the carrier leaves 999/TA1 acknowledgements' }),
    ),
  ),
  archive_directory: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        pattern: '^[^\\u0000-\\u001f]+$',
        description: 'Where picked-up acknowledgements that were applied are moved (another folder than outbound_directory); without one they are removed',
      }),
    ),
  ),
};

const DeliveryBodySchema = DiscriminatedUnion(
  'method',
  [
    Type.Object({ method: Type.Literal('download') }, { title: 'EdiDownloadDelivery', additionalProperties: false }),
    Type.Object(
      {
        ...SFTP_COMMON,
        password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Write-only; encrypted at rest' })),
        private_key: Type.Optional(Type.String({ minLength: 1, maxLength: 16384, description: 'PEM or OpenSSH private key; write-only; encrypted at rest' })),
        passphrase: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The private key's passphrase; write-only" })),
      },
      { title: 'EdiSftpDeliveryBody', additionalProperties: false },
    ),
  ],
  { description: 'sftp: uploaded by the service (password or private_key); download: taken to the carrier portal by hand' },
);

export const PutEdiProfileBodySchema = Type.Object(
  {
    interchange_sender: PartyIdSchema,
    interchange_receiver: PartyIdSchema,
    application_sender_code: x12Text(2, 15, 'GS02'),
    application_receiver_code: x12Text(2, 15, 'GS03'),
    usage_indicator: Type.Optional(StringEnum(EDI_USAGE_INDICATORS, { description: 'ISA15: T test, P production', default: 'T' })),
    sponsor: SponsorSchema,
    payer: PayerSchema,
    master_policy_number: Type.Optional(Nullable(x12Text(1, 50, "REF*38; defaults to the group's number"))),
    companion_guide: Type.Optional(CompanionGuideSchema),
    schedule: Type.Optional(Nullable(ScheduleSchema)),
    delivery: DeliveryBodySchema,
  },
  { title: 'PutEdiProfileBody', additionalProperties: false },
);
export type PutEdiProfileBody = Static<typeof PutEdiProfileBodySchema>;

export const EdiProfileSchema = Type.Object(
  {
    group: IdSchema,
    employer: IdSchema,
    interchange_sender: PartyIdSchema,
    interchange_receiver: PartyIdSchema,
    application_sender_code: Type.String(),
    application_receiver_code: Type.String(),
    usage_indicator: StringEnum(EDI_USAGE_INDICATORS),
    sponsor: SponsorSchema,
    payer: Type.Object({ name: Type.String(), id: Type.String(), id_qualifier: Type.String() }, { title: 'EdiPayerResponse' }),
    master_policy_number: Type.String(),
    companion_guide: Type.Object(
      {
        line_of_coverage_codes: Type.Record(Type.String(), Type.String()),
        coverage_level_codes: Type.Record(Type.String(), Type.String()),
        subscriber_id_source: StringEnum(SUBSCRIBER_ID_SOURCES),
        send_member_ssn: Type.Boolean(),
        send_dependent_ssn: Type.Boolean(),
      },
      { title: 'EdiCompanionGuideResponse' },
    ),
    schedule: Nullable(ScheduleSchema),
    delivery: Type.Union([
      Type.Object({ method: Type.Literal('download') }, { title: 'EdiDownloadDeliveryResponse' }),
      Type.Object(
        {
          method: Type.Literal('sftp'),
          host: Type.String(),
          port: Type.Integer(),
          username: Type.String(),
          host_key_fingerprint: Type.String(),
          inbound_directory: Type.String(),
          outbound_directory: Nullable(Type.String()),
          archive_directory: Nullable(Type.String()),
          auth: StringEnum(['password', 'private_key'] as const, { description: 'Which secret is stored (never returned)' }),
        },
        { title: 'EdiSftpDeliveryResponse' },
      ),
    ]),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { title: 'EdiProfile' },
);
export type EdiProfileResponse = Static<typeof EdiProfileSchema>;
