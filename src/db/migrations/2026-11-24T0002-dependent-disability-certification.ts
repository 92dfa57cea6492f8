import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const date = db.getExecutor().adapter instanceof PostgresAdapter ? 'date' : 'text';
  // The day a disabled child's incapacity was last certified: a child over the age limit stays covered only
  // with a current certification.
  await db.schema.alterTable('dependents').addColumn('disability_certified_on', date).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dependents').dropColumn('disability_certified_on').execute();
}
