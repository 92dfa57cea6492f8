import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { GroupService } from './group.service.ts';
import { CreateGroupBodySchema, GroupSchema, ListGroupsQuerySchema, UpdateGroupBodySchema } from './group.schemas.ts';

const tags = ['Groups'];

export function registerGroupRoutes(app: FastifyInstance, deps: { groups: GroupService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { groups, pages } = deps;

  api.post(
    '/groups',
    {
      schema: {
        tags,
        summary: "Create a group: an employer's policy with a carrier",
        body: CreateGroupBodySchema,
        response: { 201: GroupSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await groups.createGroup(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/groups',
    {
      schema: {
        tags,
        summary: 'List groups, newest first (?employer= to filter)',
        querystring: ListGroupsQuerySchema,
        response: { 200: PageSchema(GroupSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const page = await groups.listGroups(scopeOf(request.auth), request.query, pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/groups/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a group',
        params: IdParamsSchema,
        response: { 200: GroupSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => groups.getGroup(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/groups/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a group (its employer cannot change)',
        params: IdParamsSchema,
        body: UpdateGroupBodySchema,
        response: { 200: GroupSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => groups.updateGroup(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
