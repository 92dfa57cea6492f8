import { Type, type Static } from 'typebox';
import { HOURS_MEASUREMENT_METHODS } from '../coverage/eligibility-loss-rules.ts';
import {
  AddressResponseSchema,
  AddressSchema,
  EmailSchema,
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

export const FederalEinSchema = Type.String({ pattern: '^[0-9]{2}-?[0-9]{7}$', description: 'Employer Identification Number, 9 digits' });
export const PhoneNumberSchema = Type.String({ pattern: '^[0-9]{1,10}$', maxLength: 10, description: 'Digits only, at most 10' });

export const EmployerSchema = Type.Object(
  {
    id: IdSchema,
    legal_name: Type.String(),
    trade_name: Nullable(Type.String()),
    federal_ein: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    address: AddressResponseSchema,
    external_id: Nullable(Type.String()),
    metadata: MetadataResponseSchema,
    hours_measurement_method: StringEnum(HOURS_MEASUREMENT_METHODS),
    stability_period_start: Nullable(Type.String()),
    stability_period_months: Nullable(Type.Integer()),
    created_at: TimestampSchema,
  },
  { title: 'Employer' },
);
describeProperties(EmployerSchema, {
  legal_name: 'Legal name of the employer',
  trade_name: 'Name the employer does business as; null when none',
  federal_ein: 'Federal employer identification number; null when not given',
  email: 'Contact email address; null when not given',
  phone_number: 'Contact phone number, digits only; null when not given',
  external_id: "The employer's id in your system; filter by it with ?external_id=",
  hours_measurement_method: 'How full-time status is measured (26 CFR 54.4980H-3): monthly or look_back',
  stability_period_start: 'MM-DD: the first day of the look-back stability periods each year; null with monthly measurement',
  stability_period_months: 'Length of a look-back stability period: 6 or 12 months; null with monthly measurement',
});
export type EmployerResponse = Static<typeof EmployerSchema>;

const writable = {
  trade_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  federal_ein: Type.Optional(Nullable(FederalEinSchema)),
  email: Type.Optional(Nullable(EmailSchema)),
  phone_number: Type.Optional(Nullable(PhoneNumberSchema)),
  external_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  metadata: Type.Optional(MetadataSchema),
  hours_measurement_method: Type.Optional(
    StringEnum(HOURS_MEASUREMENT_METHODS, {
      description:
        'How full-time status is measured (26 CFR 54.4980H-3): monthly (default) or look_back; decides when a loss of eligibility by hours ends coverage.',
    }),
  ),
  stability_period_start: Type.Optional(
    Nullable(Type.String({ pattern: '^[0-9]{2}-[0-9]{2}$', description: 'MM-DD: the first day of the stability periods each year; required with look_back.' })),
  ),
  stability_period_months: Type.Optional(
    Nullable(Type.Integer({ minimum: 6, maximum: 12, description: 'Length of a stability period: 6 or 12 months; required with look_back.' })),
  ),
};

export const CreateEmployerBodySchema = Type.Object(
  { legal_name: Type.String({ minLength: 1, maxLength: 255 }), address: AddressSchema, ...writable },
  { title: 'CreateEmployerBody', additionalProperties: false },
);
export type CreateEmployerBody = Static<typeof CreateEmployerBodySchema>;

export const UpdateEmployerBodySchema = Type.Object(
  { legal_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), address: Type.Optional(AddressSchema), ...writable },
  { title: 'UpdateEmployerBody', additionalProperties: false },
);
export type UpdateEmployerBody = Static<typeof UpdateEmployerBodySchema>;

export const ListEmployersQuerySchema = Type.Object(
  { ...PageQuerySchema, external_id: ExternalIdQuerySchema("Only the employers with this external_id (the integrator's own id)") },
  { additionalProperties: false },
);
