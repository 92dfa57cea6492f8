import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { assertAdmin, assertCanWrite, assertProviderWideWrite, type AuthContext } from '../shared/tenancy.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller; set by the authentication hook on every non-public route. */
    auth: AuthContext;
    /** Why the request's key was refused; answered after the rate limiter has counted the request. */
    authRefusal: AppError | undefined;
  }
  interface FastifyContextConfig {
    /** Routes open without an API key (/healthz, /openapi.json, /docs). */
    public?: boolean;
    /**
     * Who may call the route. Default: any key for GET, keys that may write (not read_only) otherwise.
     * `provider`: admin keys without an employer (provider-wide records); `admin`: admin keys only.
     */
    access?: 'read' | 'write' | 'provider' | 'admin';
  }
}

export interface Authenticator {
  authenticate(token: string): Promise<AuthContext | undefined>;
}

const BEARER = /^Bearer +(\S+)$/i;

/**
 * Bearer-key authentication on every route not marked `config.public` (docs/decisions.md "Requests" and "Rate
 * limits"), in two steps so that the rate limiter between them counts every request: `onRequest` identifies the
 * caller (a request without a valid key is remembered as refused, and limited per client address), `preParsing`
 * refuses it or checks the key's role. Both run before a byte of the body is read.
 */
export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.decorateRequest('authRefusal', undefined);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    try {
      request.auth = await authenticateRequest(request, authenticator);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      request.authRefusal = error;
    }
  });
  app.addHook('preParsing', async (request) => {
    if (request.routeOptions.config.public) return;
    if (request.authRefusal) throw request.authRefusal;
    // Before validation, so that a key that may not call the route learns that first (403, not 400).
    authorize(request.auth, request.routeOptions.config.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write'));
  });
}

function authorize(auth: AuthContext, access: 'read' | 'write' | 'provider' | 'admin'): void {
  switch (access) {
    case 'read':
      return;
    case 'write':
      return assertCanWrite(auth);
    case 'provider':
      return assertProviderWideWrite(auth);
    case 'admin':
      return assertAdmin(auth);
  }
}

async function authenticateRequest(request: FastifyRequest, authenticator: Authenticator): Promise<AuthContext> {
  const header = request.headers.authorization;
  if (!header) throw new AppError('authentication_error', 'Send your API key as "Authorization: Bearer <API_KEY>".');
  const match = BEARER.exec(header.trim());
  if (!match?.[1]) throw new AppError('authentication_error', 'The Authorization header must be "Bearer <API_KEY>".');
  const auth = await authenticator.authenticate(match[1]);
  if (!auth) throw new AppError('authentication_error', 'The API key is unknown or revoked.');
  return auth;
}
