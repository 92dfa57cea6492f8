import { Type, type Static } from 'typebox';
import { SSN_INPUT_PATTERN } from '../../shared/ssn.ts';
import {
  AddressResponseSchema,
  AddressSchema,
  DateSchema,
  ExternalIdQuerySchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { BIOLOGICAL_SEXES } from '../members/member.table.ts';
import { DEPENDENT_RELATIONSHIPS } from '../plans/coverage-tier.ts';

const NameSchema = Type.String({ minLength: 1, maxLength: 255 });
/** ssn_last_four and tin_last_four: the last four digits only (the contract's words), never a whole number. */
export const LastFourDigitsSchema = Type.String({ pattern: '^[0-9]{4}$', description: 'Exactly four digits' });

export const DependentSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    first_name: Type.String(),
    middle_name: Nullable(Type.String({ maxLength: 255 })),
    last_name: Type.String(),
    member_relationship: StringEnum(DEPENDENT_RELATIONSHIPS),
    relationship_end_date: Nullable(DateSchema),
    ssn_last_four: Nullable(Type.String()),
    dob: DateSchema,
    biological_sex: Nullable(StringEnum(BIOLOGICAL_SEXES)),
    address: Nullable(AddressResponseSchema),
    enrolled_plans: Type.Array(IdSchema, { description: 'Ids of the enrolled plans that cover this dependent (read-only)' }),
    has_disability: Type.Boolean(),
    disability_certified_on: Nullable(DateSchema),
    disability_certification_expires_on: Nullable(
      Type.String({
        format: 'date',
        description: 'Read-only. The last day the disability certification counts (one year after disability_certified_on, less a day); null without one.',
      }),
    ),
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'Dependent' },
);
describeProperties(DependentSchema, {
  member: 'The member this person is a dependent of (member identifier)',
  first_name: 'First name',
  middle_name: 'Middle name; null when none',
  last_name: 'Last name',
  member_relationship: 'How the dependent is related to the member',
  relationship_end_date: "The date a spouse's or partner's relationship ended (divorce, dissolution); coverage ends with it; null otherwise",
  ssn_last_four: 'Last four digits of the SSN; the SSN itself is write-only; null without one',
  dob: 'Date of birth',
  biological_sex: 'Biological sex, as carriers ask it; null when not given',
  address: "The dependent's address; null when it is the member's",
  has_disability: 'Whether the dependent is disabled (a disabled child may stay covered past the age limit)',
  disability_certified_on: 'The date the disability was last certified; null without a certification',
});
export type DependentResponse = Static<typeof DependentSchema>;

const CertifiedOnSchema = Type.Optional(
  Nullable(
    Type.String({
      format: 'date',
      description:
        "The day a disabled child's incapacity was last certified (a physician's statement the plan accepted); needs has_disability. A child over the plan configuration's age limit stays covered only while the certification is current: one year, through disability_certification_expires_on. Not in the future.",
    }),
  ),
);

const RelationshipEndDateSchema = Type.Optional(
  Nullable(
    Type.String({
      format: 'date',
      description:
        "A spouse's, domestic partner's or civil-union partner's (or ex_spouse's) divorce or dissolution date: the last day the relationship, and the dependent's eligibility as a spouse or partner, lasts; from the next day they are not an eligible dependent. Only for those relationships; not before dob. It ends the dependent's coverage: every coverage naming them goes on without them from the next day (a service enrollment with reason divorce, or domestic_partnership for a partner), at once when that day has come, else by the daily sweep on it; until then it can be cleared or moved. A member has at most one current spouse or partner (spouse, domestic_partner or civil_union without this date); an ex_spouse is covered only through this date.",
    }),
  ),
);

const writable = {
  relationship_end_date: RelationshipEndDateSchema,
  disability_certified_on: CertifiedOnSchema,
  middle_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  ssn_last_four: Type.Optional(Nullable(LastFourDigitsSchema)),
  ssn: Type.Optional(
    Nullable(
      Type.String({
        pattern: SSN_INPUT_PATTERN,
        description:
          'Write-only: 9 digits, or written 123-45-6789 (stored as 9 digits, encrypted), never returned (for carriers whose 834 files want it); sets ssn_last_four. An SSN the SSA issues (not area 000, 666 or 900-999, group 00 or serial 0000).',
      }),
    ),
  ),
  biological_sex: Type.Optional(Nullable(StringEnum(BIOLOGICAL_SEXES))),
  address: Type.Optional(Nullable(AddressSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateDependentBodySchema = Type.Object(
  {
    member: IdSchema,
    first_name: NameSchema,
    last_name: NameSchema,
    member_relationship: StringEnum(DEPENDENT_RELATIONSHIPS),
    dob: DateSchema,
    has_disability: Type.Optional(Type.Boolean({ default: false })),
    ...writable,
  },
  { title: 'CreateDependentBody', additionalProperties: false },
);
export type CreateDependentBody = Static<typeof CreateDependentBodySchema>;

/** A dependent stays with the member it was created for: `member` is not accepted here. */
export const UpdateDependentBodySchema = Type.Object(
  {
    first_name: Type.Optional(NameSchema),
    last_name: Type.Optional(NameSchema),
    member_relationship: Type.Optional(StringEnum(DEPENDENT_RELATIONSHIPS)),
    dob: Type.Optional(DateSchema),
    has_disability: Type.Optional(Type.Boolean()),
    ...writable,
  },
  { title: 'UpdateDependentBody', additionalProperties: false },
);
export type UpdateDependentBody = Static<typeof UpdateDependentBodySchema>;

export const ListDependentsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    member: Type.Optional(IdSchema),
    member_payroll_provider_external_id: ExternalIdQuerySchema(
      'Only the dependents of the members with this payroll_provider_external_id (dependents have no external id of their own)',
    ),
  },
  { additionalProperties: false },
);
