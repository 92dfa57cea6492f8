import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const real = db.getExecutor().adapter instanceof PostgresAdapter ? 'double precision' : 'real';
  // When a new hire's coverage starts (end_of_waiting_period keeps what configurations did so far).
  await db.schema
    .alterTable('plan_configurations')
    .addColumn('coverage_start_rule', 'text', (c) => c.notNull().defaultTo(sql`'end_of_waiting_period'`))
    .execute();
  // Eligibility by employment: the least scheduled hours a week, and the employment statuses offered (JSON array).
  await db.schema.alterTable('plan_configurations').addColumn('minimum_hours_per_week', real).execute();
  await db.schema.alterTable('plan_configurations').addColumn('eligible_employment_statuses', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['eligible_employment_statuses', 'minimum_hours_per_week', 'coverage_start_rule']) {
    await db.schema.alterTable('plan_configurations').dropColumn(column).execute();
  }
}
