import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { CreateGroupBodySchema, GroupSchema, ListGroupsQuerySchema, UpdateGroupBodySchema } from './group.schemas.ts';
import type { GroupService } from './group.service.ts';

export function registerGroupRoutes(app: FastifyInstance, deps: { groups: GroupService; pages: Paginator }): void {
  const { groups, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/groups',
    tags: ['Groups'],
    record: GroupSchema,
    create: {
      summary: "Create a group: an employer's policy with a carrier",
      body: CreateGroupBodySchema,
      run: (scope, body) => groups.createGroup(scope, body),
    },
    list: {
      summary: 'List groups, newest first (?employer= to filter)',
      query: ListGroupsQuerySchema,
      run: (scope, filter, page) => groups.listGroups(scope, filter, page),
    },
    get: { summary: 'Retrieve a group', run: (scope, id) => groups.getGroup(scope, id) },
    update: {
      summary: 'Update a group (its employer cannot change)',
      body: UpdateGroupBodySchema,
      run: (scope, id, body) => groups.updateGroup(scope, id, body),
    },
  });
}
