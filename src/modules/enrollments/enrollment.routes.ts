import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { assertAdmin, scopeOf, type AuthContext, type Scope } from '../../shared/tenancy.ts';
import {
  CreateEnrollmentBodySchema,
  EnrollmentSchema,
  ListEnrollmentsQuerySchema,
  UpdateEnrollmentBodySchema,
  isEoiDecisionBody,
} from './enrollment.schemas.ts';
import type { EnrollmentService } from './enrollment.service.ts';

const tags = ['Enrollments'];

export function registerEnrollmentRoutes(app: FastifyInstance, deps: { enrollments: EnrollmentService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { drafts, eoiDecisions, approvals } = deps.enrollments;
  const { pages } = deps;

  api.post(
    '/enrollments',
    {
      schema: {
        tags,
        summary: 'Create an enrollment (not_started; a carrier_sync enrollment records existing coverage as synced)',
        body: CreateEnrollmentBodySchema,
        response: { 201: EnrollmentSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await drafts.create(scopeOf(request.auth), request.body, overrideBy(request.auth, request.body))),
  );

  api.get(
    '/enrollments',
    {
      schema: {
        tags,
        summary: 'List enrollments, newest first',
        querystring: ListEnrollmentsQuerySchema,
        response: { 200: PageSchema(EnrollmentSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      return pages.pageResponse(request, await drafts.list(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size })));
    },
  );

  api.get(
    '/enrollments/:public_id',
    { schema: { tags, summary: 'Retrieve an enrollment', params: IdParamsSchema, response: { 200: EnrollmentSchema, ...errorResponses(401, 404, 429) } } },
    async (request) => drafts.get(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/enrollments/:public_id',
    {
      schema: {
        tags,
        summary: 'Edit a not_started enrollment (lists are replaced whole), or record EOI decisions (before or after approval)',
        params: IdParamsSchema,
        body: UpdateEnrollmentBodySchema,
        response: { 200: EnrollmentSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const scope = scopeOf(request.auth);
      const by = overrideBy(request.auth, request.body);
      // One PATCH, two use cases: a body naming enrolled plans by id records EOI decisions; any other edits.
      return isEoiDecisionBody(request.body)
        ? eoiDecisions.decide(scope, request.params.public_id, request.body)
        : drafts.edit(scope, request.params.public_id, request.body, by);
    },
  );

  const actions = [
    ['save_and_submit', 'Validate every election and submit the enrollment (not_started → pending)', (scope: Scope, id: string) => drafts.submit(scope, id)],
    ['reopen', 'Reopen a pending enrollment for editing (pending → not_started)', (scope: Scope, id: string) => drafts.reopen(scope, id)],
    ['cancel', 'Cancel an enrollment that is not_started or pending', (scope: Scope, id: string) => drafts.cancel(scope, id)],
    [
      'approve',
      'Approve a submitted enrollment and send its changes to the carriers (pending → approved)',
      (scope: Scope, id: string) => approvals.approve(scope, id),
    ],
  ] as const;
  for (const [action, summary, run] of actions) {
    api.post(
      `/enrollments/:public_id/${action}`,
      { schema: { tags, summary, params: IdParamsSchema, response: { 200: EnrollmentSchema, ...errorResponses(400, 401, 403, 404, 409, 429) } } },
      async (request) => run(scopeOf(request.auth), request.params.public_id),
    );
  }
}

/** The admin API key setting or clearing `rules_override` (403 for any other key); null when the body has none. */
function overrideBy(auth: AuthContext, body: { rules_override?: unknown }): string | null {
  if (body.rules_override === undefined) return null;
  assertAdmin(auth);
  return auth.apiKeyId;
}
