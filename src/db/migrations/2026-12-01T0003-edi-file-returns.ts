import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * A 999/TA1 rejection sends a file's benefit changes back to be sent, so a change may now be in several files
 * over time, but in at most one that was not rejected:
 *
 * - `edi_file_changes` is keyed by change and file (it was keyed by the change alone: one file per change,
 *   ever), with `returned_at`, set when the file's rejection sent the change back. A unique index on the
 *   change over the rows not returned keeps each change in one live file, even when builds race.
 *   The rows of files already rejected are marked returned (at their acknowledgement): a rejected file carries
 *   nothing live.
 * - `edi_files.replaces_file_id`: the rejected file a resend was built for (POST /edi_files/{id}/resend).
 *
 * SQLite cannot change a primary key, so the table is made again and its rows copied, on both databases alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('edi_file_changes_next')
    .addColumn('benefit_change_id', 'text', (c) => c.notNull().references('benefit_changes.id'))
    .addColumn('edi_file_id', 'text', (c) => c.notNull().references('edi_files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('returned_at', 'text')
    .addPrimaryKeyConstraint('edi_file_changes_change_file_pk', ['benefit_change_id', 'edi_file_id'])
    .execute();
  await sql`
    insert into edi_file_changes_next (benefit_change_id, edi_file_id, position, returned_at)
    select c.benefit_change_id, c.edi_file_id, c.position,
           case when f.status = 'rejected' then coalesce(f.acknowledged_at, f.created_at) else null end
    from edi_file_changes c join edi_files f on f.id = c.edi_file_id`.execute(db);
  await db.schema.dropTable('edi_file_changes').execute();
  await db.schema.alterTable('edi_file_changes_next').renameTo('edi_file_changes').execute();
  await db.schema.createIndex('edi_file_changes_file').on('edi_file_changes').columns(['edi_file_id', 'position']).execute();
  await db.schema
    .createIndex('edi_file_changes_live')
    .on('edi_file_changes')
    .column('benefit_change_id')
    .unique()
    .where(sql.ref('returned_at'), 'is', null)
    .execute();

  await db.schema.alterTable('edi_files').addColumn('replaces_file_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('edi_files').dropColumn('replaces_file_id').execute();
  await db.schema
    .createTable('edi_file_changes_previous')
    .addColumn('benefit_change_id', 'text', (c) => c.primaryKey().references('benefit_changes.id'))
    .addColumn('edi_file_id', 'text', (c) => c.notNull().references('edi_files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  // One row per change, as before: the live one, else the latest file's.
  await sql`
    insert into edi_file_changes_previous (benefit_change_id, edi_file_id, position)
    select c.benefit_change_id, c.edi_file_id, c.position
    from edi_file_changes c
    where not exists (
      select 1 from edi_file_changes o
      where o.benefit_change_id = c.benefit_change_id and o.edi_file_id <> c.edi_file_id
        and ((o.returned_at is null and c.returned_at is not null)
          or ((o.returned_at is null) = (c.returned_at is null) and o.edi_file_id > c.edi_file_id)))`.execute(db);
  await db.schema.dropTable('edi_file_changes').execute();
  await db.schema.alterTable('edi_file_changes_previous').renameTo('edi_file_changes').execute();
  await db.schema.createIndex('edi_file_changes_file').on('edi_file_changes').columns(['edi_file_id', 'position']).execute();
}
