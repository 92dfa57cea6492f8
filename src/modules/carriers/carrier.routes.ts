import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { CarrierService } from './carrier.service.ts';
import { CarrierSchema, CreateCarrierBodySchema, ListCarriersQuerySchema, UpdateCarrierBodySchema } from './carrier.schemas.ts';

const tags = ['Carriers'];

export function registerCarrierRoutes(app: FastifyInstance, deps: { carriers: CarrierService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { carriers, pages } = deps;

  api.post(
    '/carriers',
    {
      config: { access: 'provider' },
      schema: {
        tags,
        summary: 'Create a carrier (admin keys only)',
        body: CreateCarrierBodySchema,
        response: { 201: CarrierSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await carriers.createCarrier(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/carriers',
    {
      schema: {
        tags,
        summary: 'List carriers, newest first',
        querystring: ListCarriersQuerySchema,
        response: { 200: PageSchema(CarrierSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const page = await carriers.listCarriers(scopeOf(request.auth), pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/carriers/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a carrier',
        params: IdParamsSchema,
        response: { 200: CarrierSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => carriers.getCarrier(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/carriers/:public_id',
    {
      config: { access: 'provider' },
      schema: {
        tags,
        summary: 'Update a carrier (admin keys only)',
        params: IdParamsSchema,
        body: UpdateCarrierBodySchema,
        response: { 200: CarrierSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => carriers.updateCarrier(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
