import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { PlanService } from './plan.service.ts';
import { CreatePlanBodySchema, ListPlansQuerySchema, PlanSchema, UpdatePlanBodySchema } from './plan.schemas.ts';

const tags = ['Plans'];

export function registerPlanRoutes(app: FastifyInstance, deps: { plans: PlanService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { plans, pages } = deps;

  api.post(
    '/plans',
    {
      schema: {
        tags,
        summary: "Create a plan of a group (the group gives the plan's carrier and employer)",
        body: CreatePlanBodySchema,
        response: { 201: PlanSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await plans.createPlan(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/plans',
    {
      schema: {
        tags,
        summary: 'List plans, newest first (?group=, ?employer=, ?line_of_coverage= to filter)',
        querystring: ListPlansQuerySchema,
        response: { 200: PageSchema(PlanSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await plans.listPlans(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/plans/:public_id',
    {
      schema: { tags, summary: 'Retrieve a plan', params: IdParamsSchema, response: { 200: PlanSchema, ...errorResponses(401, 404, 429) } },
    },
    async (request) => plans.getPlan(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/plans/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a plan (group and line_of_coverage are fixed; metadata is merged)',
        params: IdParamsSchema,
        body: UpdatePlanBodySchema,
        response: { 200: PlanSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => plans.updatePlan(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
