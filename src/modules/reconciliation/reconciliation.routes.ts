import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { ReconciliationQuerySchema, ReconciliationSchema } from './reconciliation.schemas.ts';
import type { ReconciliationService } from './reconciliation.service.ts';

export function registerReconciliationRoutes(app: FastifyInstance, deps: { reconciliation: ReconciliationService }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/groups/:public_id/reconciliation',
    {
      schema: {
        tags: ['Groups'],
        summary:
          "Where the carrier's picture of the group's members (what reached it) differs from their coverage on a day, with the changes still on their way",
        description:
          'One result per member and line that differs (missing, extra, plan, dates, dependents, volume). Empty once every change is delivered: a difference without pending_benefit_changes is one the carrier was never told (a refusal, a bug). docs/decisions.md "Reconciliation".',
        params: IdParamsSchema,
        querystring: ReconciliationQuerySchema,
        response: { 200: ReconciliationSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.reconciliation.reconcileGroup(scopeOf(request.auth), request.params.public_id, request.query),
  );
}
