import { pipeline } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { createCsvWriter } from '../../shared/csv.ts';
import { scopeOf, type Scope } from '../../shared/tenancy.ts';
import {
  CreateWindowBodySchema,
  IncompleteMemberSchema,
  IncompleteMembersQuerySchema,
  ListWindowsQuerySchema,
  OpenEnrollmentWindowSchema,
  UpdateWindowBodySchema,
} from './open-enrollment-window.schemas.ts';
import type { OpenEnrollmentWindowService } from './open-enrollment-window.service.ts';

const tags = ['Open enrollment windows'];
const path = '/open_enrollment_windows';
export const INCOMPLETE_MEMBERS_CSV_COLUMNS = ['member', 'first_name', 'last_name', 'email', 'enrollment', 'enrollment_status'] as const;

export function registerOpenEnrollmentWindowRoutes(app: FastifyInstance, deps: { windows: OpenEnrollmentWindowService; pages: Paginator }): void {
  const { windows, pages } = deps;
  registerResourceRoutes(app, pages, {
    path,
    tags,
    record: OpenEnrollmentWindowSchema,
    create: {
      summary: 'Create an open enrollment window (setup_required until it has plans and all three dates, then build_in_progress)',
      body: CreateWindowBodySchema,
      run: (scope, body) => windows.createWindow(scope, body),
    },
    list: {
      summary: 'List open enrollment windows, newest first',
      query: ListWindowsQuerySchema,
      run: (scope, filter, page) => windows.listWindows(scope, filter, page),
    },
    get: { summary: 'Retrieve an open enrollment window with its member counts', run: (scope, id) => windows.getWindow(scope, id) },
    update: {
      summary: 'Update a window: dates and plans before it is active, enrollment_type before it is completed, metadata always',
      body: UpdateWindowBodySchema,
      run: (scope, id, body) => windows.updateWindow(scope, id, body),
    },
  });

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const actions = [
    [
      'activate',
      'Open the window to members (build_in_progress → active) and send the kickoff notifications',
      (scope: Scope, id: string) => windows.activateWindow(scope, id),
    ],
    ['close', 'Close the window to submissions (active → closed)', (scope: Scope, id: string) => windows.closeWindow(scope, id)],
    [
      'complete',
      'Complete a closed window: freeze its counts and, for a passive window, carry over the elections of members who did nothing, each renewed plan moved to its successor (closed → completed)',
      (scope: Scope, id: string) => windows.completeWindow(scope, id),
    ],
  ] as const;
  for (const [action, summary, run] of actions) {
    api.post(
      `${path}/:public_id/${action}`,
      {
        config: { access: 'write' },
        schema: { tags, summary, params: IdParamsSchema, response: { 200: OpenEnrollmentWindowSchema, ...errorResponses(400, 401, 403, 404, 409, 429) } },
      },
      async (request) => run(scopeOf(request.auth), request.params.public_id),
    );
  }

  api.get(
    `${path}/:public_id/change_report`,
    {
      config: { access: 'read' },
      schema: {
        tags,
        summary: 'The window with one summary per member and line of coverage its enrollments changed',
        params: IdParamsSchema,
        response: { 200: OpenEnrollmentWindowSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => windows.reports.changeReport(scope(request), request.params.public_id),
  );

  api.get(
    `${path}/:public_id/incomplete_members_report`,
    {
      config: { access: 'read' },
      schema: {
        tags,
        summary: 'Eligible members without a submitted enrollment in the window: a paginated list, or every row as CSV with ?format=csv',
        params: IdParamsSchema,
        querystring: IncompleteMembersQuerySchema,
        response: {
          200: {
            description: 'A page of rows; with ?format=csv, every row as CSV (header row first)',
            content: {
              'application/json': { schema: PageSchema(IncompleteMemberSchema) },
              'text/csv': { schema: Type.String({ description: `CSV with the columns ${INCOMPLETE_MEMBERS_CSV_COLUMNS.join(', ')}` }) },
            },
          },
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { cursor, page_size, format } = request.query;
      if (format === 'csv') {
        const rows = await windows.reports.incompleteMembersRows(scope(request), request.params.public_id);
        const csv = createCsvWriter(INCOMPLETE_MEMBERS_CSV_COLUMNS);
        pipeline(rows, csv, (error) => {
          if (error) request.log.error({ err: error }, 'incomplete members CSV stopped');
        });
        // A stream is sent as it is (the JSON response schema does not apply to it).
        return (reply as FastifyReply)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="incomplete-members-${request.params.public_id}.csv"`)
          .send(csv);
      }
      const page = await windows.reports.incompleteMembersPage(scope(request), request.params.public_id, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );
}

function scope(request: { auth: Parameters<typeof scopeOf>[0] }): Scope {
  return scopeOf(request.auth);
}
