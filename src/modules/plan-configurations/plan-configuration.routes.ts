import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  ContributionStrategySchema,
  CreatePlanConfigurationBodySchema,
  ListPlanConfigurationsQuerySchema,
  PlanConfigurationSchema,
  UpdatePlanConfigurationBodySchema,
} from './plan-configuration.schemas.ts';
import type { PlanConfigurationService } from './plan-configuration.service.ts';

export function registerPlanConfigurationRoutes(app: FastifyInstance, deps: { planConfigurations: PlanConfigurationService; pages: Paginator }): void {
  const { planConfigurations, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/plan_configurations',
    tags: ['Plan configurations'],
    record: PlanConfigurationSchema,
    create: {
      summary: 'Create a configuration of a plan (eligibility rules; one per plan and required subclass)',
      body: CreatePlanConfigurationBodySchema,
      run: (scope, body) => planConfigurations.createPlanConfiguration(scope, body),
    },
    list: {
      summary: 'List plan configurations, newest first (?plan= to filter)',
      query: ListPlanConfigurationsQuerySchema,
      run: (scope, filter, page) => planConfigurations.listPlanConfigurations(scope, filter, page),
    },
    get: { summary: 'Retrieve a plan configuration', run: (scope, id) => planConfigurations.getPlanConfiguration(scope, id) },
    update: {
      summary: 'Update a plan configuration (the plan is fixed; metadata is merged)',
      body: UpdatePlanConfigurationBodySchema,
      run: (scope, id, body) => planConfigurations.updatePlanConfiguration(scope, id, body),
    },
  });

  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Plan configurations'];
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
