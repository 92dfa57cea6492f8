import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { assertCanWrite, scopeOf } from '../../shared/tenancy.ts';
import { CreatePayRateBodySchema, ListPayRatesQuerySchema, PayRateSchema, UpdatePayRateBodySchema } from './pay-rate.schemas.ts';
import type { PayRateService } from './pay-rate.service.ts';

const tags = ['Pay rates'];

export function registerPayRateRoutes(app: FastifyInstance, deps: { payRates: PayRateService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { payRates, pages } = deps;

  api.post(
    '/pay_rates',
    {
      schema: {
        tags,
        summary: "Create a pay rate of a member (annual salary or hourly wage, from a date)",
        body: CreatePayRateBodySchema,
        response: { 201: PayRateSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      assertCanWrite(request.auth);
      return reply.code(201).send(await payRates.createPayRate(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/pay_rates',
    {
      schema: {
        tags,
        summary: 'List pay rates, newest first (?member= to filter)',
        querystring: ListPayRatesQuerySchema,
        response: { 200: PageSchema(PayRateSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await payRates.listPayRates(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/pay_rates/:public_id',
    {
      schema: { tags, summary: 'Retrieve a pay rate', params: IdParamsSchema, response: { 200: PayRateSchema, ...errorResponses(401, 404, 429) } },
    },
    async (request) => payRates.getPayRate(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/pay_rates/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a pay rate (the member cannot change)',
        params: IdParamsSchema,
        body: UpdatePayRateBodySchema,
        response: { 200: PayRateSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return payRates.updatePayRate(scopeOf(request.auth), request.params.public_id, request.body);
    },
  );

  api.delete(
    '/pay_rates/:public_id',
    {
      schema: { tags, summary: 'Delete a pay rate', params: IdParamsSchema, response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 429) } },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return payRates.deletePayRate(scopeOf(request.auth), request.params.public_id);
    },
  );
}
