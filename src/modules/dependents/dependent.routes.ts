import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { assertCanWrite, scopeOf } from '../../shared/tenancy.ts';
import { CreateDependentBodySchema, DependentSchema, ListDependentsQuerySchema, UpdateDependentBodySchema } from './dependent.schemas.ts';
import type { DependentService } from './dependent.service.ts';

const tags = ['Dependents'];

export function registerDependentRoutes(app: FastifyInstance, deps: { dependents: DependentService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { dependents, pages } = deps;

  api.post(
    '/dependents',
    {
      schema: {
        tags,
        summary: "Create a dependent of a member (the member's spouse, child, ...)",
        body: CreateDependentBodySchema,
        response: { 201: DependentSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      assertCanWrite(request.auth);
      return reply.code(201).send(await dependents.createDependent(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/dependents',
    {
      schema: {
        tags,
        summary: 'List dependents, newest first (?member= to filter)',
        querystring: ListDependentsQuerySchema,
        response: { 200: PageSchema(DependentSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await dependents.listDependents(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/dependents/:public_id',
    {
      schema: { tags, summary: 'Retrieve a dependent', params: IdParamsSchema, response: { 200: DependentSchema, ...errorResponses(401, 404, 429) } },
    },
    async (request) => dependents.getDependent(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/dependents/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a dependent (metadata is merged; the member cannot change)',
        params: IdParamsSchema,
        body: UpdateDependentBodySchema,
        response: { 200: DependentSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return dependents.updateDependent(scopeOf(request.auth), request.params.public_id, request.body);
    },
  );

  api.delete(
    '/dependents/:public_id',
    {
      schema: {
        tags,
        summary: 'Delete a dependent entered in error (409 once their coverage was sent to a carrier: end it through an enrollment)',
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return dependents.deleteDependent(scopeOf(request.auth), request.params.public_id);
    },
  );
}
