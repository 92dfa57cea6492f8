import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  // ACA small-group age rating: at most the three oldest covered children under 21 are charged.
  await db.schema
    .alterTable('plans')
    .addColumn('aca_child_rating_limit', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plans').dropColumn('aca_child_rating_limit').execute();
}
