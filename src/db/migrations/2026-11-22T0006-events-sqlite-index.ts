import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

const FILTERS = [
  ['events_object', ['provider_id', 'object_id', 'created_at', 'id']],
  ['events_type', ['provider_id', 'event_type', 'created_at', 'id']],
  ['events_employer', ['provider_id', 'employer_id', 'created_at', 'id']],
] as const;

/**
 * Retention deletes each provider's oldest events through events_page, so events_created goes on both
 * databases. On SQLite the events table keeps that one index, covering every column GET /events filters on,
 * instead of one per filter: every event is written in the transaction of its change, and on SQLite each index
 * a transaction touches costs pages written to the log at commit. With five indexes the events of an
 * enrollment's create, submit and approve made that flow about half again as costly (and the events of 50,000
 * sweep notifications took seconds). A filter the leading columns do not serve (object, type, employer) reads
 * the provider's entries of this one index, newest first, and touches the table only for rows that match:
 * bounded by retention, about 0.1 s per million events for a filter that matches nothing. PostgreSQL keeps an
 * index per filter.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_created').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  for (const [name] of FILTERS) await db.schema.dropIndex(name).execute();
  await db.schema.dropIndex('events_page').execute();
  await db.schema
    .createIndex('events_page')
    .on('events')
    .columns(['provider_id', 'created_at', 'id', 'employer_id', 'object_type', 'event_type', 'object_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.schema.dropIndex('events_page').execute();
  await db.schema.createIndex('events_page').on('events').columns(['provider_id', 'created_at', 'id']).execute();
  for (const [name, columns] of FILTERS) await db.schema.createIndex(name).on('events').columns([...columns]).execute();
}
