import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CarrierSchema, CreateCarrierBodySchema, ListCarriersQuerySchema, UpdateCarrierBodySchema } from './carrier.schemas.ts';
import type { CarrierService } from './carrier.service.ts';

export function registerCarrierRoutes(app: FastifyInstance, deps: { carriers: CarrierService; pages: Paginator }): void {
  const { carriers, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/carriers',
    tags: ['Carriers'],
    record: CarrierSchema,
    create: {
      summary: 'Create a carrier (admin keys only)',
      body: CreateCarrierBodySchema,
      access: 'provider',
      run: (scope, body) => carriers.createCarrier(scope, body),
    },
    list: {
      summary: 'List carriers, newest first',
      query: ListCarriersQuerySchema,
      run: (scope, _filter, page) => carriers.listCarriers(scope, page),
    },
    get: { summary: 'Retrieve a carrier', run: (scope, id) => carriers.getCarrier(scope, id) },
    update: {
      summary: 'Update a carrier (admin keys only)',
      body: UpdateCarrierBodySchema,
      access: 'provider',
      run: (scope, id, body) => carriers.updateCarrier(scope, id, body),
    },
  });
}
