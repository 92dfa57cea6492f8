import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import type { Paginator } from '../../http/pagination.ts';
import type { ApiKeyService } from './api-key.service.ts';
import { ApiKeySchema, CreateApiKeyBodySchema, CreatedApiKeySchema, ListApiKeysQuerySchema } from './api-key.schemas.ts';

const tags = ['API keys'];

/** `/api_keys`: admin keys manage their provider's keys (README.md "Using the API"). */
export function registerApiKeyRoutes(app: FastifyInstance, deps: { apiKeys: ApiKeyService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys, pages } = deps;

  api.post(
    '/api_keys',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create an API key (the key is in this response only)',
        body: CreateApiKeyBodySchema,
        response: { 201: CreatedApiKeySchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await apiKeys.createKey(request.auth.providerId, request.body));
    },
  );

  api.get(
    '/api_keys',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List API keys',
        querystring: ListApiKeysQuerySchema,
        response: { 200: PageSchema(ApiKeySchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const page = await apiKeys.listKeys(request.auth.providerId, pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.delete(
    '/api_keys/:public_id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Revoke an API key (refused from the next request on)',
        params: IdParamsSchema,
        response: { 200: ApiKeySchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => apiKeys.revokeKey(request.auth.providerId, request.params.public_id),
  );
}
