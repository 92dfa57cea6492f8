import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import {
  REFUSED_ADDRESS,
  checkResolved,
  classifyHost,
  isAllowedAddress,
  isAllowedKind,
  refusedHostError,
  resolutionError,
  systemResolver,
  withoutAddresses,
  type OutboundPolicy,
  type ResolvedAddress,
  type Resolver,
} from '../../shared/outbound-address.ts';

/** What became of one POST. */
export interface SendOutcome {
  succeeded: boolean;
  /** The response status, or null when none came (refused, unreachable, timed out). */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, for the attempt record: never response headers, at most a short excerpt of the body. */
  error: string | null;
}

export type { Resolver } from '../../shared/outbound-address.ts';

export interface WebhookSenderOptions {
  /** Development only: loopback addresses are allowed (OUTBOUND_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** The whole exchange (connect, send, response headers) must finish in this long; 10 s by default. */
  timeoutMs?: number;
  resolve?: Resolver;
  userAgent?: string;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** The most of a failed response's body kept in an attempt's error. */
const EXCERPT_CHARACTERS = 200;

/**
 * POSTs webhook bodies with undici over a shared keep-alive pool. The outbound address policy
 * (src/shared/outbound-address.ts) sits in the connection itself: the host is resolved there and every address
 * it resolves to must be allowed, the socket connects to those very addresses (so a DNS answer that changes
 * between a check and the connection cannot slip through), IP literals are checked before connecting, and the
 * connected peer is checked once more.
 * Redirects are never followed: a 3xx is a failed attempt.
 */
export class WebhookSender {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(options: WebhookSenderOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.#userAgent = options.userAgent ?? 'benefits-webhooks/1';
    const policy: OutboundPolicy = { allowLoopback: options.allowLoopback };
    const resolve = options.resolve ?? systemResolver;
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      const refusal = (error: Error) => callback(error, '', 0);
      resolve(hostname).then(
        (addresses) => {
          let checked: readonly ResolvedAddress[];
          try {
            checked = checkResolved(hostname, addresses, policy);
          } catch (error) {
            return refusal(error as Error);
          }
          const first = checked[0] as ResolvedAddress;
          if (lookupOptions.all) return (callback as unknown as (error: null, addresses: readonly ResolvedAddress[]) => void)(null, checked);
          callback(null, first.address, first.family);
        },
        (error: unknown) => refusal(resolutionError(hostname, error)),
      );
    };
    const connectTimeout = this.#timeoutMs;
    const connector = buildConnector({ timeout: connectTimeout, lookup });
    const guardedConnector: buildConnector.connector = (connectOptions, callback) => {
      const { hostname } = connectOptions;
      // Literals, and names that can only be internal, are refused before any lookup.
      const kind = classifyHost(hostname);
      if (kind !== undefined && !isAllowedKind(kind, policy)) {
        callback(refusedHostError(hostname), null);
        return;
      }
      connector(connectOptions, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no socket'), null);
        const peer = socket.remoteAddress;
        if (peer !== undefined && !isAllowedAddress(peer, policy)) {
          socket.destroy();
          return callback(refusedHostError(hostname), null);
        }
        callback(null, socket);
      });
    };
    this.#agent = new Agent({
      connect: guardedConnector,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      keepAliveTimeout: 4_000,
      // One receiver should not hold more sockets than the worker runs deliveries at once.
      connections: 64,
    });
  }

  /** POSTs `body`: success on any 2xx within the timeout; never throws. */
  async send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // A timer cleared as soon as the exchange ends (AbortSignal.timeout would keep every request's objects
    // reachable for the whole 10 s, which at hundreds of deliveries a second is a lot of memory).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    const { signal } = controller;
    try {
      const response = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': this.#userAgent, ...headers },
        dispatcher: this.#agent,
        signal,
      });
      const { statusCode } = response;
      if (statusCode >= 200 && statusCode < 300) {
        const durationMs = elapsed();
        await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        return { succeeded: true, statusCode, durationMs, error: null };
      }
      const excerpt = await readExcerpt(response.body, signal);
      const durationMs = elapsed();
      const error =
        statusCode >= 300 && statusCode < 400
          ? `HTTP ${statusCode}: redirects are not followed; answer 2xx at the endpoint's URL itself.`
          : `HTTP ${statusCode}${excerpt ? `: ${excerpt}` : ''}`;
      return { succeeded: false, statusCode, durationMs, error };
    } catch (error) {
      return { succeeded: false, statusCode: null, durationMs: elapsed(), error: this.#describe(error, signal) };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #describe(error: unknown, signal: AbortSignal): string {
    if (signal.aborted) return `No response within ${this.#timeoutMs / 1000} s.`;
    const failure = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = failure.code ?? failure.cause?.code;
    if (code === REFUSED_ADDRESS) return failure.message;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `No response within ${this.#timeoutMs / 1000} s.`;
    // The addresses in Node's texts (connect ECONNREFUSED 203.0.113.9:443) are left out: the host is the endpoint's.
    const message = withoutAddresses(failure.message || String(error)).slice(0, 300);
    return code && !message.includes(code) ? `${code}: ${message}` : message;
  }
}

/** The first characters of a failed response's body, as one line; the rest is discarded. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }, signal: AbortSignal): Promise<string> {
  let text = '';
  try {
    for await (const chunk of body) {
      if (signal.aborted) break;
      text += chunk.toString('utf8');
      if (text.length >= EXCERPT_CHARACTERS) break;
    }
  } catch {
    // a body cut short leaves what arrived
  } finally {
    body.destroy();
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > EXCERPT_CHARACTERS ? `${line.slice(0, EXCERPT_CHARACTERS)}…` : line;
}
