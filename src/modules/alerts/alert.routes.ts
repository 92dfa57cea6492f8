import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { PageSchema, errorResponses } from '../../http/schemas.ts';
import { AlertSchema, ListAlertsQuerySchema } from './alert.schemas.ts';
import type { AlertService } from './alert.service.ts';

export function registerAlertRoutes(app: FastifyInstance, deps: { alerts: AlertService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { alerts, pages } = deps;

  api.get(
    '/alerts',
    {
      schema: {
        tags: ['Alerts'],
        summary: 'List alerts (what a person must act on), newest first',
        description:
          "Each alert is recorded once. Admin keys see every alert of the provider; other keys see the alerts for employers and members (employer keys: their employer's only).",
        querystring: ListAlertsQuerySchema,
        response: { 200: PageSchema(AlertSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await alerts.listAlerts(request.auth, filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );
}
