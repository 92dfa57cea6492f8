import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, TimestampSchema } from '../../http/schemas.ts';

/** A document holds at most 10 MiB, decoded (docs/decisions.md "Documents and member ID cards"). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/**
 * The body limit of POST /documents only (every other route keeps the global 1 MiB): 10 MiB of content is
 * 4/3 as much base64 text (13,981,016 characters), plus room for the other fields. Content between this and
 * the decoded limit is answered by the service with the same 413.
 */
export const DOCUMENT_BODY_LIMIT_BYTES = 14 * 1024 * 1024 + 64 * 1024;

/** type/subtype of RFC 6838 (restricted-name characters), without parameters. */
const MIME_TYPE_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*$';

export const DocumentSchema = Type.Object(
  {
    id: IdSchema,
    name: Type.String(),
    content_type: Type.String({ description: 'MIME type the content is served with' }),
    size: Type.Integer({ minimum: 0, description: 'Bytes of the content (decoded)' }),
    member: Nullable(IdSchema),
    employer: Nullable(IdSchema),
    created_at: TimestampSchema,
  },
  { title: 'Document' },
);
export type DocumentResponse = Static<typeof DocumentSchema>;

export const CreateDocumentBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'File name, e.g. id-card-front.pdf' }),
    content_type: Type.String({ pattern: MIME_TYPE_PATTERN, maxLength: 255, description: 'MIME type, e.g. application/pdf or image/png' }),
    // No minLength: ajv would count the code points of megabytes to check it; the service refuses empty content.
    content_base64: Type.String({
      contentEncoding: 'base64',
      description: 'Write-only: the content in standard base64 (RFC 4648, padded), not empty; at most 10 MiB decoded',
    }),
    // The member's employer becomes the document's. With neither, an admin key's document is provider-wide and
    // an employer key's is its employer's.
    member: Type.Optional(Nullable(IdSchema)),
    employer: Type.Optional(Nullable(IdSchema)),
  },
  { title: 'CreateDocumentBody', additionalProperties: false },
);
export type CreateDocumentBody = Static<typeof CreateDocumentBodySchema>;

export const ListDocumentsQuerySchema = Type.Object(
  { ...PageQuerySchema, member: Type.Optional(IdSchema), employer: Type.Optional(IdSchema) },
  { additionalProperties: false },
);
export type ListDocumentsQuery = Static<typeof ListDocumentsQuerySchema>;

/** The bytes of GET /documents/{id}/content, served with the document's own content type. */
export const DocumentContentSchema = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary', description: 'The exact bytes of the document' });
