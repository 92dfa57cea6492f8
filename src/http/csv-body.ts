import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../shared/errors.ts';

/**
 * CSV request bodies (`Content-Type: text/csv`): read only by the routes of the plugin that calls
 * `acceptCsvBodies` (Fastify's encapsulation), so everywhere else JSON stays the one body type and a CSV body is a
 * 415. The hostile-input guarantees are those of every body (docs/decisions.md "Requests", "CSV request bodies"):
 * - size: bounded by the route's own `bodyLimit` (Content-Length checked before a byte is read, then the bytes
 *   as they arrive; 413 past it); a route of such a plugin must declare one (checked when it is added);
 * - encoding: UTF-8 only (another charset or a Content-Encoding is a 415 before the body is read, as for JSON);
 * - a byte order mark is dropped here, and CRLF line ends are read by the CSV readers (csv-parse);
 * - NUL characters stay in the text: each reader refuses them per cell (a census row error, a bill line error),
 *   never storing them nor sending them to the database, which cannot compare them;
 * - the raw text is kept as the idempotency fingerprint (`rawBody`), as the JSON parser keeps its own.
 */
export function acceptCsvBodies(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined && [route.method].flat().includes('POST')) {
      throw new Error(`${route.url} takes CSV bodies and must declare its own bodyLimit`);
    }
  });
  scope.addContentTypeParser('text/csv', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    done(null, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  });
}

/**
 * A route's body in two forms: JSON (`jsonSchema`) or CSV text; validated per Content-Type by Fastify, and
 * documented as the two media types of one request body.
 */
export function jsonOrCsvBody(jsonSchema: TSchema, csvDescription: string) {
  return {
    content: {
      'application/json': { schema: jsonSchema },
      'text/csv': { schema: Type.String({ description: csvDescription }) },
    },
  };
}

/** The body of a JSON-or-CSV route: a request without one (no Content-Type, nothing validated) is a 400. */
export function jsonOrCsvOf<T>(body: unknown, what: string): T | string {
  if (body === undefined || body === null) {
    throw new AppError('invalid_request', `Send ${what} as CSV (Content-Type: text/csv) or as JSON (Content-Type: application/json).`);
  }
  return body as T | string;
}
