import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const date = postgres ? 'date' : 'text';

  // Why an enrollment was cancelled when the service cancelled it (a member's termination); null when a client did.
  await db.schema.alterTable('enrollments').addColumn('cancellation_reason', 'text').execute();

  // A termination applied to a member's coverage: what it ended, so that undoing it before it takes effect
  // can give back exactly that. One row per member, termination date and coverage end.
  await db.schema
    .createTable('coverage_terminations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    // The qle `terminated` enrollment that carries its benefit changes.
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id'))
    .addColumn('termination_date', date, (c) => c.notNull())
    // The last day of coverage it gave.
    .addColumn('coverage_end', date, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    // When its COBRA qualifying event was recorded: once the coverage was lost (the day after coverage_end).
    .addColumn('cobra_recorded_at', timestamp)
    // Set when the termination was undone before it took effect, with the enrollment that restored the coverage.
    .addColumn('undone_at', timestamp)
    .addColumn('undone_by_enrollment_id', 'text', (c) => c.references('enrollments.id'))
    .execute();
  await db.schema.createIndex('coverage_terminations_member').on('coverage_terminations').columns(['member_id', 'coverage_end']).execute();
  // The sweep's search for terminations whose coverage has been lost and whose COBRA event is not yet recorded.
  await db.schema.createIndex('coverage_terminations_cobra_due').on('coverage_terminations').columns(['cobra_recorded_at', 'coverage_end']).execute();

  // Each enrolled plan a termination ended or cancelled, with the end it had before.
  await db.schema
    .createTable('coverage_termination_items')
    .addColumn('termination_id', 'text', (c) => c.notNull().references('coverage_terminations.id').onDelete('cascade'))
    .addColumn('enrolled_plan_id', 'text', (c) => c.notNull().references('enrolled_plans.id'))
    .addColumn('previous_end', date)
    .addColumn('ended_on', date, (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('coverage_termination_items_pk', ['termination_id', 'enrolled_plan_id'])
    .execute();

  // A termination cancels the member's enrollments not yet approved: found by member and status.
  await db.schema.createIndex('enrollments_member_status').on('enrollments').columns(['member_id', 'status']).execute();
  // The sweep skips coverage a termination already ended: found by enrolled plan.
  await db.schema.createIndex('coverage_termination_items_plan').on('coverage_termination_items').column('enrolled_plan_id').execute();

  // Coverage in force excludes a line whose carrier rejected it: found by the benefit change that elected it.
  await db.schema.createIndex('benefit_changes_next_plan').on('benefit_changes').columns(['next_enrollment_plan_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('benefit_changes_next_plan').execute();
  await db.schema.dropIndex('enrollments_member_status').execute();
  await db.schema.dropTable('coverage_termination_items').execute();
  await db.schema.dropTable('coverage_terminations').execute();
  await db.schema.alterTable('enrollments').dropColumn('cancellation_reason').execute();
}
