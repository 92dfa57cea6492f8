import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { acceptCsvBodies, jsonOrCsvBody, jsonOrCsvOf } from '../../http/csv-body.ts';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageQuerySchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { Type } from 'typebox';
import { AppError } from '../../shared/errors.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { BILL_COLUMNS, type BillColumn } from './premium-bill-csv.ts';
import {
  CreatePremiumBillBodySchema,
  CreatePremiumBillQuerySchema,
  PremiumBillParamsSchema,
  PremiumBillSchema,
  type CreatePremiumBillBody,
  type CreatePremiumBillQuery,
} from './premium-bill.schemas.ts';
import type { PremiumBillService } from './premium-bill.service.ts';

/**
 * A bill of 50,000 members is a few MiB of CSV: up to 16 MiB of it in a JSON body's content, or the CSV itself
 * as the body (Content-Type: text/csv), up to this limit (the API's usual limit is 1 MiB).
 */
export const PREMIUM_BILL_BODY_LIMIT = 17 * 1024 * 1024;

export function registerPremiumBillRoutes(app: FastifyInstance, deps: { premiumBills: PremiumBillService; pages: Paginator }): void {
  const tags = ['Groups'];
  void app.register(async (scoped) => {
    acceptCsvBodies(scoped);
    scoped.withTypeProvider<TypeBoxTypeProvider>().post(
      '/groups/:public_id/premium_bills',
      {
        bodyLimit: PREMIUM_BILL_BODY_LIMIT,
        schema: {
          tags,
          summary: "Reconcile a carrier's monthly premium bill (CSV) with the premium in force by our coverage on the group",
          description:
            'The bill as CSV (Content-Type: text/csv; the options as query parameters: map_<column>, member_key, period, bill_date, correction_window_days) or as JSON { content, column_mapping, ... }. Per member and month: what the carrier bills (with what earlier bills of the group billed for the same months), what our coverage owes (member and employer together, whole months), and the discrepancies: billed_not_covered, covered_not_billed, tier_mismatch, amount_mismatch, retro_outside_window. Lines that cannot be read are listed with their line and column. The comparison is kept with who posted it; the file is not. docs/decisions.md "Premium bills".',
          params: IdParamsSchema,
          querystring: CreatePremiumBillQuerySchema,
          body: jsonOrCsvBody(
            CreatePremiumBillBodySchema,
            "The carrier's bill: a header line, then one line per member and month (the options in the query; the JSON form's content)",
          ),
          response: { 201: PremiumBillSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const body = jsonOrCsvOf<CreatePremiumBillBody>(request.body, 'the bill');
        const input = typeof body === 'string' ? csvFormOf(body, request.query) : jsonFormOf(body, request.query);
        return reply.code(201).send(await deps.premiumBills.receivePremiumBill(scopeOf(request.auth), request.auth.apiKeyId, request.params.public_id, input));
      },
    );
  });

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/groups/:public_id/premium_bills',
    {
      schema: {
        tags,
        summary: "List the group's premium bills, newest first",
        params: IdParamsSchema,
        querystring: Type.Object(PageQuerySchema, { additionalProperties: false }),
        response: { 200: PageSchema(PremiumBillSchema), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size } = request.query;
      const page = await deps.premiumBills.listPremiumBills(
        scopeOf(request.auth),
        request.params.public_id,
        deps.pages.pageRequest(request, { cursor, page_size }),
      );
      return deps.pages.pageResponse(request, page);
    },
  );
  api.get(
    '/groups/:public_id/premium_bills/:bill_id',
    {
      schema: {
        tags,
        summary: "Retrieve a premium bill's reconciliation",
        params: PremiumBillParamsSchema,
        response: { 200: PremiumBillSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => deps.premiumBills.getPremiumBill(scopeOf(request.auth), request.params.public_id, request.params.bill_id),
  );
}

/** The CSV form: the body is the bill; `map_<column>` are its column mapping and the other query parameters its options. */
function csvFormOf(content: string, query: CreatePremiumBillQuery): CreatePremiumBillBody {
  const mapping: Partial<Record<BillColumn, string>> = {};
  for (const column of BILL_COLUMNS) {
    const header = query[`map_${column}`];
    if (header !== undefined) mapping[column] = header;
  }
  const { member_key, period, bill_date, correction_window_days } = query;
  return {
    content,
    ...(Object.keys(mapping).length > 0 ? { column_mapping: mapping } : {}),
    ...(member_key === undefined ? {} : { member_key }),
    ...(period === undefined ? {} : { period }),
    ...(bill_date === undefined ? {} : { bill_date }),
    ...(correction_window_days === undefined ? {} : { correction_window_days }),
  };
}

/** The JSON form carries its options in the body: the same options in the query too would leave one of them unread. */
function jsonFormOf(body: CreatePremiumBillBody, query: CreatePremiumBillQuery): CreatePremiumBillBody {
  const given = Object.keys(query);
  if (given.length > 0) {
    throw new AppError(
      'invalid_request',
      `A JSON bill carries its options in its body (column_mapping, member_key, ...): the query parameters ${given.join(', ')} are for a CSV bill (Content-Type: text/csv).`,
    );
  }
  return body;
}
