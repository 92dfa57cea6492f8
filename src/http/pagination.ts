import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { InvalidRequest } from '../shared/errors.ts';
import type { Page, PageRequest, Position } from '../db/keyset.ts';
import type { AuthContext } from '../shared/tenancy.ts';
import { pathOf } from './routing.ts';

export const DEFAULT_PAGE_SIZE = 25;

type Direction = 'n' | 'p';

/**
 * Turns opaque cursors into positions and pages into `{next, previous, results}` with absolute URLs
 * (docs/decisions.md "Pagination"). Cursors are signed and bound to the list and the provider they came from, so a
 * tampered or foreign cursor is a 400 rather than a silent wrong page.
 */
export class Paginator {
  readonly #secret: KeyObject;
  readonly #publicBaseUrl: string | undefined;

  constructor(secret: Buffer, publicBaseUrl: string | undefined) {
    // A key object is prepared once; HMAC with a raw Buffer re-imports the key on every call (~8x slower).
    this.#secret = createSecretKey(secret);
    this.#publicBaseUrl = publicBaseUrl;
  }

  pageRequest(request: FastifyRequest, query: { cursor?: string | undefined; page_size?: number | undefined }): PageRequest {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    if (query.cursor === undefined) return { pageSize };
    const [direction, position] = this.#decode(query.cursor, bindingOf(request));
    return direction === 'n' ? { pageSize, after: position } : { pageSize, before: position };
  }

  pageResponse<T extends Position>(request: FastifyRequest, page: Page<T>): { next: string | null; previous: string | null; results: T[] } {
    const first = page.results[0];
    const last = page.results.at(-1);
    const binding = bindingOf(request);
    return {
      next: page.hasNext && last ? this.#url(request, this.#encode('n', last, binding)) : null,
      previous: page.hasPrevious && first ? this.#url(request, this.#encode('p', first, binding)) : null,
      results: page.results,
    };
  }

  #encode(direction: Direction, position: Position, binding: string): string {
    const payload = Buffer.from(JSON.stringify([direction, position.created_at, position.id])).toString('base64url');
    return `${payload}.${this.#sign(binding, payload)}`;
  }

  #decode(cursor: string, binding: string): [Direction, Position] {
    const invalid = new InvalidRequest('The cursor is not valid for this list. Use the next or previous URL as given.');
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.#sign(binding, payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    try {
      const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (
        Array.isArray(decoded) &&
        decoded.length === 3 &&
        (decoded[0] === 'n' || decoded[0] === 'p') &&
        typeof decoded[1] === 'string' &&
        typeof decoded[2] === 'string'
      ) {
        return [decoded[0] as Direction, { created_at: decoded[1], id: decoded[2] }];
      }
    } catch {
      // falls through to the 400 below
    }
    throw invalid;
  }

  #sign(binding: string, payload: string): string {
    return createHmac('sha256', this.#secret).update(`${binding}|${payload}`).digest('base64url').slice(0, 22);
  }

  #url(request: FastifyRequest, cursor: string): string {
    // The Host header was checked to be a host name on arrival (assertValidHost); PUBLIC_BASE_URL wins when set.
    const base = this.#publicBaseUrl ?? `${request.protocol}://${request.host}`;
    const queryAt = request.url.indexOf('?');
    const path = pathOf(queryAt < 0 ? request.url : request.url.slice(0, queryAt));
    const params = new URLSearchParams(queryAt < 0 ? '' : request.url.slice(queryAt + 1));
    params.set('cursor', cursor);
    return `${base}${path}?${params.toString()}`;
  }
}

/** A cursor belongs to one list (route) of one provider. */
function bindingOf(request: FastifyRequest): string {
  const auth = (request as FastifyRequest & { auth?: AuthContext }).auth;
  return `${request.routeOptions.url ?? ''}|${auth?.providerId ?? ''}`;
}
