import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { EmployerService } from './employer.service.ts';
import { CreateEmployerBodySchema, EmployerSchema, ListEmployersQuerySchema, UpdateEmployerBodySchema } from './employer.schemas.ts';

const tags = ['Employers'];

export function registerEmployerRoutes(app: FastifyInstance, deps: { employers: EmployerService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { employers, pages } = deps;

  api.post(
    '/employers',
    {
      config: { access: 'provider' },
      schema: {
        tags,
        summary: 'Create an employer',
        body: CreateEmployerBodySchema,
        response: { 201: EmployerSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await employers.createEmployer(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/employers',
    {
      schema: {
        tags,
        summary: 'List employers, newest first',
        querystring: ListEmployersQuerySchema,
        response: { 200: PageSchema(EmployerSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const page = await employers.listEmployers(scopeOf(request.auth), pages.pageRequest(request, request.query));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/employers/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve an employer',
        params: IdParamsSchema,
        response: { 200: EmployerSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => employers.getEmployer(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/employers/:public_id',
    {
      schema: {
        tags,
        summary: 'Update an employer (metadata is merged)',
        params: IdParamsSchema,
        body: UpdateEmployerBodySchema,
        response: { 200: EmployerSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => employers.updateEmployer(scopeOf(request.auth), request.params.public_id, request.body),
  );
}
