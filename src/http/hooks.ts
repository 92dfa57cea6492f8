import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { jobsEnqueuedSoFar, type Wakeable } from '../jobs/job-wake.ts';
import { AppError } from '../shared/errors.ts';
import { refuseUnreadableBody } from './json-body.ts';
import { API_VERSION } from './openapi.ts';
import { assertValidHost, installUnknownRoutes } from './routing.ts';

/**
 * The first hooks, registered before any other (buildApp's order is the order requests meet them):
 *
 * - a request refused before its body has all arrived (no key, unknown path, a body it may not send) is
 *   answered and its connection closed, rather than kept alive to read and discard megabytes nobody asked for
 *   (and, for a client trickling them, to answer a second time with the request timeout's 408);
 * - what needs no key and no body is answered at once, before either is looked at: the request id and
 *   API-Version on every answer, a bad Host, an unknown path or method (404/405), an unknown API-Version.
 */
export function registerFirstHooks(app: FastifyInstance): void {
  const refuseUnknownRoute = installUnknownRoutes(app);
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.complete) void reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id).header('api-version', API_VERSION);
    assertValidHost(request);
    refuseUnknownRoute(request);
    const requested = request.headers['api-version'];
    if (requested !== undefined && requested !== API_VERSION) {
      throw new AppError('invalid_request', `Unknown API-Version "${String(requested)}". This server speaks ${API_VERSION}.`);
    }
  });
}

/**
 * The rate limit (when configured), between authentication's two steps (register it after authentication):
 * requests with a valid key count against the key, all others (no key, an unknown or revoked one) against the
 * client's address, before they are refused.
 */
export async function registerRateLimit(app: FastifyInstance, limit: Config['rateLimit']): Promise<void> {
  if (limit.max <= 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => request.auth?.apiKeyId ?? `address:${request.ip}`,
    errorResponseBuilder: (request, context) =>
      new AppError(
        'throttled',
        `Too many requests ${request.auth ? 'for this API key' : 'without a valid API key from this address'}; retry in ${Math.ceil(context.ttl / 1000)} seconds.`,
      ),
  });
}

/** A body the request may not send is refused before it is read: after authentication's refusal, so that a caller without a key learns that first. */
export function refuseUnreadableBodies(app: FastifyInstance): void {
  app.addHook('preParsing', async (request) => {
    refuseUnreadableBody(request);
  });
}

/**
 * The HTTP side of the one wake policy (jobs/job-wake.ts): a write request that enqueued jobs (its own, or
 * webhook deliveries of its events) wakes the worker once it has answered, its transaction committed, so that
 * they run at once instead of at the next poll. Only such requests wake it: a claim per write would cost the
 * busiest write paths a transaction each for nothing.
 */
export function wakeJobsAfterWrites(app: FastifyInstance, worker: Wakeable | undefined): void {
  if (!worker) return;
  // Compared with the count when the request began: jobs enqueued by this request, or by one that answered
  // meanwhile, wake the worker after this answer (so one committed after another's wake is not left waiting).
  const atStart = new WeakMap<object, number>();
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') atStart.set(request, jobsEnqueuedSoFar());
  });
  app.addHook('onResponse', async (request) => {
    const before = atStart.get(request);
    if (before !== undefined && jobsEnqueuedSoFar() > before) worker.wake();
  });
}
