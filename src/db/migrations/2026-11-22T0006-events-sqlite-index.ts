import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

const SECONDARY = [
  ['events_object', ['provider_id', 'object_id', 'created_at', 'id']],
  ['events_type', ['provider_id', 'event_type', 'created_at', 'id']],
  ['events_employer', ['provider_id', 'employer_id', 'created_at', 'id']],
  ['events_created', ['created_at']],
] as const;

/**
 * On SQLite the events table keeps one index, covering every column GET /events filters on, instead of five.
 * Every event is written in the transaction of its change, and on SQLite each index a transaction touches
 * costs pages written to the log at commit: with five indexes the events of an enrollment's create, submit and
 * approve made that flow about half again as costly (and 50,000 sweep notifications' events took seconds).
 * A filter the leading columns do not serve (object, type, employer) reads the provider's entries in this one
 * index, newest first, without touching the table until a row matches: bounded by retention, about 0.1 s per
 * million events for a filter that matches nothing. PostgreSQL keeps its indexes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  for (const [name] of SECONDARY) await db.schema.dropIndex(name).execute();
  await db.schema.dropIndex('events_page').execute();
  await db.schema
    .createIndex('events_page')
    .on('events')
    .columns(['provider_id', 'created_at', 'id', 'employer_id', 'object_type', 'event_type', 'object_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.dropIndex('events_page').execute();
  await db.schema.createIndex('events_page').on('events').columns(['provider_id', 'created_at', 'id']).execute();
  for (const [name, columns] of SECONDARY) await db.schema.createIndex(name).on('events').columns([...columns]).execute();
}
