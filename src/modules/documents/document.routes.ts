import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import {
  CreateDocumentBodySchema,
  DOCUMENT_BODY_LIMIT_BYTES,
  DocumentContentSchema,
  DocumentSchema,
  ListDocumentsQuerySchema,
} from './document.schemas.ts';
import type { DocumentService } from './document.service.ts';

const tags = ['Documents'];

/**
 * Served as a download: a stored text/html or image/svg+xml document must never run as a page of this API's
 * origin in a browser.
 */
function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 8187 ext-value: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function registerDocumentRoutes(app: FastifyInstance, deps: { documents: DocumentService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { documents, pages } = deps;

  api.post(
    '/documents',
    {
      // This route alone takes up to 10 MiB of content (as base64); every other route keeps the 1 MiB limit.
      bodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Upload a document (content_base64, at most 10 MiB decoded), optionally about a member or an employer',
        body: CreateDocumentBodySchema,
        response: { 201: DocumentSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await documents.createDocument(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/documents',
    {
      schema: {
        tags,
        summary: 'List documents, newest first (?member=, ?employer= to filter)',
        querystring: ListDocumentsQuerySchema,
        response: { 200: PageSchema(DocumentSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await documents.listDocuments(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/documents/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a document (without its content)',
        params: IdParamsSchema,
        response: { 200: DocumentSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => documents.getDocument(scopeOf(request.auth), request.params.public_id),
  );

  api.get(
    '/documents/:public_id/content',
    {
      schema: {
        tags,
        summary: "Download a document's bytes, served with its content_type",
        params: IdParamsSchema,
        response: {
          // Any media type: the document's own content_type.
          200: { description: 'The exact bytes of the document', content: { '*/*': { schema: DocumentContentSchema } } },
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { name, contentType, bytes } = await documents.getDocumentContent(scopeOf(request.auth), request.params.public_id);
      // A Buffer is sent as it is (never serialized as JSON); Fastify sets Content-Length from it.
      return reply
        .type(contentType)
        .header('content-disposition', contentDisposition(name))
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  );
}
