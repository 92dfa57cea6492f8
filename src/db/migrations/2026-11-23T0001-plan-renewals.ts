import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A plan and its renewal (next year's plan, a record of its own): each side names the other, so that a plan
  // read answers both links without a join. The unique indexes keep it to one successor and one predecessor
  // per plan whatever two concurrent requests try (NULLs are distinct on both databases).
  await db.schema
    .alterTable('plans')
    .addColumn('previous_plan_id', 'text', (c) => c.references('plans.id'))
    .execute();
  await db.schema
    .alterTable('plans')
    .addColumn('next_plan_id', 'text', (c) => c.references('plans.id'))
    .execute();
  await db.schema.createIndex('plans_previous_plan').unique().on('plans').column('previous_plan_id').execute();
  await db.schema.createIndex('plans_next_plan').unique().on('plans').column('next_plan_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('plans_next_plan').execute();
  await db.schema.dropIndex('plans_previous_plan').execute();
  await db.schema.alterTable('plans').dropColumn('next_plan_id').execute();
  await db.schema.alterTable('plans').dropColumn('previous_plan_id').execute();
}
