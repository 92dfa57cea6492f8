import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const date = postgres ? 'date' : 'text';
  const json = postgres ? 'jsonb' : 'text';

  await db.schema
    .createTable('open_enrollment_windows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    // Dates may be missing while the window is set up (status setup_required).
    .addColumn('start_date', date)
    .addColumn('end_date', date)
    .addColumn('renewal_date', date)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('enrollment_type', 'text', (c) => c.notNull())
    // Frozen at complete; live counts are computed while the window runs.
    .addColumn('completed_member_count', 'integer')
    .addColumn('incomplete_member_count', 'integer')
    .addColumn('completed_at', timestamp)
    .addColumn('activated_at', timestamp)
    .addColumn('closed_at', timestamp)
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('open_enrollment_windows_page').on('open_enrollment_windows').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('open_enrollment_windows_employer_page')
    .on('open_enrollment_windows')
    .columns(['provider_id', 'employer_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('open_enrollment_windows_status').on('open_enrollment_windows').columns(['status', 'end_date']).execute();

  await db.schema
    .createTable('open_enrollment_window_plans')
    .addColumn('window_id', 'text', (c) => c.notNull().references('open_enrollment_windows.id').onDelete('cascade'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('open_enrollment_window_plans_pk', ['window_id', 'plan_id'])
    .execute();

  // The window an open_enrollment enrollment belongs to (set when it is submitted in the window).
  await db.schema
    .alterTable('enrollments')
    .addColumn('open_enrollment_window_id', 'text', (c) => c.references('open_enrollment_windows.id'))
    .execute();
  await db.schema.createIndex('enrollments_window').on('enrollments').columns(['open_enrollment_window_id', 'member_id']).execute();
  await db.schema.createIndex('members_employer_hire').on('members').columns(['employer_id', 'hire_date']).execute();

  // The daily sweep: one row per day it ran (or runs), so that one process of many runs it.
  await db.schema
    .createTable('sweep_runs')
    .addColumn('day', date, (c) => c.primaryKey())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', timestamp)
    .addColumn('started_at', timestamp, (c) => c.notNull())
    .addColumn('finished_at', timestamp)
    .execute();
  // One occurrence of a date-driven rule that is not a notification (e.g. ending a terminated member's
  // coverage): inserted first in the transaction that acts on it, so that a repeat or a concurrent run skips it.
  await db.schema
    .createTable('sweep_occurrences')
    .addColumn('occurrence_key', 'text', (c) => c.primaryKey())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sweep_occurrences').execute();
  await db.schema.dropTable('sweep_runs').execute();
  await db.schema.dropIndex('members_employer_hire').execute();
  await db.schema.dropIndex('enrollments_window').execute();
  await db.schema.alterTable('enrollments').dropColumn('open_enrollment_window_id').execute();
  await db.schema.dropTable('open_enrollment_window_plans').execute();
  await db.schema.dropTable('open_enrollment_windows').execute();
}
