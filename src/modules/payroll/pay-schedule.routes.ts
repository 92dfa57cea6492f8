import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  CreatePayScheduleBodySchema,
  ListPaySchedulesQuerySchema,
  PayDatesQuerySchema,
  PayDatesSchema,
  PayScheduleSchema,
  UpdatePayScheduleBodySchema,
} from './pay-schedule.schemas.ts';
import type { PayScheduleService } from './pay-schedule.service.ts';

export function registerPayScheduleRoutes(app: FastifyInstance, deps: { paySchedules: PayScheduleService; pages: Paginator }): void {
  const { paySchedules, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/pay_schedules',
    tags: ['Payroll'],
    record: PayScheduleSchema,
    create: {
      summary: "Create an employer's pay schedule",
      body: CreatePayScheduleBodySchema,
      run: (scope, body) => paySchedules.createPaySchedule(scope, body),
    },
    list: {
      summary: 'List pay schedules, newest first',
      query: ListPaySchedulesQuerySchema,
      run: (scope, filter, page) => paySchedules.listPaySchedules(scope, filter, page),
    },
    get: { summary: 'Retrieve a pay schedule', run: (scope, id) => paySchedules.getPaySchedule(scope, id) },
    update: {
      summary: 'Update a pay schedule (its dates only before a payroll run has paid on it)',
      body: UpdatePayScheduleBodySchema,
      run: (scope, id, body) => paySchedules.updatePaySchedule(scope, id, body),
    },
  });
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/pay_schedules/:public_id/pay_dates',
    {
      schema: {
        tags: ['Payroll'],
        summary: "A pay schedule's pay dates in a range (at most 366 days), each with the first day of its pay period",
        params: IdParamsSchema,
        querystring: PayDatesQuerySchema,
        response: { 200: PayDatesSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => paySchedules.payDates(scopeOf(request.auth), request.params.public_id, request.query.from, request.query.to),
  );
}
