import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const date = postgres ? 'date' : 'text';

  // COBRA qualifying events (29 U.S.C. 1163), recorded in the transaction of the approval that ends group
  // health coverage. Read-only through the API.
  await db.schema
    .createTable('cobra_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_date', date, (c) => c.notNull())
    // The first day without coverage.
    .addColumn('coverage_lost_date', date, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cobra_events_page').on('cobra_events').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('cobra_events_employer_page').on('cobra_events').columns(['provider_id', 'employer_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('cobra_events_member_page').on('cobra_events').columns(['provider_id', 'member_id', 'created_at', 'id']).execute();

  // Who lost which line by which event. The primary key is what makes recording idempotent: a loss already
  // recorded for the member's event (type and date) on the same day is never recorded again, by a rerun sweep,
  // a retry or another enrollment of the same event.
  await db.schema
    .createTable('cobra_event_losses')
    .addColumn('cobra_event_id', 'text', (c) => c.notNull().references('cobra_events.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_date', date, (c) => c.notNull())
    .addColumn('coverage_lost_date', date, (c) => c.notNull())
    .addColumn('line_of_coverage', 'text', (c) => c.notNull())
    // The member's id for the member's own loss, else the dependent's.
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('cobra_event_losses_once', ['member_id', 'event_type', 'event_date', 'coverage_lost_date', 'line_of_coverage', 'person_id'])
    .execute();
  await db.schema.createIndex('cobra_event_losses_event').on('cobra_event_losses').columns(['cobra_event_id', 'position']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cobra_event_losses').execute();
  await db.schema.dropTable('cobra_events').execute();
}
