import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * The fingerprint of the key personal data at rest is encrypted with, so that a process started with another
 * BENEFITS_ENCRYPTION_KEY refuses to start instead of failing at its first read of encrypted data. One row per
 * stored value format (`v1`: AES-256-GCM, shared/crypto.ts); the fingerprint is an HMAC made with the key, which
 * tells whether two keys are the same and nothing about the key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  await db.schema
    .createTable('encryption_key_fingerprints')
    .addColumn('version', 'text', (column) => column.primaryKey())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('created_at', timestamp, (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('encryption_key_fingerprints').execute();
}
