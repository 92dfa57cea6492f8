import { timingSafeEqual } from 'node:crypto';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Metrics } from '../observability/metrics.ts';
import { AppError } from '../shared/errors.ts';

/** The label of requests no route matched (unknown paths): one series for all of them, whatever their URLs. */
const UNMATCHED_ROUTE = 'unmatched';

/** Route templates as the OpenAPI document writes them (`/members/{public_id}`), made once per route. */
const templates = new Map<string, string>();

function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  if (url === undefined) return UNMATCHED_ROUTE;
  let template = templates.get(url);
  if (template === undefined) {
    template = url.replace(/:(\w+)/g, '{$1}');
    templates.set(url, template);
  }
  return template;
}

/** Every answered request counted and timed by its route template, method and status (benefits_http_*). */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
  });
}

/**
 * GET /metrics: the Prometheus exposition text. Off (404, as any unknown path) with METRICS_ENABLED=false; with
 * METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>` may read it. Not an API key: a scraper is not a
 * tenant, and the metrics are the whole process's (they carry no tenant's data). Not rate limited, not in the
 * OpenAPI document (it is for operators, not integrators).
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, settings: Config['metrics']): void {
  if (!settings.enabled) return;
  const expected = settings.token === undefined ? undefined : Buffer.from(`Bearer ${settings.token}`);
  app.get('/metrics', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    if (expected !== undefined) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('authentication_error', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".');
      }
    }
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}

/**
 * Each request's log lines, from the moment its key is known, carry the provider and the API key's id (never the
 * key): `provider` and `apiKey` on the "request completed" line among others. Register after authentication.
 */
export function logCallers(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth as FastifyRequest['auth'] | null;
    if (!auth) return;
    const log = request.log.child({ provider: auth.providerId, apiKey: auth.apiKeyId });
    request.log = log;
    reply.log = log;
  });
}

const TRACER_NAME = 'benefits-enrollment-service';

/**
 * One server span per request, named `METHOD /route/:template`, continuing the caller's trace when it sent a W3C
 * `traceparent`. Registered only when tracing is on (observability/tracing.ts started the SDK): otherwise no hook.
 */
export function traceRequests(app: FastifyInstance, version: string): void {
  const tracer = trace.getTracer(TRACER_NAME, version);
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', async (request) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = routeOf(request);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'url.path': request.url.split('?', 1)[0] ?? '/',
          'service.version': version,
          'benefits.request_id': request.id,
        },
      },
      parent,
    );
    spans.set(request, span);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    const auth = request.auth as FastifyRequest['auth'] | null;
    if (auth) span.setAttributes({ 'benefits.provider_id': auth.providerId, 'benefits.api_key_id': auth.apiKeyId });
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    spans.delete(request);
  });
}
