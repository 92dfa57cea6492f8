import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ConfigError } from '../config.ts';
import { Encrypter } from '../shared/crypto.ts';

/** The stored fingerprint of the key personal data at rest is encrypted with (one row per value format). */
export interface EncryptionKeyFingerprintTable {
  version: string;
  fingerprint: string;
  created_at: string;
}

/** The value format the key encrypts (shared/crypto.ts writes 'v1.' values). */
const FORMAT_VERSION = 'v1';

/**
 * HMAC-SHA-256 keyed with the encryption key over a fixed label: equal for equal keys, and, HMAC being a PRF,
 * it tells nothing about the key (no SSN or other data goes into it).
 */
export function encryptionKeyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('benefits encryption key fingerprint v1').digest('hex');
}

const WRONG_KEY =
  'BENEFITS_ENCRYPTION_KEY is not the key this database was encrypted with: start with the key used before (the data stored with it cannot be read with another)';

function sameFingerprint(stored: string, key: Buffer): boolean {
  const expected = Buffer.from(stored, 'hex');
  const given = Buffer.from(encryptionKeyFingerprint(key), 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** True when the table is missing: a database not yet migrated this far. */
function isMissingTable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '42P01' || (typeof message === 'string' && message.includes('no such table'));
}

/**
 * Before migrating: refuses a key that differs from the fingerprint already stored, writing nothing. A database
 * without the table yet (new, or from before the check) passes; `recordEncryptionKey` decides after migrating.
 */
export async function refuseDifferentEncryptionKey(db: Kysely<Database>, key: Buffer): Promise<void> {
  let stored: string | undefined;
  try {
    stored = (await db.selectFrom('encryption_key_fingerprints').select('fingerprint').where('version', '=', FORMAT_VERSION).executeTakeFirst())?.fingerprint;
  } catch (error) {
    if (isMissingTable(error)) return;
    throw error;
  }
  if (stored !== undefined && !sameFingerprint(stored, key)) throw new ConfigError(WRONG_KEY);
}

/**
 * After migrating: compares the key with the stored fingerprint, or stores it on the first start. A database
 * that holds encrypted values from before the fingerprint existed must decrypt one of them first, so a wrong
 * key is never recorded as the right one. Two processes starting together: one row wins, the other compares.
 */
export async function recordEncryptionKey(db: Kysely<Database>, key: Buffer, now: string): Promise<'stored' | 'matched'> {
  return db.transaction().execute(async (trx) => {
    const stored = await trx.selectFrom('encryption_key_fingerprints').select('fingerprint').where('version', '=', FORMAT_VERSION).executeTakeFirst();
    if (stored) {
      if (!sameFingerprint(stored.fingerprint, key)) throw new ConfigError(WRONG_KEY);
      return 'matched';
    }
    const sample = await sql<{ value: string }>`
      select ssn_encrypted as value from members where ssn_encrypted is not null
      union all select ssn_encrypted as value from dependents where ssn_encrypted is not null
      limit 1`.execute(trx);
    const value = sample.rows[0]?.value;
    if (value !== undefined) {
      try {
        new Encrypter(key).decrypt(value);
      } catch {
        throw new ConfigError(WRONG_KEY);
      }
    }
    await trx
      .insertInto('encryption_key_fingerprints')
      .values({ version: FORMAT_VERSION, fingerprint: encryptionKeyFingerprint(key), created_at: now })
      .onConflict((oc) => oc.column('version').doNothing())
      .execute();
    const winner = await trx.selectFrom('encryption_key_fingerprints').select('fingerprint').where('version', '=', FORMAT_VERSION).executeTakeFirstOrThrow();
    if (!sameFingerprint(winner.fingerprint, key)) throw new ConfigError(WRONG_KEY);
    return 'stored';
  });
}
