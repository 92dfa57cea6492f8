import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * `carrier_files`: what a carrier says it holds for a group (a census as CSV), compared with our coverage on a
 * day. The file itself is not kept (a carrier's file may hold SSNs): only its row count, the rows that could not
 * be read (line, column, message) and the discrepancies found (ids, kinds, file lines), as JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('as_of', 'text', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .addColumn('row_problems', 'text', (c) => c.notNull())
    .addColumn('discrepancies', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('carrier_files_group').on('carrier_files').columns(['group_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('carrier_files').execute();
}
