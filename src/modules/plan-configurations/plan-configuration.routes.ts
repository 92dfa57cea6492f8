import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { PlanConfigurationService } from './plan-configuration.service.ts';
import {
  ContributionStrategySchema,
  CreatePlanConfigurationBodySchema,
  ListPlanConfigurationsQuerySchema,
  PlanConfigurationSchema,
  UpdatePlanConfigurationBodySchema,
} from './plan-configuration.schemas.ts';

const tags = ['Plan configurations'];

export function registerPlanConfigurationRoutes(
  app: FastifyInstance,
  deps: { planConfigurations: PlanConfigurationService; pages: Paginator },
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { planConfigurations, pages } = deps;

  api.post(
    '/plan_configurations',
    {
      schema: {
        tags,
        summary: 'Create a configuration of a plan (eligibility rules; one per plan and required subclass)',
        body: CreatePlanConfigurationBodySchema,
        response: { 201: PlanConfigurationSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await planConfigurations.createPlanConfiguration(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/plan_configurations',
    {
      schema: {
        tags,
        summary: 'List plan configurations, newest first (?plan= to filter)',
        querystring: ListPlanConfigurationsQuerySchema,
        response: { 200: PageSchema(PlanConfigurationSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await planConfigurations.listPlanConfigurations(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/plan_configurations/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a plan configuration',
        params: IdParamsSchema,
        response: { 200: PlanConfigurationSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => planConfigurations.getPlanConfiguration(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/plan_configurations/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a plan configuration (the plan is fixed; metadata is merged)',
        params: IdParamsSchema,
        body: UpdatePlanConfigurationBodySchema,
        response: { 200: PlanConfigurationSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => planConfigurations.updatePlanConfiguration(scopeOf(request.auth), request.params.public_id, request.body),
  );

  api.post(
    '/plan_configurations/:public_id/contribution_strategy',
    {
      schema: {
        tags,
        summary: "Set the configuration's contribution strategy (all five coverage tiers; replaces any previous one)",
        params: IdParamsSchema,
        body: ContributionStrategySchema,
        response: { 200: ContributionStrategySchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => planConfigurations.setContributionStrategy(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
