import { pipeline, Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { createCsvWriter } from '../../shared/csv.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  CreatePayrollRunBodySchema,
  ListPayrollRunsQuerySchema,
  MemberDeductionsSchema,
  PAYROLL_DEDUCTIONS_CSV_COLUMNS,
  PayrollDeductionsQuerySchema,
  PayrollRunSchema,
} from './payroll-deduction.schemas.ts';
import type { PayrollDeductionService } from './payroll-deduction.service.ts';
import type { PayrollRunService } from './payroll-run.service.ts';

const tags = ['Payroll'];

export function registerPayrollDeductionRoutes(
  app: FastifyInstance,
  deps: { deductions: PayrollDeductionService; runs: PayrollRunService; pages: Paginator },
): void {
  const { deductions, runs, pages } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/payroll_deductions',
    {
      schema: {
        tags,
        summary:
          "An employer's payroll deductions for the pay period containing a date: per member and deduction code, with changes and retroactive adjustments",
        description:
          'Per member (paid on their pay_schedule, else the employer default) and deduction code: the amounts of the pay period containing pay_date (member pre-tax and post-tax, employer, imputed income), what changed since the previous pay date, and adjustment lines for pay periods already paid (POST /payroll_runs) whose amounts changed since (arrears positive, refunds negative), until a run takes them. A page of members, or every row as CSV with ?format=csv. docs/decisions.md "Pay schedules and payroll deductions".',
        querystring: PayrollDeductionsQuerySchema,
        response: {
          200: {
            description: 'A page of members; with ?format=csv, every row as CSV (header row first)',
            content: {
              'application/json': { schema: PageSchema(MemberDeductionsSchema) },
              'text/csv': { schema: Type.String({ description: `CSV with the columns ${PAYROLL_DEDUCTIONS_CSV_COLUMNS.join(', ')}` }) },
            },
          },
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { cursor, page_size, format, ...query } = request.query;
      const scope = scopeOf(request.auth);
      if (format === 'csv') {
        const rows = deductions.csvRows(scope, query);
        // The first rows are read before answering, so that a refusal (404, 400) is an error response, not a broken stream.
        const first = await rows.next();
        const csv = createCsvWriter(PAYROLL_DEDUCTIONS_CSV_COLUMNS);
        const all = Readable.from(
          (async function* () {
            if (!first.done) yield first.value;
            yield* rows;
          })(),
        );
        pipeline(all, csv, (error) => {
          if (error) request.log.error({ err: error }, 'payroll deductions CSV stopped');
        });
        return (reply as FastifyReply)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="payroll-deductions-${query.employer}-${query.pay_date}.csv"`)
          .send(csv);
      }
      const page = await deductions.page(scope, query, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.post(
    '/payroll_runs',
    {
      config: { access: 'write' },
      schema: {
        tags,
        summary: "Mark a schedule's pay date paid: store what it took per member and deduction code (its period and the adjustments)",
        description:
          'Records what GET /payroll_deductions shows for the schedule and pay date as taken, so that the next pay date measures against it and each adjustment is taken once. One run per schedule and pay date, in pay date order (409 otherwise). docs/decisions.md "Pay schedules and payroll deductions".',
        body: CreatePayrollRunBodySchema,
        response: { 201: PayrollRunSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await runs.createRun(scopeOf(request.auth), request.body)),
  );

  api.get(
    '/payroll_runs',
    {
      schema: {
        tags,
        summary: 'List payroll runs, newest first',
        querystring: ListPayrollRunsQuerySchema,
        response: { 200: PageSchema(PayrollRunSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await runs.listRuns(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/payroll_runs/:public_id',
    { schema: { tags, summary: 'Retrieve a payroll run', params: IdParamsSchema, response: { 200: PayrollRunSchema, ...errorResponses(401, 404, 429) } } },
    async (request) => runs.getRun(scopeOf(request.auth), request.params.public_id),
  );
}
