import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { isUniqueViolation } from '../db/database.ts';
import { runWithReservation, type IdempotencyReservation } from '../db/idempotency-reservation.ts';
import type { Database } from '../db/schema.ts';
import { isTransientConflict } from '../db/transaction-conflicts.ts';
import { AppError, ConcurrentChange } from '../shared/errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { Encrypter } from '../shared/crypto.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw JSON body text, kept for the idempotency fingerprint. */
    rawBody?: string;
    /** The Idempotency-Key reservation this request holds while it runs. */
    idempotencyReservation?: IdempotencyReservation;
  }
}

const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/**
 * How long a reservation's holder may go without committing (or keeping its response) before a retry takes
 * its process to be dead. Long enough for any request this service answers; a request that does run longer
 * and is taken over loses cleanly: its write transaction rolls back, and only the retry's takes effect.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;
const WAIT_FOR_FIRST_MS = 10_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What makes a retry "the same request": the method, the path with its query string, and the exact body text. */
export function requestFingerprint(method: string, url: string, rawBody: string | undefined): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${rawBody ?? ''}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (status and body) is kept
 * for 24 hours, per API key. A retry with the same request gets that response back without running again;
 * the same key with a different request is a 409. A retry that arrives while the first is still running
 * waits for it. 5xx responses (and the 409 of a collision, ConcurrentChange) are not kept, so a retry after a
 * server fault or a collision runs again (unless the first committed a change before failing). Kept responses are encrypted at rest: some carry a secret shown once
 * (a new API key, a webhook endpoint's signing secret).
 *
 * Crash safety: the reservation names its holder (a random token), and the request's write transactions mark
 * it committed in the same transaction as the write (markReservationCommitted). So after the process dies a
 * retry knows whether the first run took effect: if it did, the retry is told so (409, never run twice); if
 * not, the retry takes the reservation over once the lease has run out and runs the request.
 */
export function registerIdempotency(app: FastifyInstance, db: Kysely<Database>, clock: Clock, encrypter: Encrypter): void {
  // Claimed before validation (the body is parsed by then: rawBody is set), so that a validation 400 is kept
  // and replayed like every other 4xx. Callback style: the rest of the request runs inside the reservation's
  // async context (runWithReservation), where its write transactions find it.
  app.addHook('preValidation', (request, reply, done) => {
    // Unknown paths (404/405) are answered without a key, so there is no caller to keep their answer for.
    if (request.method !== 'POST' || request.routeOptions.config.public || request.routeOptions.url === undefined) return done();
    const key = request.headers['idempotency-key'];
    if (key === undefined) return done();
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      return done(new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.'));
    }
    const apiKeyId = request.auth.apiKeyId;
    void claimOrReplay(db, clock, apiKeyId, key, requestFingerprint(request.method, request.url, request.rawBody)).then((claim) => {
      if (claim.kind === 'replay') {
        try {
          sendReplay(reply, { status: claim.status, body: storedBody(encrypter, claim.body) });
        } catch (error) {
          done(error as Error);
        }
        return;
      }
      const reservation: IdempotencyReservation = { apiKeyId, key, owner: claim.owner, open: true };
      request.idempotencyReservation = reservation;
      runWithReservation(reservation, done);
    }, done);
  });

  // A request that collided with another (ConcurrentChange) changed nothing and is meant to be sent again: its
  // 409 is not kept, like a 5xx, so that the retry with the same key runs (docs/decisions.md "Two changes to one
  // enrollment at once").
  const collided = new WeakSet<FastifyRequest>();
  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof ConcurrentChange || isTransientConflict(error)) collided.add(request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotencyReservation;
    if (!reservation) return payload;
    reservation.open = false;
    if (reply.statusCode >= 500 || collided.has(request)) {
      // Only if nothing committed: a request that changed something and then failed keeps its reservation
      // (committed, without a response), so that a retry learns it took effect instead of running it again.
      await db
        .deleteFrom('idempotency_keys')
        .where(heldBy(reservation.apiKeyId, reservation.key, reservation.owner))
        .where('state', '=', 'in_progress')
        .execute();
      return payload;
    }
    // Held by a retry that took over instead (this request ran past the lease): the retry keeps its own answer.
    await db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: reply.statusCode, response_body: encrypter.encrypt(typeof payload === 'string' ? payload : '') })
      .where(heldBy(reservation.apiKeyId, reservation.key, reservation.owner))
      .execute();
    return payload;
  });
}

type Claim = { kind: 'claimed'; owner: string } | { kind: 'replay'; status: number; body: string };

/** The reservation of `key`, as long as `owner` still holds it (null: a row from before owners). */
function heldBy(apiKeyId: string, key: string, owner: string | null) {
  return (eb: ExpressionBuilder<Database, 'idempotency_keys'>) =>
    eb.and([eb('api_key_id', '=', apiKeyId), eb('idempotency_key', '=', key), owner === null ? eb('owner', 'is', null) : eb('owner', '=', owner)]);
}

async function claimOrReplay(db: Kysely<Database>, clock: Clock, apiKeyId: string, key: string, fingerprint: string): Promise<Claim> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  // Random, not the claim's timestamp: two holders of one key may claim in the same millisecond (a takeover
  // racing a slow first request, processes whose clocks differ), and a token must never match another's.
  const owner = randomUUID();
  for (;;) {
    const now = clock.now();
    try {
      await db
        .insertInto('idempotency_keys')
        .values({
          api_key_id: apiKeyId,
          idempotency_key: key,
          request_hash: fingerprint,
          state: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: now.toISOString(),
          owner,
          leased_at: now.toISOString(),
        })
        .execute();
      return { kind: 'claimed', owner };
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
        .where(heldBy(apiKeyId, key, existing.owner))
        .where('created_at', '=', existing.created_at)
        .execute();
      continue;
    }
    if (existing.request_hash !== fingerprint) {
      throw new AppError('idempotency_error', 'This Idempotency-Key was used with a different request. Use a new key for a new request.');
    }
    if (existing.state === 'done' && existing.response_status !== null) {
      return { kind: 'replay', status: existing.response_status, body: existing.response_body ?? '' };
    }
    // Rows from before owners have no lease: they stay in progress until they expire, as they always did.
    const abandoned = existing.owner !== null && existing.leased_at !== null && Date.parse(existing.leased_at) + IDEMPOTENCY_LEASE_MS <= now.getTime();
    if (abandoned && existing.state === 'committed') {
      throw new AppError(
        'idempotency_error',
        'The first request with this Idempotency-Key took effect, but its response was lost (the service stopped before keeping it). ' +
          'It will not run again: read the record it created or changed to see the outcome.',
      );
    }
    if (abandoned) {
      // Its holder died before committing anything: take it over and run the request. Conditional on the
      // holder and the state, so that of two retries one wins, and a holder that commits meanwhile keeps it.
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ owner, leased_at: now.toISOString() })
        .where(heldBy(apiKeyId, key, existing.owner))
        .where('state', '=', 'in_progress')
        .executeTakeFirst();
      if (taken.numUpdatedRows > 0n) return { kind: 'claimed', owner };
      continue;
    }
    if (Date.now() > deadline) {
      throw new AppError('idempotency_error', 'A request with this Idempotency-Key is still being processed; retry later.');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface StoredResponse {
  status: number;
  body: string;
}

/** A kept response body as sent: decrypted; one kept before bodies were encrypted (JSON text) as it is. */
function storedBody(encrypter: Encrypter, stored: string): string {
  return stored === '' || stored.startsWith('{') || stored.startsWith('[') ? stored : encrypter.decrypt(stored);
}

function sendReplay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  return reply.code(stored.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(stored.body);
}

/** Removes keys past their 24 hours; called periodically by the server. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - KEY_LIFETIME_MS).toISOString();
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
