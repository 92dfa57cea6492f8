import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { EventSchema, ListEventsQuerySchema } from './event.schemas.ts';
import type { EventService } from './event.service.ts';

export function registerEventRoutes(app: FastifyInstance, deps: { events: EventService; pages: Paginator }): void {
  const { events, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/events',
    tags: ['Events'],
    record: EventSchema,
    list: {
      summary: 'List events (every create, update, delete and state change, and every notification), newest first, filtered by type, object and time',
      query: ListEventsQuerySchema,
      run: (scope, filter, page) => events.listEvents(scope, filter, page),
    },
    get: { summary: 'Retrieve an event', run: (scope, id) => events.getEvent(scope, id) },
  });
}
