import { Type, type Static } from 'typebox';
import {
  AddressResponseSchema,
  AddressSchema,
  EmailSchema,
  IdSchema,
  MetadataResponseSchema,
  MetadataSchema,
  Nullable,
  PageQuerySchema,
  TimestampSchema,
  describeProperties,
} from '../../http/schemas.ts';
import { ID_PATTERN } from '../../shared/ids.ts';
import { FederalEinSchema, PhoneNumberSchema } from '../employers/employer.schemas.ts';

const NameSchema = Type.String({ minLength: 1, maxLength: 255 });

export const BusinessUnitSchema = Type.Object(
  {
    id: IdSchema,
    public_id: Type.String({ pattern: ID_PATTERN, maxLength: 30, description: 'The same value as id' }),
    employer: IdSchema,
    legal_name: Type.String({ maxLength: 255 }),
    trade_name: Nullable(Type.String({ maxLength: 255 })),
    federal_ein: Nullable(Type.String({ maxLength: 255 })),
    is_primary: Type.Boolean({ description: "Whether this is the employer's primary business unit (at most one is)" }),
    address: Nullable(AddressResponseSchema),
    phone_number: Nullable(Type.String({ maxLength: 10 })),
    email: Nullable(Type.String({ maxLength: 255 })),
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'BusinessUnit' },
);
describeProperties(BusinessUnitSchema, {
  employer: 'The employer the unit belongs to (employer identifier)',
  legal_name: 'Legal name of the business unit',
  trade_name: 'Name the unit does business as; null when none',
  federal_ein: 'Federal employer identification number of the unit; null when not given',
  address: "The unit's address; null when not given",
  phone_number: 'Phone number, digits only, at most 10; null when not given',
  email: 'Contact email address; null when not given',
});
export type BusinessUnitResponse = Static<typeof BusinessUnitSchema>;

const writable = {
  trade_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  federal_ein: Type.Optional(Nullable(FederalEinSchema)),
  address: Type.Optional(Nullable(AddressSchema)),
  phone_number: Type.Optional(Nullable(PhoneNumberSchema)),
  email: Type.Optional(Nullable(EmailSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateBusinessUnitBodySchema = Type.Object(
  {
    employer: IdSchema,
    legal_name: NameSchema,
    is_primary: Type.Optional(Type.Boolean({ default: false, description: "Making one primary unsets the employer's others" })),
    ...writable,
  },
  { title: 'CreateBusinessUnitBody', additionalProperties: false },
);
export type CreateBusinessUnitBody = Static<typeof CreateBusinessUnitBodySchema>;

/** The employer of a business unit is fixed; members and plans hang off it. */
export const UpdateBusinessUnitBodySchema = Type.Object(
  { legal_name: Type.Optional(NameSchema), is_primary: Type.Optional(Type.Boolean()), ...writable },
  { title: 'UpdateBusinessUnitBody', additionalProperties: false },
);
export type UpdateBusinessUnitBody = Static<typeof UpdateBusinessUnitBodySchema>;

export const ListBusinessUnitsQuerySchema = Type.Object({ ...PageQuerySchema, employer: Type.Optional(IdSchema) }, { additionalProperties: false });
