import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { pendingMigrations } from '../db/migrate.ts';
import type { Database } from '../db/schema.ts';
import type { Encrypter } from '../shared/crypto.ts';

/** One readiness check: resolves to undefined when it passes, or to why not (a sentence safe for anyone to read). */
export interface ReadinessCheck {
  readonly name: string;
  run(): Promise<string | undefined>;
}

/** A check that has not answered in this long has failed: a load balancer's probe must not hang. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * The standard checks: the database answers, its schema is this build's (no migration pending), and the
 * encryption key reads what is stored (a value encrypted with another key fails its authentication tag).
 */
export function standardReadinessChecks(db: Kysely<Database>, encrypter: Encrypter): ReadinessCheck[] {
  return [
    {
      name: 'database',
      run: async () => {
        await sql`select 1`.execute(db);
        return undefined;
      },
    },
    {
      name: 'migrations',
      run: async () => {
        const pending = await pendingMigrations(db);
        if (pending.length === 0) return undefined;
        return `${pending.length} migration(s) of this version are not applied (first: ${pending[0]}); run "benefits migrate" or restart "benefits serve".`;
      },
    },
    encryptionKeyCheck(db, encrypter),
  ];
}

/** After finding nothing encrypted, how long the key check answers ok before it looks again (the look may scan members). */
const NOTHING_STORED_RECHECK_MS = 60_000;

/**
 * Decrypts one stored value (a member's SSN, else a webhook endpoint's secret): a key other than the one the data
 * was written with fails here, instead of at the first request that reads it. Nothing stored yet: nothing to fail.
 * The process's key does not change, so once a value decrypts the check passes from then on without a query;
 * probes come every few seconds, and finding nothing may mean reading the whole members table.
 */
function encryptionKeyCheck(db: Kysely<Database>, encrypter: Encrypter): ReadinessCheck {
  let verified = false;
  let nothingStoredUntil = 0;
  return {
    name: 'encryption_key',
    run: async () => {
      if (verified || performance.now() < nothingStoredUntil) return undefined;
      const member = await db.selectFrom('members').select('ssn_encrypted as value').where('ssn_encrypted', 'is not', null).limit(1).executeTakeFirst();
      const stored = member?.value ?? (await db.selectFrom('webhook_endpoints').select('secret_ciphertext as value').limit(1).executeTakeFirst())?.value;
      if (!stored) {
        nothingStoredUntil = performance.now() + NOTHING_STORED_RECHECK_MS;
        return undefined;
      }
      try {
        encrypter.decrypt(stored);
        verified = true;
        return undefined;
      } catch {
        return 'BENEFITS_ENCRYPTION_KEY cannot read the data stored in this database (it was written with another key).';
      }
    },
  };
}

/**
 * GET /healthz (liveness: the process answers and reaches its database; with the version) and GET /readyz
 * (readiness: every check passes; 503 with each check's status and reason otherwise). Both public, not rate
 * limited, and outside the OpenAPI document. A check's error is logged with its details; the answer gives only
 * the check's reason, or that it failed.
 */
export function registerHealthRoutes(app: FastifyInstance, db: Kysely<Database>, version: string, checks: readonly ReadinessCheck[]): void {
  app.get('/healthz', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(db);
      return { status: 'ok', version };
    } catch {
      return reply.code(503).send({ status: 'unavailable', version });
    }
  });

  app.get('/readyz', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    const results = await Promise.all(
      checks.map(async (check) => {
        try {
          const reason = await withTimeout(check.run());
          return [check.name, reason === undefined ? { status: 'ok' } : { status: 'failed', reason }] as const;
        } catch (error) {
          request.log.warn({ check: check.name, err: error }, 'readiness check failed');
          const reason = error instanceof CheckTimeout ? error.message : `The ${check.name} check failed (details in the log).`;
          return [check.name, { status: 'failed', reason }] as const;
        }
      }),
    );
    const ready = results.every(([, result]) => result.status === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', version, checks: Object.fromEntries(results) });
  });
}

class CheckTimeout extends Error {
  override name = 'CheckTimeout';
}

async function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`No answer within ${CHECK_TIMEOUT_MS / 1000} s.`)), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
