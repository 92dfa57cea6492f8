import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const date = db.getExecutor().adapter instanceof PostgresAdapter ? 'date' : 'text';
  // The divorce or dissolution date of a spouse-like dependent: the last day the relationship (and the
  // dependent's eligibility as a spouse or partner) lasts. Null: the relationship goes on.
  await db.schema.alterTable('dependents').addColumn('relationship_end_date', date).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dependents').dropColumn('relationship_end_date').execute();
}
