import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreateMemberIdCardBodySchema, ListMemberIdCardsQuerySchema, MemberIdCardSchema } from './member-id-card.schemas.ts';
import type { MemberIdCardService } from './member-id-card.service.ts';

const tags = ['Member ID cards'];

export function registerMemberIdCardRoutes(app: FastifyInstance, deps: { memberIdCards: MemberIdCardService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { memberIdCards, pages } = deps;

  api.post(
    '/member_id_cards',
    {
      schema: {
        tags,
        summary: "Create a member's ID card and assign it to enrolled plans and enrolled dependents of the member",
        body: CreateMemberIdCardBodySchema,
        response: { 201: MemberIdCardSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await memberIdCards.createMemberIdCard(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/member_id_cards',
    {
      schema: {
        tags,
        summary: 'List member ID cards, newest first (?member= to filter)',
        querystring: ListMemberIdCardsQuerySchema,
        response: { 200: PageSchema(MemberIdCardSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await memberIdCards.listMemberIdCards(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/member_id_cards/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a member ID card',
        params: IdParamsSchema,
        response: { 200: MemberIdCardSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => memberIdCards.getMemberIdCard(scopeOf(request.auth), request.params.public_id),
  );

  api.delete(
    '/member_id_cards/:public_id',
    {
      schema: {
        tags,
        summary: 'Permanently delete a member ID card; coverage that used it loses the assignment, a linked document stays',
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => memberIdCards.deleteMemberIdCard(scopeOf(request.auth), request.params.public_id),
  );
}
