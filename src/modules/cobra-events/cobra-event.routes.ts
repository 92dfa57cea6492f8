import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CobraEventSchema, DisabilityDeterminationBodySchema, ListCobraEventsQuerySchema } from './cobra-event.schemas.ts';
import type { CobraEventService } from './cobra-event.service.ts';

/**
 * Events are recorded by the approvals (and daily sweeps) that end group health coverage; the one change a client
 * makes is a disability determination that extends one.
 */
export function registerCobraEventRoutes(app: FastifyInstance, deps: { cobraEvents: CobraEventService; pages: Paginator }): void {
  const { cobraEvents, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/cobra_events',
    tags: ['COBRA events'],
    record: CobraEventSchema,
    list: {
      summary: 'List COBRA qualifying events (29 U.S.C. 1163) that ended group health coverage, newest first, filtered by employer, member and time',
      query: ListCobraEventsQuerySchema,
      run: (scope, filter, page) => cobraEvents.listCobraEvents(scope, filter, page),
    },
    get: { summary: 'Retrieve a COBRA qualifying event', run: (scope, id) => cobraEvents.getCobraEvent(scope, id) },
  });
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/cobra_events/:public_id/disability_determination',
    {
      schema: {
        tags: ['COBRA events'],
        summary:
          'Record a Social Security disability determination of a qualified beneficiary, extending a termination or reduction_of_hours event to 29 months (29 U.S.C. 1162(2)(A)(viii))',
        params: IdParamsSchema,
        body: DisabilityDeterminationBodySchema,
        response: { 200: CobraEventSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => cobraEvents.recordDisabilityDetermination(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
