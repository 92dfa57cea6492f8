import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Loss of eligibility by employment (hours or status): ends coverage like a termination does, recorded in the same
 * `coverage_terminations` rows, told apart by `cause` ('termination' for every row before this migration,
 * 'eligibility_loss'); for a loss, `termination_date` holds the day of the change that caused it.
 *
 * Employers say how full-time status is measured: `hours_measurement_method` 'monthly' (the default) or
 * 'look_back', with the look-back's stability periods (`stability_period_start` 'MM-DD',
 * `stability_period_months`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('coverage_terminations')
    .addColumn('cause', 'text', (c) => c.notNull().defaultTo('termination'))
    .execute();
  await db.schema
    .alterTable('employers')
    .addColumn('hours_measurement_method', 'text', (c) => c.notNull().defaultTo('monthly'))
    .execute();
  await db.schema.alterTable('employers').addColumn('stability_period_start', 'text').execute();
  await db.schema.alterTable('employers').addColumn('stability_period_months', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('employers').dropColumn('stability_period_months').execute();
  await db.schema.alterTable('employers').dropColumn('stability_period_start').execute();
  await db.schema.alterTable('employers').dropColumn('hours_measurement_method').execute();
  await db.schema.alterTable('coverage_terminations').dropColumn('cause').execute();
}
