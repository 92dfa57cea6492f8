import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateDependentBodySchema, DependentSchema, ListDependentsQuerySchema, UpdateDependentBodySchema } from './dependent.schemas.ts';
import type { DependentService } from './dependent.service.ts';

export function registerDependentRoutes(app: FastifyInstance, deps: { dependents: DependentService; pages: Paginator }): void {
  const { dependents, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/dependents',
    tags: ['Dependents'],
    record: DependentSchema,
    create: {
      summary: "Create a dependent of a member (the member's spouse, child, ...)",
      body: CreateDependentBodySchema,
      run: (scope, body) => dependents.createDependent(scope, body),
    },
    list: {
      summary: 'List dependents, newest first (?member= to filter)',
      query: ListDependentsQuerySchema,
      run: (scope, filter, page) => dependents.listDependents(scope, filter, page),
    },
    get: { summary: 'Retrieve a dependent', run: (scope, id) => dependents.getDependent(scope, id) },
    update: {
      summary: 'Update a dependent (metadata is merged; the member cannot change)',
      body: UpdateDependentBodySchema,
      run: (scope, id, body) => dependents.updateDependent(scope, id, body),
    },
    remove: {
      summary: 'Delete a dependent entered in error (409 once their coverage was sent to a carrier: end it through an enrollment)',
      run: (scope, id) => dependents.deleteDependent(scope, id),
    },
  });
}
