import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * PostgreSQL: a notice on `benefits_api_keys` now carries the schema whose api_keys changed. Notices are
 * database-wide, so where several deployments share one database in schemas of their own, each server forgets
 * its verified keys only when its own schema's keys change (a notice without a payload still means "forget").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function api_keys_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('benefits_api_keys', TG_TABLE_SCHEMA);
  return null;
end
$$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function api_keys_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('benefits_api_keys', '');
  return null;
end
$$`.execute(db);
}
