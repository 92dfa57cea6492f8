import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, TimestampSchema, UrlSchema, describeProperties } from '../../http/schemas.ts';

export const CarrierSchema = Type.Object(
  {
    id: IdSchema,
    legal_name: Type.String(),
    trade_name: Nullable(Type.String()),
    logo_url: Nullable(Type.String({ description: 'URL of the carrier logo' })),
    created_at: TimestampSchema,
  },
  { title: 'Carrier' },
);
describeProperties(CarrierSchema, {
  legal_name: 'Legal name of the insurance carrier',
  trade_name: 'Name the carrier does business as; null when none',
  logo_url: "URL of the carrier's logo; null when none",
});
export type CarrierResponse = Static<typeof CarrierSchema>;

const writable = {
  trade_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  logo_url: Type.Optional(Nullable(UrlSchema)),
};

export const CreateCarrierBodySchema = Type.Object(
  { legal_name: Type.String({ minLength: 1, maxLength: 255 }), ...writable },
  { title: 'CreateCarrierBody', additionalProperties: false },
);
export type CreateCarrierBody = Static<typeof CreateCarrierBodySchema>;

export const UpdateCarrierBodySchema = Type.Object(
  { legal_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), ...writable },
  { title: 'UpdateCarrierBody', additionalProperties: false },
);
export type UpdateCarrierBody = Static<typeof UpdateCarrierBodySchema>;

export const ListCarriersQuerySchema = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });
