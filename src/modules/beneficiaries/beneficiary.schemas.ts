import { Type, type Static } from 'typebox';
import {
  AddressResponseSchema,
  AddressSchema,
  DateSchema,
  IdSchema,
  Nullable,
  PageQuerySchema,
  StringEnum,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { LastFourDigitsSchema } from '../dependents/dependent.schemas.ts';
import { PhoneNumberSchema } from '../employers/employer.schemas.ts';
import { BENEFICIARY_RELATIONSHIPS } from './beneficiary.table.ts';

const FullNameSchema = Type.String({ minLength: 1, maxLength: 255 });

export const BeneficiarySchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    full_name: Type.String(),
    member_relationship: StringEnum(BENEFICIARY_RELATIONSHIPS),
    tin_last_four: Nullable(Type.String({ description: 'Last four digits of the SSN or other taxpayer id' })),
    address: Nullable(AddressResponseSchema),
    phone_number: Nullable(Type.String()),
    dob: Nullable(DateSchema),
    created_at: TimestampSchema,
  },
  { title: 'Beneficiary' },
);
describeProperties(BeneficiarySchema, {
  member: 'The member who names the beneficiary (member identifier)',
  full_name: 'Full name of the beneficiary (a person, trust or estate)',
  member_relationship: 'How the beneficiary is related to the member',
  tin_last_four: 'Last four digits of the SSN or other taxpayer id; null when not given',
  address: "The beneficiary's address; null when not given",
  phone_number: 'Phone number; null when not given',
  dob: 'Date of birth; null when not given',
});
export type BeneficiaryResponse = Static<typeof BeneficiarySchema>;

const writable = {
  tin_last_four: Type.Optional(Nullable(LastFourDigitsSchema)),
  address: Type.Optional(Nullable(AddressSchema)),
  phone_number: Type.Optional(Nullable(PhoneNumberSchema)),
  dob: Type.Optional(Nullable(DateSchema)),
};

export const CreateBeneficiaryBodySchema = Type.Object(
  { member: IdSchema, full_name: FullNameSchema, member_relationship: StringEnum(BENEFICIARY_RELATIONSHIPS), ...writable },
  { title: 'CreateBeneficiaryBody', additionalProperties: false },
);
export type CreateBeneficiaryBody = Static<typeof CreateBeneficiaryBodySchema>;

/** A beneficiary stays with the member it was created for: `member` is not accepted here. */
export const UpdateBeneficiaryBodySchema = Type.Object(
  { full_name: Type.Optional(FullNameSchema), member_relationship: Type.Optional(StringEnum(BENEFICIARY_RELATIONSHIPS)), ...writable },
  { title: 'UpdateBeneficiaryBody', additionalProperties: false },
);
export type UpdateBeneficiaryBody = Static<typeof UpdateBeneficiaryBodySchema>;

export const ListBeneficiariesQuerySchema = Type.Object({ ...PageQuerySchema, member: Type.Optional(IdSchema) }, { additionalProperties: false });
