import { dirname, join } from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import type { DatabaseHandle } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { Clock } from '../shared/clock.ts';
import { loadOrCreateKeyFile } from '../shared/crypto.ts';
import { recordEncryptionKey, refuseDifferentEncryptionKey } from './encryption-key-check.ts';
import { probeDatabase } from './start-errors.ts';

/**
 * The start checks of every command that reads or writes encrypted data (serve, demo, census import), in the order that writes
 * nothing until they pass: the database answers, the encryption key is there (PostgreSQL) and is the one the
 * database was encrypted with; then migrations, and the key's fingerprint stored on a first start. Returns the key.
 */
export async function openCheckedDatabase(config: Config, database: DatabaseHandle, clock: Clock): Promise<Buffer> {
  await probeDatabase(database);
  const encryptionKey = resolveEncryptionKey(config, database);
  await refuseDifferentEncryptionKey(database.db, encryptionKey);
  await migrateToLatest(database.db);
  await recordEncryptionKey(database.db, encryptionKey, clock.now().toISOString());
  return encryptionKey;
}

/**
 * The key for personal data at rest: BENEFITS_ENCRYPTION_KEY when set. Without it, the embedded database keeps
 * a generated key in `encryption.key` (mode 0600) beside the database file; PostgreSQL deployments must set
 * the variable, since a key file on one server would not travel with the data.
 */
export function resolveEncryptionKey(config: Config, database: DatabaseHandle): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  if (database.kind === 'postgres') {
    throw new ConfigError(
      'BENEFITS_ENCRYPTION_KEY is required with PostgreSQL: set it to 32 random bytes as 64 hex characters (openssl rand -hex 32) and keep it safe; without it stored SSNs cannot be read.',
    );
  }
  const path = database.description.slice('sqlite:'.length);
  if (path === ':memory:') throw new ConfigError('BENEFITS_ENCRYPTION_KEY is required with an in-memory database.');
  return loadOrCreateKeyFile(join(dirname(path), 'encryption.key'));
}
