import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreatePlanBodySchema, ListPlansQuerySchema, PlanSchema, RenewPlanBodySchema, UpdatePlanBodySchema } from './plan.schemas.ts';
import type { PlanService } from './plan.service.ts';

export function registerPlanRoutes(app: FastifyInstance, deps: { plans: PlanService; pages: Paginator }): void {
  const { plans, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/plans',
    tags: ['Plans'],
    record: PlanSchema,
    create: {
      summary: "Create a plan of a group (the group gives the plan's carrier and employer)",
      body: CreatePlanBodySchema,
      run: (scope, body) => plans.createPlan(scope, body),
    },
    list: {
      summary: 'List plans, newest first (?group=, ?employer=, ?line_of_coverage= to filter)',
      query: ListPlansQuerySchema,
      run: (scope, filter, page) => plans.listPlans(scope, filter, page),
    },
    get: { summary: 'Retrieve a plan', run: (scope, id) => plans.getPlan(scope, id) },
    update: {
      summary:
        'Update a plan (group and line_of_coverage are fixed; metadata is merged; previous_plan and next_plan link it to the plan it renews and the plan that renews it)',
      body: UpdatePlanBodySchema,
      run: (scope, id, body) => plans.updatePlan(scope, id, body),
    },
  });

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    '/plans/:public_id/renew',
    {
      config: { access: 'write' },
      schema: {
        tags: ['Plans'],
        summary:
          "Renew a plan: create next plan year's plan from it (new dates and rates; everything else and its configurations copied), linked as its next_plan",
        params: IdParamsSchema,
        body: RenewPlanBodySchema,
        response: { 201: PlanSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await plans.renewPlan(scopeOf(request.auth), request.params.public_id, request.body)),
  );
}
