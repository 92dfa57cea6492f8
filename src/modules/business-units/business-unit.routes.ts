import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { BusinessUnitSchema, CreateBusinessUnitBodySchema, ListBusinessUnitsQuerySchema, UpdateBusinessUnitBodySchema } from './business-unit.schemas.ts';
import type { BusinessUnitService } from './business-unit.service.ts';

export function registerBusinessUnitRoutes(app: FastifyInstance, deps: { businessUnits: BusinessUnitService; pages: Paginator }): void {
  const { businessUnits, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/business_units',
    tags: ['Business units'],
    record: BusinessUnitSchema,
    create: {
      summary: 'Create a business unit of an employer',
      body: CreateBusinessUnitBodySchema,
      run: (scope, body) => businessUnits.createBusinessUnit(scope, body),
    },
    list: {
      summary: 'List business units, newest first (?employer= to filter)',
      query: ListBusinessUnitsQuerySchema,
      run: (scope, filter, page) => businessUnits.listBusinessUnits(scope, filter, page),
    },
    get: { summary: 'Retrieve a business unit', run: (scope, id) => businessUnits.getBusinessUnit(scope, id) },
    update: {
      summary: 'Update a business unit (metadata is merged)',
      body: UpdateBusinessUnitBodySchema,
      run: (scope, id, body) => businessUnits.updateBusinessUnit(scope, id, body),
    },
  });
}
