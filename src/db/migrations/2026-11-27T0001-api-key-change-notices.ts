import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * PostgreSQL: every statement that changes api_keys (insert, update, delete, truncate, from any process, the
 * CLI or by hand) sends a notice on the `benefits_api_keys` channel when it commits, so that each server
 * process can keep the callers it verified in memory and forget them the moment a key changes. SQLite needs
 * nothing: its data_version tells the same.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create function api_keys_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('benefits_api_keys', '');
  return null;
end
$$`.execute(db);
  await sql`create trigger api_keys_changed after insert or update or delete on api_keys for each statement execute function api_keys_changed()`.execute(db);
  await sql`create trigger api_keys_truncated after truncate on api_keys for each statement execute function api_keys_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop trigger api_keys_truncated on api_keys`.execute(db);
  await sql`drop trigger api_keys_changed on api_keys`.execute(db);
  await sql`drop function api_keys_changed()`.execute(db);
}
