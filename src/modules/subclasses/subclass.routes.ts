import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateSubclassBodySchema, ListSubclassesQuerySchema, SubclassSchema, UpdateSubclassBodySchema } from './subclass.schemas.ts';
import type { SubclassService } from './subclass.service.ts';

export function registerSubclassRoutes(app: FastifyInstance, deps: { subclasses: SubclassService; pages: Paginator }): void {
  const { subclasses, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/subclasses',
    tags: ['Subclasses'],
    record: SubclassSchema,
    create: {
      summary: 'Create a subclass (department, location, ...) of an employer',
      body: CreateSubclassBodySchema,
      run: (scope, body) => subclasses.createSubclass(scope, body),
    },
    list: {
      summary: 'List subclasses, newest first (?employer= to filter)',
      query: ListSubclassesQuerySchema,
      run: (scope, filter, page) => subclasses.listSubclasses(scope, filter, page),
    },
    get: { summary: 'Retrieve a subclass', run: (scope, id) => subclasses.getSubclass(scope, id) },
    update: {
      summary: 'Update a subclass',
      body: UpdateSubclassBodySchema,
      run: (scope, id, body) => subclasses.updateSubclass(scope, id, body),
    },
  });
}
