import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateMemberBodySchema, ListMembersQuerySchema, MemberSchema, UpdateMemberBodySchema } from './member.schemas.ts';
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
}
