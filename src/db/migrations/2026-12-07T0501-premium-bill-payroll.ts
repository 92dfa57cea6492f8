import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Premium bills learn what payroll deducted: `premium_bills.deducted_cents` (the member's share payroll took for
 * the group's deduction codes over every month compared) and `expected_member_share_cents` (what our coverage owes
 * payroll for those months' pay dates). Bills kept before have 0 for both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('premium_bills')
    .addColumn('deducted_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('premium_bills')
    .addColumn('expected_member_share_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['expected_member_share_cents', 'deducted_cents']) await db.schema.alterTable('premium_bills').dropColumn(column).execute();
}
