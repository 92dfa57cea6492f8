import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const json = postgres ? 'jsonb' : 'text';

  // Groups carry metadata (the sandbox carrier adapter reads its instructions there).
  await db.schema
    .alterTable('carrier_groups')
    .addColumn('metadata', json, (c) => c.notNull().defaultTo('{}'))
    .execute();

  await db.schema
    .createTable('benefit_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('line_of_coverage', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('changes', json, (c) => c.notNull())
    .addColumn('previous_enrollment_plan_id', 'text', (c) => c.references('enrolled_plans.id'))
    .addColumn('next_enrollment_plan_id', 'text', (c) => c.references('enrolled_plans.id'))
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('connection_method', 'text', (c) => c.notNull())
    // Where the hand-off stands: manual (a person completes it), queued/sent (api), awaiting_file (edi),
    // completed, rejected.
    .addColumn('delivery_state', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('assignee', 'text')
    .addColumn('completed_at', timestamp)
    .addColumn('needs_manual_completion', 'boolean', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('benefit_changes_enrollment').on('benefit_changes').columns(['enrollment_id', 'position']).execute();
  await db.schema.createIndex('benefit_changes_delivery').on('benefit_changes').columns(['connection_method', 'delivery_state']).execute();
  await db.schema.createIndex('benefit_changes_page').on('benefit_changes').columns(['provider_id', 'created_at', 'id']).execute();

  // Durable background jobs (carrier hand-off now, webhooks later): written in the transaction of the change
  // that causes them, run by workers in the server processes, retried with backoff, each run by one worker.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', json, (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', timestamp, (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', timestamp)
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('finished_at', timestamp)
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();

  await db.schema.createIndex('enrolled_plans_member_plan').on('enrolled_plans').columns(['member_id', 'effective_start']).execute();
  await db.schema.createIndex('enrollments_status').on('enrollments').columns(['provider_id', 'status', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('enrollments_status').execute();
  await db.schema.dropIndex('enrolled_plans_member_plan').execute();
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('benefit_changes').execute();
  await db.schema.alterTable('carrier_groups').dropColumn('metadata').execute();
}
