import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateEmployerBodySchema, EmployerSchema, ListEmployersQuerySchema, UpdateEmployerBodySchema } from './employer.schemas.ts';
import type { EmployerService } from './employer.service.ts';

export function registerEmployerRoutes(app: FastifyInstance, deps: { employers: EmployerService; pages: Paginator }): void {
  const { employers, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/employers',
    tags: ['Employers'],
    record: EmployerSchema,
    create: {
      summary: 'Create an employer',
      body: CreateEmployerBodySchema,
      access: 'provider',
      run: (scope, body) => employers.createEmployer(scope, body),
    },
    list: {
      summary: 'List employers, newest first',
      query: ListEmployersQuerySchema,
      run: (scope, filter, page) => employers.listEmployers(scope, filter, page),
    },
    get: { summary: 'Retrieve an employer', run: (scope, id) => employers.getEmployer(scope, id) },
    update: {
      summary: 'Update an employer (metadata is merged)',
      body: UpdateEmployerBodySchema,
      run: (scope, id, body) => employers.updateEmployer(scope, id, body),
    },
  });
}
