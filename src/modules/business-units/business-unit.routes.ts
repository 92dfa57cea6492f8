import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { BusinessUnitService } from './business-unit.service.ts';
import {
  BusinessUnitSchema,
  CreateBusinessUnitBodySchema,
  ListBusinessUnitsQuerySchema,
  UpdateBusinessUnitBodySchema,
} from './business-unit.schemas.ts';

const tags = ['Business units'];

export function registerBusinessUnitRoutes(app: FastifyInstance, deps: { businessUnits: BusinessUnitService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { businessUnits, pages } = deps;

  api.post(
    '/business_units',
    {
      schema: {
        tags,
        summary: 'Create a business unit of an employer',
        body: CreateBusinessUnitBodySchema,
        response: { 201: BusinessUnitSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await businessUnits.createBusinessUnit(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/business_units',
    {
      schema: {
        tags,
        summary: 'List business units, newest first (?employer= to filter)',
        querystring: ListBusinessUnitsQuerySchema,
        response: { 200: PageSchema(BusinessUnitSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const page = await businessUnits.listBusinessUnits(scopeOf(request.auth), request.query, pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/business_units/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a business unit',
        params: IdParamsSchema,
        response: { 200: BusinessUnitSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => businessUnits.getBusinessUnit(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/business_units/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a business unit (metadata is merged)',
        params: IdParamsSchema,
        body: UpdateBusinessUnitBodySchema,
        response: { 200: BusinessUnitSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => businessUnits.updateBusinessUnit(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
