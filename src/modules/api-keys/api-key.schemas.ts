import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { API_KEY_ROLES } from './api-key.table.ts';

export const ApiKeySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('api_key'),
    role: StringEnum(API_KEY_ROLES),
    employer: Nullable(IdSchema),
    name: Nullable(Type.String()),
    redacted_key: Type.String({ description: 'The first and last characters of the key, for recognising it' }),
    created_at: TimestampSchema,
    revoked_at: Nullable(TimestampSchema),
  },
  { title: 'ApiKey' },
);

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    key: Type.String({ description: 'The API key. Shown once, here; only its hash is stored.' }),
  },
  { title: 'CreatedApiKey' },
);

export const CreateApiKeyBodySchema = Type.Object(
  {
    role: StringEnum(API_KEY_ROLES),
    employer: Type.Optional(Nullable(IdSchema)),
    name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { title: 'CreateApiKeyBody', additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

export const ListApiKeysQuerySchema = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });
