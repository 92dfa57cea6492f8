import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../shared/errors.ts';
import { isWellFormedId, newId } from '../shared/ids.ts';
import { sendError } from './errors.ts';
import { API_VERSION } from './openapi.ts';

/** The largest JSON body (documents have their own, larger limit on their route). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface LogStream {
  write(line: string): void;
}

/**
 * Fastify's options for the service: the logger (with its redactions), the body limit, the timeouts that cut
 * slow clients, request ids, and the answers to what never reaches a route (frameworkErrors, a request that is
 * not HTTP: clientErrorHandler), in the one error shape. `logStream`: where log lines go (stdout when absent).
 */
export function serverOptions(config: Config, logStream?: LogStream): FastifyHttpOptions<Server> {
  return {
    logger: {
      level: config.logLevel,
      // Request bodies are never logged; these paths guard against a header or field slipping into a line.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.ssn', '*.key'], censor: '[redacted]' },
      ...(logStream ? { stream: logStream } : {}),
    },
    bodyLimit: BODY_LIMIT_BYTES,
    // Slow clients (a byte every few seconds) get a 408 and lose the socket instead of holding it forever.
    requestTimeout: config.connections.requestTimeoutMs,
    keepAliveTimeout: config.connections.keepAliveTimeoutMs,
    // A client that stops reading an answer: its socket is closed after this long without progress.
    connectionTimeout: Math.max(2 * config.connections.requestTimeoutMs, 120_000),
    // Node checks the request and header timeouts on this interval (30 s by default, too coarse for them).
    http: { headersTimeout: config.connections.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      // randomUUID draws from a cached entropy pool: far cheaper per request than newId's randomBytes.
      return typeof given === 'string' && given.length <= 64 && isWellFormedId(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: (_error, request, reply) => {
      void reply.header('x-request-id', request.id).header('api-version', API_VERSION);
      void sendError(request, reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0] ?? '/'}.`));
    },
    clientErrorHandler: (error, socket) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const requestId = newId('request');
      const timedOut = code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const message = timedOut ? 'The request did not arrive in time.' : 'The request could not be parsed as HTTP (headers too large or malformed).';
      const body = JSON.stringify({ type: 'invalid_request', message, request_id: requestId });
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nAPI-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}
