import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  // The other coverage a lost/gained-coverage event is about (a Medicaid or CHIP loss opens 60 days, not 30).
  await db.schema.alterTable('enrollments').addColumn('other_coverage', 'text').execute();
  // An admin's decision to submit past the life event rules: why, by which API key, when.
  await db.schema.alterTable('enrollments').addColumn('rules_override_reason', 'text').execute();
  await db.schema.alterTable('enrollments').addColumn('rules_override_api_key_id', 'text').execute();
  await db.schema.alterTable('enrollments').addColumn('rules_override_at', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['rules_override_at', 'rules_override_api_key_id', 'rules_override_reason', 'other_coverage']) {
    await db.schema.alterTable('enrollments').dropColumn(column).execute();
  }
}
