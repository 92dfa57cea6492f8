import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  // What a plan's rates are per: the premium itself (flat), $1,000 of volume (life) or $100 of monthly benefit (disability).
  await db.schema
    .alterTable('plans')
    .addColumn('rate_basis', 'text', (c) => c.notNull().defaultTo('flat'))
    .execute();
  // The date age-banded rates read a covered person's age on: the coverage start or the plan year's start.
  await db.schema
    .alterTable('plans')
    .addColumn('age_rating_date', 'text', (c) => c.notNull().defaultTo('coverage_start'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plans').dropColumn('age_rating_date').execute();
  await db.schema.alterTable('plans').dropColumn('rate_basis').execute();
}
