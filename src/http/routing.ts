import type { FastifyInstance, FastifyRequest } from 'fastify';
import findMyWay from 'find-my-way';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.ts';
import { EmptyBodySchema } from './schemas.ts';

/**
 * Requests that reach no route: an unknown path is a 404, a known path with a method it does not support a
 * 405 with `Allow` (docs/decisions.md "Requests"; RFC 9110 section 15.5.6). Both are answered in the first hook,
 * before authentication and before a byte of the body is read or parsed.
 */
export function installUnknownRoutes(app: FastifyInstance): (request: FastifyRequest) => void {
  const paths = findMyWay<findMyWay.HTTPVersion.V1>({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  const methodsOf = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsOf.get(route.url) ?? new Set<string>();
    if (methods.size === 0) {
      methodsOf.set(route.url, methods);
      paths.on('GET', route.url, () => undefined, { url: route.url });
    }
    for (const method of [route.method].flat()) methods.add(method);
  });
  const refuse = (request: FastifyRequest): never => {
    const path = pathOf(request.url);
    const found = paths.find('GET', path);
    const methods = found ? methodsOf.get((found.store as { url: string }).url) : undefined;
    if (methods) {
      throw new AppError('method_not_allowed', `${request.method} is not allowed on ${path}.`, { headers: { allow: [...methods].join(', ') } });
    }
    throw new AppError('not_found', `No route ${request.method} ${path}.`);
  };
  // Fastify sends requests without a route here after its hooks; the hook below answers them before that.
  app.setNotFoundHandler(async (request) => refuse(request));
  return (request) => {
    if (request.routeOptions.url === undefined) refuse(request);
  };
}

/** The query string of a route that declares no query parameters: none. */
const NO_QUERY_PARAMETERS = Type.Object({}, { additionalProperties: false });

/**
 * Every route refuses query parameters it does not declare (docs/decisions.md, Requests): a route without a
 * querystring schema gets one that allows none, so `GET /carriers/{id}?expand=x` is a 400 naming `expand`, as
 * on list routes. The documentation pages (`/docs`) keep theirs. Call before any route is added.
 */
export function refuseUndeclaredQueryParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.schema?.querystring !== undefined) return;
    route.schema = { ...route.schema, querystring: NO_QUERY_PARAMETERS };
  });
}

/**
 * A POST action that declares no body (approve, cancel, rotate, ...) accepts none or an empty object `{}`, and
 * refuses any field with a 400, a body over 1 KiB with a 413 (docs/decisions.md, Requests). Call before any
 * route is added.
 */
export function acceptEmptyObjectBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.schema?.body !== undefined || ![route.method].flat().includes('POST')) return;
    route.schema = { ...route.schema, body: EmptyBodySchema };
    // `{}` with some white space is all such a body may be: more is refused (413) before it is read.
    route.bodyLimit = EMPTY_BODY_LIMIT_BYTES;
  });
}

/** The most an action that takes no fields reads of a body. */
export const EMPTY_BODY_LIMIT_BYTES = 1024;

/**
 * The path of a request target: origin-form as it is, absolute-form (`GET http://host/path`, RFC 9112 section
 * 3.2.2) without its scheme and authority.
 */
export function pathOf(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  if (path.startsWith('/')) return path;
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(path);
  return match?.[1] ?? '/';
}

/** reg-name (with `_`, as container host names have), IPv4 or bracketed IPv6, and an optional port. */
const HOST_PATTERN = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * A `Host` that is not a host name (RFC 9112 section 3.2: "a server MUST respond with a 400 ... to any request
 * message that contains ... a Host header field with an invalid field value"). Links are built from a valid
 * host only.
 */
export function assertValidHost(request: FastifyRequest): void {
  const host = request.headers.host;
  if (host !== undefined && (host.length > 261 || !HOST_PATTERN.test(host))) {
    throw new AppError('invalid_request', 'The Host header is not a valid host name.');
  }
}
