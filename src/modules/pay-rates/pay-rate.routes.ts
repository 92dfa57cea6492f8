import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreatePayRateBodySchema, ListPayRatesQuerySchema, PayRateSchema, UpdatePayRateBodySchema } from './pay-rate.schemas.ts';
import type { PayRateService } from './pay-rate.service.ts';

export function registerPayRateRoutes(app: FastifyInstance, deps: { payRates: PayRateService; pages: Paginator }): void {
  const { payRates, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/pay_rates',
    tags: ['Pay rates'],
    record: PayRateSchema,
    create: {
      summary: 'Create a pay rate of a member (annual salary or hourly wage, from a date)',
      body: CreatePayRateBodySchema,
      run: (scope, body) => payRates.createPayRate(scope, body),
    },
    list: {
      summary: 'List pay rates, newest first (?member= to filter)',
      query: ListPayRatesQuerySchema,
      run: (scope, filter, page) => payRates.listPayRates(scope, filter, page),
    },
    get: { summary: 'Retrieve a pay rate', run: (scope, id) => payRates.getPayRate(scope, id) },
    update: {
      summary: 'Update a pay rate (the member cannot change)',
      body: UpdatePayRateBodySchema,
      run: (scope, id, body) => payRates.updatePayRate(scope, id, body),
    },
    remove: { summary: 'Delete a pay rate', run: (scope, id) => payRates.deletePayRate(scope, id) },
  });
}
