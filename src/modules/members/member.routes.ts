import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreateMemberBodySchema, ListMembersQuerySchema, MemberSchema, UpdateMemberBodySchema } from './member.schemas.ts';
import type { MemberService } from './member.service.ts';

const tags = ['Members'];

export function registerMemberRoutes(app: FastifyInstance, deps: { members: MemberService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { members, pages } = deps;

  api.post(
    '/members',
    {
      schema: {
        tags,
        summary: 'Create a member (employee); ssn is write-only',
        body: CreateMemberBodySchema,
        response: { 201: MemberSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await members.createMember(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/members',
    {
      schema: {
        tags,
        summary: 'List members, newest first',
        querystring: ListMembersQuerySchema,
        response: { 200: PageSchema(MemberSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await members.listMembers(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/members/:public_id',
    {
      schema: { tags, summary: 'Retrieve a member', params: IdParamsSchema, response: { 200: MemberSchema, ...errorResponses(401, 404, 429) } },
    },
    async (request) => members.getMember(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/members/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a member; set termination_date to record that the employee left',
        params: IdParamsSchema,
        body: UpdateMemberBodySchema,
        response: { 200: MemberSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => members.updateMember(scopeOf(request.auth), request.params.public_id, request.body),
  );

  api.delete(
    '/members/:public_id',
    {
      schema: {
        tags,
        summary: 'Permanently delete a member entered in error (with their dependents, beneficiaries, pay rates, ID cards and unsent enrollments)',
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => members.deleteMember(scopeOf(request.auth), request.params.public_id),
  );
}
