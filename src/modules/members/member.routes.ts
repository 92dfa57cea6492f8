import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  CreateEmploymentEventBodySchema,
  CreateMemberBodySchema,
  EmploymentEventSchema,
  EmploymentHistorySchema,
  ListMembersQuerySchema,
  MemberSchema,
  RehireMemberBodySchema,
  UpdateMemberBodySchema,
} from './member.schemas.ts';
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

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    '/members/:public_id/rehire',
    {
      schema: {
        tags: ['Members'],
        summary: 'Rehire a terminated member: the rehire rule (by days away) decides the waiting period and whether prior elections are reinstated',
        description:
          'Back within 30 days of termination_date: reinstated (the coverage the termination ended goes on from rehire_date unless elections is elect_anew); within 13 weeks: a continuing employee (no new waiting period); later: a new hire. hire_date becomes rehire_date, original_hire_date stays. docs/decisions.md "Employment history".',
        params: IdParamsSchema,
        body: RehireMemberBodySchema,
        response: { 200: MemberSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => members.rehireMember(scopeOf(request.auth), request.params.public_id, request.body),
  );

  api.post(
    '/members/:public_id/employment_events',
    {
      schema: {
        tags: ['Members'],
        summary: "Record a leave of absence (with its leave_type) or the return from it in the member's employment history",
        params: IdParamsSchema,
        body: CreateEmploymentEventBodySchema,
        response: { 201: EmploymentEventSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const created = await members.recordEmploymentEvent(scopeOf(request.auth), request.params.public_id, request.body);
      return reply.code(201).send(created);
    },
  );

  api.get(
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
