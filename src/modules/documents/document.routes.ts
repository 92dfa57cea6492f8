import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { CreateDocumentBodySchema, DOCUMENT_BODY_LIMIT_BYTES, DocumentContentSchema, DocumentSchema, ListDocumentsQuerySchema } from './document.schemas.ts';
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
  const { documents, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/documents',
    tags,
    record: DocumentSchema,
    create: {
      summary: 'Upload a document (content_base64, at most 10 MiB decoded), optionally about a member or an employer',
      body: CreateDocumentBodySchema,
      // This route alone takes up to 10 MiB of content (as base64); every other route keeps the 1 MiB limit.
      bodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
      run: (scope, body) => documents.createDocument(scope, body),
    },
    list: {
      summary: 'List documents, newest first (?member=, ?employer= to filter)',
      query: ListDocumentsQuerySchema,
      run: (scope, filter, page) => documents.listDocuments(scope, filter, page),
    },
    get: { summary: 'Retrieve a document (without its content)', run: (scope, id) => documents.getDocument(scope, id) },
  });

  app.withTypeProvider<TypeBoxTypeProvider>().get(
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
      return reply.type(contentType).header('content-disposition', contentDisposition(name)).header('x-content-type-options', 'nosniff').send(bytes);
    },
  );
}
