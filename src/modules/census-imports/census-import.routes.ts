import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { acceptCsvBodies, jsonOrCsvBody, jsonOrCsvOf } from '../../http/csv-body.ts';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { validationFailed } from '../../shared/errors.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  ApplyCensusImportBodySchema,
  CENSUS_CSV_DESCRIPTION,
  CreateCensusImportBodySchema,
  CensusImportRowSchema,
  CensusImportSchema,
  CreateCensusImportQuerySchema,
  ListCensusImportRowsQuerySchema,
  type ApplyCensusImportBody,
  type CreateCensusImportBody,
} from './census-import.schemas.ts';
import type { CensusImportService } from './census-import.service.ts';

/** 50,000 employees with their families as CSV is about 20 MiB; the limit leaves room, and holds only for this route. */
export const CENSUS_IMPORT_BODY_LIMIT = 48 * 1024 * 1024;

export function registerCensusImportRoutes(app: FastifyInstance, deps: { censusImports: CensusImportService; pages: Paginator }): void {
  const { censusImports, pages } = deps;
  void app.register(async (scoped) => {
    acceptCsvBodies(scoped);
    const api = scoped.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/census_imports',
      {
        bodyLimit: CENSUS_IMPORT_BODY_LIMIT,
        schema: {
          tags: ['Members'],
          summary: "Upload an employer's roster (CSV or JSON rows) as a dry run: nothing is written to members until it is applied",
          description:
            'CSV (Content-Type: text/csv, ?employer=ID) or JSON { employer, rows }. Answers 202 with the import: status checking, then checked (or failed); GET shows processed_rows of total_rows and the summary, GET /census_imports/{id}/rows the diff. Members missing from the file are listed, never terminated. docs/decisions.md "Census imports".',
          querystring: CreateCensusImportQuerySchema,
          body: jsonOrCsvBody(CreateCensusImportBodySchema, CENSUS_CSV_DESCRIPTION),
          response: { 202: CensusImportSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const scope = scopeOf(request.auth);
        const body = jsonOrCsvOf<CreateCensusImportBody>(request.body, 'the roster');
        const created =
          typeof body === 'string'
            ? await censusImports.createImport(scope, employerOf(request.query.employer), { format: 'csv', content: body }, request.query.max_termination_share)
            : await censusImports.createImport(
                scope,
                body.employer,
                { format: 'json', rows: body.rows },
                body.max_termination_share ?? request.query.max_termination_share,
              );
        return reply.code(202).send(created);
      },
    );
  });

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/census_imports/:public_id',
    {
      schema: {
        tags: ['Members'],
        summary: "Retrieve a census import: status, progress (processed_rows of total_rows) and the diff's summary",
        params: IdParamsSchema,
        response: { 200: CensusImportSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => censusImports.getImport(scopeOf(request.auth), request.params.public_id),
  );
  api.get(
    '/census_imports/:public_id/rows',
    {
      schema: {
        tags: ['Members'],
        summary: "A census import's diff, in the file's order: ?kind=create|update|unchanged|error|missing",
        params: IdParamsSchema,
        querystring: ListCensusImportRowsQuerySchema,
        response: { 200: PageSchema(CensusImportRowSchema), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, kind } = request.query;
      const page = await censusImports.listRows(scopeOf(request.auth), request.params.public_id, kind, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );
  api.post(
    '/census_imports/:public_id/apply',
    {
      schema: {
        tags: ['Members'],
        summary: 'Apply a checked census import: exactly the reviewed diff, error rows skipped; a second apply is a no-op',
        description:
          'Through the member and dependent services (events, notifications, terminations ending coverage). 409 census_record_changed when a record the diff changes was changed since the dry run (nothing applied); 409 confirmation_required when the file terminates more than max_termination_share of the employed members without confirm_terminations. docs/decisions.md "Census imports".',
        params: IdParamsSchema,
        body: ApplyCensusImportBodySchema,
        response: { 200: CensusImportSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      // No body at all reads as none (OptionalBodySchema): the schema's type cannot say so.
      const body = request.body as ApplyCensusImportBody | null | undefined;
      return censusImports.applyImport(scopeOf(request.auth), request.params.public_id, body?.confirm_terminations === true);
    },
  );
}

function employerOf(employer: string | undefined): string {
  if (employer === undefined) throw validationFailed(['employer'], 'A CSV upload names its employer in the query: POST /census_imports?employer=ID.');
  return employer;
}
