import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';

  // An Idempotency-Key reservation names the request that holds it (a random token): the request's write
  // transaction marks it committed only while it still holds it, and every later change of the row is made by
  // its holder only. leased_at is when the holder last showed life (claimed, took over or committed): a
  // reservation left unfinished for longer than the lease is taken to be abandoned by a dead process.
  // Rows from before this migration have neither and keep the old rule (in progress until they expire).
  await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('leased_at', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('leased_at').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('owner').execute();
}
