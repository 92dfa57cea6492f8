import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * `premium_bills`: a carrier's monthly premium bill for a group, compared with the premium in force by our
 * coverage. The file is not kept (its member column may be SSNs): the line count, the lines that could not be
 * read, the totals, the members with a discrepancy and what the bill billed per member and month, as JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('premium_bills')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('bill_date', 'text', (c) => c.notNull())
    .addColumn('correction_window_days', 'integer', (c) => c.notNull())
    .addColumn('member_key', 'text', (c) => c.notNull())
    .addColumn('column_mapping', 'text', (c) => c.notNull())
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('line_errors', 'text', (c) => c.notNull())
    .addColumn('billed_cents', 'bigint', (c) => c.notNull())
    .addColumn('billed_before_cents', 'bigint', (c) => c.notNull())
    .addColumn('expected_cents', 'bigint', (c) => c.notNull())
    .addColumn('difference_cents', 'bigint', (c) => c.notNull())
    .addColumn('members_billed', 'integer', (c) => c.notNull())
    .addColumn('members_covered', 'integer', (c) => c.notNull())
    .addColumn('members_reconciled', 'integer', (c) => c.notNull())
    .addColumn('members', 'text', (c) => c.notNull())
    .addColumn('billed', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('premium_bills_group').on('premium_bills').columns(['group_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('premium_bills_group_period').on('premium_bills').columns(['group_id', 'period']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('premium_bills').execute();
}
