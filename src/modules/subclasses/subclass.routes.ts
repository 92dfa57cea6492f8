import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { SubclassService } from './subclass.service.ts';
import { CreateSubclassBodySchema, ListSubclassesQuerySchema, SubclassSchema, UpdateSubclassBodySchema } from './subclass.schemas.ts';

const tags = ['Subclasses'];

export function registerSubclassRoutes(app: FastifyInstance, deps: { subclasses: SubclassService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subclasses, pages } = deps;

  api.post(
    '/subclasses',
    {
      schema: {
        tags,
        summary: 'Create a subclass (department, location, ...) of an employer',
        body: CreateSubclassBodySchema,
        response: { 201: SubclassSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await subclasses.createSubclass(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/subclasses',
    {
      schema: {
        tags,
        summary: 'List subclasses, newest first (?employer= to filter)',
        querystring: ListSubclassesQuerySchema,
        response: { 200: PageSchema(SubclassSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const page = await subclasses.listSubclasses(scopeOf(request.auth), request.query, pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/subclasses/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a subclass',
        params: IdParamsSchema,
        response: { 200: SubclassSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => subclasses.getSubclass(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/subclasses/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a subclass',
        params: IdParamsSchema,
        body: UpdateSubclassBodySchema,
        response: { 200: SubclassSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => subclasses.updateSubclass(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
