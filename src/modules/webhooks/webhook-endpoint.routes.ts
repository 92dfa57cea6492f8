import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import {
  CreateWebhookEndpointBodySchema,
  DeliveryParamsSchema,
  ListWebhookDeliveriesQuerySchema,
  ListWebhookEndpointsQuerySchema,
  UpdateWebhookEndpointBodySchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook-endpoint.schemas.ts';
import type { WebhookEndpointService } from './webhook-endpoint.service.ts';

const tags = ['Webhooks'];

/** `/webhook_endpoints`: admin keys manage where their provider's events are pushed (docs/decisions.md "Webhooks"). */
export function registerWebhookEndpointRoutes(app: FastifyInstance, deps: { webhooks: WebhookEndpointService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks, pages } = deps;
  const config = { access: 'admin' as const };

  api.post(
    '/webhook_endpoints',
    {
      config,
      schema: {
        tags,
        summary: 'Create a webhook endpoint (its signing secret is in this response only)',
        body: CreateWebhookEndpointBodySchema,
        response: { 201: WebhookEndpointWithSecretSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.createEndpoint(request.auth.providerId, request.body)),
  );

  api.get(
    '/webhook_endpoints',
    {
      config,
      schema: {
        tags,
        summary: 'List webhook endpoints, newest first',
        querystring: ListWebhookEndpointsQuerySchema,
        response: { 200: PageSchema(WebhookEndpointSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => pages.pageResponse(request, await webhooks.listEndpoints(request.auth.providerId, pages.pageRequest(request, request.query))),
  );

  api.get(
    '/webhook_endpoints/:public_id',
    {
      config,
      schema: {
        tags,
        summary: 'Retrieve a webhook endpoint',
        params: IdParamsSchema,
        response: { 200: WebhookEndpointSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.getEndpoint(request.auth.providerId, request.params.public_id),
  );

  api.patch(
    '/webhook_endpoints/:public_id',
    {
      config,
      schema: {
        tags,
        summary: 'Update a webhook endpoint ("disabled": false enables it again)',
        params: IdParamsSchema,
        body: UpdateWebhookEndpointBodySchema,
        response: { 200: WebhookEndpointSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => webhooks.updateEndpoint(request.auth.providerId, request.params.public_id, request.body),
  );

  api.delete(
    '/webhook_endpoints/:public_id',
    {
      config,
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its deliveries',
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.deleteEndpoint(request.auth.providerId, request.params.public_id),
  );

  api.post(
    '/webhook_endpoints/:public_id/rotate_secret',
    {
      config,
      schema: {
        tags,
        summary: 'Rotate the signing secret (the new one is in this response only; the old one also signs for 24 hours)',
        params: IdParamsSchema,
        response: { 200: WebhookEndpointWithSecretSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => webhooks.rotateSecret(request.auth.providerId, request.params.public_id),
  );

  api.get(
    '/webhook_endpoints/:public_id/deliveries',
    {
      config,
      schema: {
        tags,
        summary: "List an endpoint's deliveries, newest first, each with its attempts",
        params: IdParamsSchema,
        querystring: ListWebhookDeliveriesQuerySchema,
        response: { 200: PageSchema(WebhookDeliverySchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await webhooks.listDeliveries(request.auth.providerId, request.params.public_id, filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.post(
    '/webhook_endpoints/:public_id/deliveries/:delivery_id/retry',
    {
      config,
      schema: {
        tags,
        summary: 'Send a delivery again now',
        params: DeliveryParamsSchema,
        response: { 200: WebhookDeliverySchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => webhooks.retryDelivery(request.auth.providerId, request.params.public_id, request.params.delivery_id),
  );
}
