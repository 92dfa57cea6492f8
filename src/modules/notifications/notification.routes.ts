import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { ListNotificationsQuerySchema, NotificationSchema } from './notification.schemas.ts';
import type { NotificationService } from './notification.service.ts';

export function registerNotificationRoutes(app: FastifyInstance, deps: { notifications: NotificationService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { notifications, pages } = deps;

  api.get(
    '/notifications',
    {
      schema: {
        tags: ['Notifications'],
        summary: 'List notifications, newest first, filtered by type and related object',
        querystring: ListNotificationsQuerySchema,
        response: { 200: PageSchema(NotificationSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await notifications.listNotifications(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );
}
