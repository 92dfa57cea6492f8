import { Type, type Static } from 'typebox';
import { IdSchema, MetadataResponseSchema, MetadataSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { ID_PATTERN } from '../../shared/ids.ts';
import { WEBHOOK_DELIVERY_STATUSES } from './webhook.table.ts';

const EventTypeFilterSchema = Type.String({
  pattern: '^(\\*|[a-z_]+\\.(\\*|[a-z_]+))$',
  maxLength: 100,
  description: 'An event type (`enrollment.approved`), every event of an object type (`member.*`), or every event (`*`, alone)',
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    description: Nullable(Type.String()),
    enabled_events: Type.Array(Type.String()),
    disabled: Type.Boolean(),
    disabled_reason: Nullable(
      Type.String({
        description: '`failing` when the service disabled the endpoint after 3 days of failed deliveries; `gone` when its receiver answered 410 Gone',
      }),
    ),
    disabled_at: Nullable(TimestampSchema),
    failing_since: Nullable(TimestampSchema),
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointResponse = Static<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...WebhookEndpointSchema.properties,
    secret: Type.String({ description: 'The signing secret (`whsec_...`). Shown once, here: store it now.' }),
  },
  { title: 'WebhookEndpointWithSecret' },
);
export type WebhookEndpointWithSecretResponse = Static<typeof WebhookEndpointWithSecretSchema>;

const writable = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  disabled: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(MetadataSchema),
};
const UrlFieldSchema = Type.String({ minLength: 1, maxLength: 2048, description: 'https:// URL the events are POSTed to' });
const EnabledEventsSchema = Type.Array(EventTypeFilterSchema, { minItems: 1, maxItems: 100, uniqueItems: true });

export const CreateWebhookEndpointBodySchema = Type.Object(
  { url: UrlFieldSchema, enabled_events: EnabledEventsSchema, ...writable },
  { title: 'CreateWebhookEndpointBody', additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBodySchema>;

export const UpdateWebhookEndpointBodySchema = Type.Object(
  { url: Type.Optional(UrlFieldSchema), enabled_events: Type.Optional(EnabledEventsSchema), ...writable },
  { title: 'UpdateWebhookEndpointBody', additionalProperties: false },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBodySchema>;

export const ListWebhookEndpointsQuerySchema = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });

export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer(),
    status_code: Nullable(Type.Integer()),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String()),
    succeeded: Type.Boolean(),
    created_at: TimestampSchema,
  },
  { title: 'WebhookAttempt' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('webhook_delivery'),
    endpoint: IdSchema,
    event: IdSchema,
    event_type: Type.String(),
    status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(TimestampSchema),
    created_at: TimestampSchema,
    completed_at: Nullable(TimestampSchema),
    attempts: Type.Array(WebhookAttemptSchema, { description: 'Every attempt, oldest first' }),
  },
  { title: 'WebhookDelivery' },
);
export type WebhookDeliveryResponse = Static<typeof WebhookDeliverySchema>;

export const ListWebhookDeliveriesQuerySchema = Type.Object(
  { ...PageQuerySchema, status: Type.Optional(StringEnum(WEBHOOK_DELIVERY_STATUSES)) },
  { additionalProperties: false },
);
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuerySchema>;

export const DeliveryParamsSchema = Type.Object({
  public_id: Type.String({ pattern: ID_PATTERN, maxLength: 64 }),
  delivery_id: Type.String({ pattern: ID_PATTERN, maxLength: 64 }),
});
