import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../shared/errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { Encrypter } from '../shared/crypto.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw JSON body text, kept for the idempotency fingerprint. */
    rawBody?: string;
    idempotencyKey?: string;
  }
}

const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const WAIT_FOR_FIRST_MS = 10_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (status and body) is kept
 * for 24 hours, per API key. A retry with the same request gets that response back without running again;
 * the same key with a different request is a 409. A retry that arrives while the first is still running
 * waits for it. 5xx responses are not kept, so a retry after a server fault runs again. Kept responses are
 * encrypted at rest: some carry a secret shown once (a new API key, a webhook endpoint's signing secret).
 */
export function registerIdempotency(app: FastifyInstance, db: Kysely<Database>, clock: Clock, encrypter: Encrypter): void {
  // Claimed before validation (the body is parsed by then: rawBody is set), so that a validation 400 is kept
  // and replayed like every other 4xx.
  app.addHook('preValidation', async (request, reply) => {
    // Unknown paths (404/405) are answered without a key, so there is no caller to keep their answer for.
    if (request.method !== 'POST' || request.routeOptions.config.public || request.routeOptions.url === undefined) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
    }
    const fingerprint = createHash('sha256').update(`${request.method} ${request.url}\n${request.rawBody ?? ''}`).digest('hex');
    const replayed = await claimOrReplay(db, clock, request.auth.apiKeyId, key, fingerprint);
    if (replayed) return sendReplay(reply, { status: replayed.status, body: storedBody(encrypter, replayed.body) });
    request.idempotencyKey = key;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (key === undefined) return payload;
    const query = db.deleteFrom('idempotency_keys').where('api_key_id', '=', request.auth.apiKeyId).where('idempotency_key', '=', key);
    if (reply.statusCode >= 500) {
      await query.execute();
      return payload;
    }
    await db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: reply.statusCode, response_body: encrypter.encrypt(typeof payload === 'string' ? payload : '') })
      .where('api_key_id', '=', request.auth.apiKeyId)
      .where('idempotency_key', '=', key)
      .execute();
    return payload;
  });
}

interface StoredResponse {
  status: number;
  body: string;
}

async function claimOrReplay(
  db: Kysely<Database>,
  clock: Clock,
  apiKeyId: string,
  key: string,
  fingerprint: string,
): Promise<StoredResponse | undefined> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const now = clock.now();
    try {
      await db
        .insertInto('idempotency_keys')
        .values({ api_key_id: apiKeyId, idempotency_key: key, request_hash: fingerprint, state: 'in_progress', response_status: null, response_body: null, created_at: now.toISOString() })
        .execute();
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!existing) continue; // deleted in between (expired or a 5xx): claim again
    if (Date.parse(existing.created_at) + KEY_LIFETIME_MS <= now.getTime()) {
      await db
        .deleteFrom('idempotency_keys')
        .where('api_key_id', '=', apiKeyId)
        .where('idempotency_key', '=', key)
        .where('created_at', '=', existing.created_at)
        .execute();
      continue;
    }
    if (existing.request_hash !== fingerprint) {
      throw new AppError('idempotency_error', 'This Idempotency-Key was used with a different request. Use a new key for a new request.');
    }
    if (existing.state === 'done' && existing.response_status !== null) {
      return { status: existing.response_status, body: existing.response_body ?? '' };
    }
    if (Date.now() > deadline) {
      throw new AppError('idempotency_error', 'A request with this Idempotency-Key is still being processed; retry later.');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A kept response body as sent: decrypted; one kept before bodies were encrypted (JSON text) as it is. */
function storedBody(encrypter: Encrypter, stored: string): string {
  return stored === '' || stored.startsWith('{') || stored.startsWith('[') ? stored : encrypter.decrypt(stored);
}

function sendReplay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  return reply
    .code(stored.status)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(stored.body);
}

/** Removes keys past their 24 hours; called periodically by the server. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - KEY_LIFETIME_MS).toISOString();
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

