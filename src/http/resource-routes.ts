import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Page, PageRequest, Position } from '../db/keyset.ts';
import { scopeOf, type Scope } from '../shared/tenancy.ts';
import type { Paginator } from './pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from './schemas.ts';

type Access = 'write' | 'provider' | 'admin';

/**
 * A resource with the standard routes (docs/api.md "Operations"): POST and GET on the collection, GET, PATCH and
 * DELETE on `/{id}`. Each module declares its schemas, summaries and service calls; the route shapes, status
 * codes, documented errors and pagination live here once.
 */
export interface ResourceDefinition<Record extends TSchema, Create extends TSchema, Update extends TSchema, Query extends TSchema> {
  /** The collection path, e.g. '/pay_rates'. */
  path: string;
  tags: string[];
  record: Record;
  create?: { summary: string; body: Create; access?: Access; bodyLimit?: number; run(scope: Scope, body: Static<Create>): Promise<Static<Record>> };
  list: {
    summary: string;
    query: Query;
    run(scope: Scope, filter: Omit<Static<Query>, 'cursor' | 'page_size'>, page: PageRequest): Promise<Page<Static<Record> & Position>>;
  };
  get: { summary: string; run(scope: Scope, id: string): Promise<Static<Record>> };
  update?: { summary: string; body: Update; access?: Access; run(scope: Scope, id: string, body: Static<Update>): Promise<Static<Record>> };
  remove?: { summary: string; run(scope: Scope, id: string): Promise<{ id: string; object: string; deleted: true }> };
}

export function registerResourceRoutes<Record extends TSchema, Create extends TSchema, Update extends TSchema, Query extends TSchema>(
  app: FastifyInstance,
  pages: Paginator,
  resource: ResourceDefinition<Record, Create, Update, Query>,
): void {
  // The declaration carries the types; the plain instance keeps Fastify's generics out of the way here.
  const api = app;
  const { path, tags, record } = resource;
  const idOf = (request: { params: unknown }) => (request.params as { public_id: string }).public_id;
  const item = `${path}/:public_id`;

  const { create, update, remove } = resource;
  if (create) {
    api.post(
      path,
      {
        config: { access: create.access ?? 'write' },
        ...(create.bodyLimit ? { bodyLimit: create.bodyLimit } : {}),
        schema: documented({
          tags,
          summary: create.summary,
          body: create.body,
          response: { 201: record, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
        }),
      },
      async (request, reply) => reply.code(201).send(await create.run(scopeOf(request.auth), request.body as Static<Create>)),
    );
  }

  api.get(
    path,
    {
      schema: documented({
        tags,
        summary: resource.list.summary,
        querystring: resource.list.query,
        response: { 200: PageSchema(record), ...errorResponses(400, 401, 429) },
      }),
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query as { cursor?: string; page_size?: number };
      const page = await resource.list.run(
        scopeOf(request.auth),
        filter as Omit<Static<Query>, 'cursor' | 'page_size'>,
        pages.pageRequest(request, { cursor, page_size }),
      );
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    item,
    { schema: documented({ tags, summary: resource.get.summary, params: IdParamsSchema, response: { 200: record, ...errorResponses(401, 404, 429) } }) },
    async (request) => resource.get.run(scopeOf(request.auth), idOf(request)),
  );

  if (update) {
    api.patch(
      item,
      {
        config: { access: update.access ?? 'write' },
        schema: documented({
          tags,
          summary: update.summary,
          params: IdParamsSchema,
          body: update.body,
          response: { 200: record, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
        }),
      },
      async (request) => update.run(scopeOf(request.auth), idOf(request), request.body as Static<Update>),
    );
  }

  if (remove) {
    api.delete(
      item,
      {
        schema: documented({
          tags,
          summary: remove.summary,
          params: IdParamsSchema,
          response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 409, 429) },
        }),
      },
      async (request) => remove.run(scopeOf(request.auth), idOf(request)),
    );
  }
}

/** A route schema as Fastify sees it: validation, serialization and documentation, without inferred reply types. */
function documented(schema: FastifySchema & { tags: string[]; summary: string }): FastifySchema {
  return schema;
}
