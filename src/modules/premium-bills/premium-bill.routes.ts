import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageQuerySchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { Type } from 'typebox';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreatePremiumBillBodySchema, PremiumBillParamsSchema, PremiumBillSchema } from './premium-bill.schemas.ts';
import type { PremiumBillService } from './premium-bill.service.ts';

/** A bill of 50,000 members is a few MiB of CSV: up to 16 MiB of it, in a JSON body (the API's usual limit is 1 MiB). */
const PREMIUM_BILL_BODY_LIMIT = 17 * 1024 * 1024;

export function registerPremiumBillRoutes(app: FastifyInstance, deps: { premiumBills: PremiumBillService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Groups'];
  api.post(
    '/groups/:public_id/premium_bills',
    {
      bodyLimit: PREMIUM_BILL_BODY_LIMIT,
      schema: {
        tags,
        summary: "Reconcile a carrier's monthly premium bill (CSV) with the premium in force by our coverage on the group",
        description:
          'Per member and month: what the carrier bills (with what earlier bills of the group billed for the same months), what our coverage owes (member and employer together, whole months), and the discrepancies: billed_not_covered, covered_not_billed, tier_mismatch, amount_mismatch, retro_outside_window. Lines that cannot be read are listed with their line and column. The comparison is kept with who posted it; the file is not. docs/decisions.md "Premium bills".',
        params: IdParamsSchema,
        body: CreatePremiumBillBodySchema,
        response: { 201: PremiumBillSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await deps.premiumBills.receivePremiumBill(scopeOf(request.auth), request.auth.apiKeyId, request.params.public_id, request.body)),
  );
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
