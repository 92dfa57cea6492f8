import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateMemberIdCardBodySchema, ListMemberIdCardsQuerySchema, MemberIdCardSchema } from './member-id-card.schemas.ts';
import type { MemberIdCardService } from './member-id-card.service.ts';

/** Member ID cards have no PATCH (docs/decisions.md "Documents and member ID cards"): a changed card is deleted and created anew. */
export function registerMemberIdCardRoutes(app: FastifyInstance, deps: { memberIdCards: MemberIdCardService; pages: Paginator }): void {
  const { memberIdCards, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/member_id_cards',
    tags: ['Member ID cards'],
    record: MemberIdCardSchema,
    create: {
      summary: "Create a member's ID card and assign it to enrolled plans and enrolled dependents of the member",
      body: CreateMemberIdCardBodySchema,
      run: (scope, body) => memberIdCards.createMemberIdCard(scope, body),
    },
    list: {
      summary: 'List member ID cards, newest first (?member= to filter)',
      query: ListMemberIdCardsQuerySchema,
      run: (scope, filter, page) => memberIdCards.listMemberIdCards(scope, filter, page),
    },
    get: { summary: 'Retrieve a member ID card', run: (scope, id) => memberIdCards.getMemberIdCard(scope, id) },
    remove: {
      summary: 'Permanently delete a member ID card; coverage that used it loses the assignment, a linked document stays',
      run: (scope, id) => memberIdCards.deleteMemberIdCard(scope, id),
    },
  });
}
