import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CobraEventSchema, ListCobraEventsQuerySchema } from './cobra-event.schemas.ts';
import type { CobraEventService } from './cobra-event.service.ts';

/** Read-only: events are recorded by the approvals (and daily sweeps) that end group health coverage. */
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
}
