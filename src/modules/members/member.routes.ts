import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreateMemberBodySchema, EmploymentHistorySchema, ListMembersQuerySchema, MemberSchema, UpdateMemberBodySchema } from './member.schemas.ts';
import type { MemberService } from './member.service.ts';

export function registerMemberRoutes(app: FastifyInstance, deps: { members: MemberService; pages: Paginator }): void {
  const { members, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/members',
    tags: ['Members'],
    record: MemberSchema,
    create: {
      summary: 'Create a member (employee); ssn is write-only',
      body: CreateMemberBodySchema,
      run: (scope, body) => members.createMember(scope, body),
    },
    list: {
      summary: 'List members, newest first',
      query: ListMembersQuerySchema,
      run: (scope, filter, page) => members.listMembers(scope, filter, page),
    },
    get: { summary: 'Retrieve a member', run: (scope, id) => members.getMember(scope, id) },
    update: {
      summary: 'Update a member; set termination_date to record that the employee left',
      body: UpdateMemberBodySchema,
      run: (scope, id, body) => members.updateMember(scope, id, body),
    },
    remove: {
      summary: 'Permanently delete a member entered in error (with their dependents, beneficiaries, pay rates, ID cards and unsent enrollments)',
      run: (scope, id) => members.deleteMember(scope, id),
    },
  });

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/members/:public_id/employment_history',
    {
      schema: {
        tags: ['Members'],
        summary: "The member's employment history: hires, terminations, rehires, leaves and changes of hours or status, oldest first (not paginated)",
        params: IdParamsSchema,
        response: { 200: EmploymentHistorySchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => members.getEmploymentHistory(scopeOf(request.auth), request.params.public_id),
  );
}
