import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CoverageQuerySchema, MemberCoverageSchema } from './coverage.schemas.ts';
import type { MemberCoverageService } from './member-coverage.service.ts';

export function registerCoverageRoutes(app: FastifyInstance, deps: { coverage: MemberCoverageService }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { coverage } = deps;

  api.get(
    '/members/:public_id/coverage',
    {
      schema: {
        tags: ['Enrollments'],
        summary: "The member's approved coverage in force on a date (default: today), one entry per line",
        params: IdParamsSchema,
        querystring: CoverageQuerySchema,
        response: { 200: MemberCoverageSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => coverage.coverageOn(scopeOf(request.auth), request.params.public_id, request.query.date),
  );
}
