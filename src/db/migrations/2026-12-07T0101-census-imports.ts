import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * `census_imports`: an HR or payroll roster uploaded for an employer, checked as a dry run (docs/decisions.md
 * "Census imports") and applied later: its status, progress, the file while it waits to be checked (encrypted:
 * it holds SSNs) and the summary of the diff. `census_import_rows`: the diff, one row per file row (create,
 * update, unchanged, error) and one per member of the employer the file left out (missing), each with what it
 * would write, what it saw (a fingerprint of the record at the dry run) and when it was applied.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const real = db.getExecutor().adapter instanceof PostgresAdapter ? 'double precision' : 'real';
  await db.schema
    .createTable('census_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    .addColumn('processed_rows', 'integer', (c) => c.notNull())
    .addColumn('applied_rows', 'integer', (c) => c.notNull())
    .addColumn('max_termination_share', real, (c) => c.notNull())
    .addColumn('content_encrypted', 'text')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('failure', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text')
    .addColumn('applied_at', 'text')
    .execute();
  await db.schema.createIndex('census_imports_provider_created').on('census_imports').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('census_import_rows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('census_import_id', 'text', (c) => c.notNull().references('census_imports.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('line', 'integer')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('employee_id', 'text')
    .addColumn('relationship', 'text')
    .addColumn('member_id', 'text')
    .addColumn('dependent_id', 'text')
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('ssn_encrypted', 'text')
    .addColumn('problems', 'text', (c) => c.notNull())
    .addColumn('terminates', 'integer', (c) => c.notNull())
    .addColumn('seen_version', 'text')
    .addColumn('outcome', 'text')
    .addColumn('outcome_message', 'text')
    .addColumn('applied_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('census_import_rows_position').on('census_import_rows').columns(['census_import_id', 'position']).unique().execute();
  await db.schema.createIndex('census_import_rows_kind').on('census_import_rows').columns(['census_import_id', 'kind', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('census_import_rows').execute();
  await db.schema.dropTable('census_imports').execute();
}
