import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const date = postgres ? 'date' : 'text';

  // The coverage dates a carrier needs, recorded with each benefit change: the new coverage's start and end
  // (new, change, no_change), or the removed coverage's start and last day (removed).
  await db.schema.alterTable('benefit_changes').addColumn('coverage_start', date).execute();
  await db.schema.alterTable('benefit_changes').addColumn('coverage_end', date).execute();

  // Changes recorded before: the dates of their enrolled plan as it stands now (the next plan's, or for a
  // removed change the previous plan's, whose end its approval set). Starts never move after approval; an end
  // may since have been moved by a later enrollment, which then has a change of its own.
  await sql`
    update benefit_changes set
      coverage_start = (select enrolled_plans.effective_start from enrolled_plans where enrolled_plans.id = coalesce(benefit_changes.next_enrollment_plan_id, benefit_changes.previous_enrollment_plan_id)),
      coverage_end = (select enrolled_plans.effective_end from enrolled_plans where enrolled_plans.id = coalesce(benefit_changes.next_enrollment_plan_id, benefit_changes.previous_enrollment_plan_id))
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('benefit_changes').dropColumn('coverage_end').execute();
  await db.schema.alterTable('benefit_changes').dropColumn('coverage_start').execute();
}
