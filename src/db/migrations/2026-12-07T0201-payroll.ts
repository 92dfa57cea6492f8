import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Pay schedules and the payroll deduction feed (docs/decisions.md "Pay schedules and payroll deductions"):
 * - `pay_schedules`: an employer's schedules (frequency, first pay date, a semimonthly schedule's two days),
 *   at most one default per employer (a partial unique index);
 * - `members.pay_schedule_id`: the member's schedule, null for the employer's default;
 * - `plan_configurations.deduction_code` and `tax_treatment`: null for the documented defaults;
 * - `payroll_runs` (a pay date of a schedule marked paid, once) and `payroll_run_lines` (what each run took per
 *   member, deduction code and pay period: the run's own period and each earlier period it adjusted).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pay_schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('first_pay_date', 'text', (c) => c.notNull())
    .addColumn('semimonthly_first_day', 'integer')
    .addColumn('semimonthly_second_day', 'integer')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pay_schedules_provider_page').on('pay_schedules').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('pay_schedules_employer').on('pay_schedules').columns(['employer_id', 'created_at']).execute();
  await sql`create unique index pay_schedules_one_default on pay_schedules (employer_id) where is_default`.execute(db);

  await db.schema
    .alterTable('members')
    .addColumn('pay_schedule_id', 'text', (c) => c.references('pay_schedules.id'))
    .execute();
  await db.schema.alterTable('plan_configurations').addColumn('deduction_code', 'text').execute();
  await db.schema.alterTable('plan_configurations').addColumn('tax_treatment', 'text').execute();

  await db.schema
    .createTable('payroll_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('pay_schedule_id', 'text', (c) => c.notNull().references('pay_schedules.id'))
    .addColumn('pay_date', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payroll_runs_schedule_pay_date').on('payroll_runs').columns(['pay_schedule_id', 'pay_date']).unique().execute();
  await db.schema.createIndex('payroll_runs_provider_page').on('payroll_runs').columns(['provider_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('payroll_run_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('payroll_run_id', 'text', (c) => c.notNull().references('payroll_runs.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('deduction_code', 'text', (c) => c.notNull())
    .addColumn('period_pay_date', 'text', (c) => c.notNull())
    .addColumn('member_pre_tax_cents', 'bigint', (c) => c.notNull())
    .addColumn('member_post_tax_cents', 'bigint', (c) => c.notNull())
    .addColumn('employer_cents', 'bigint', (c) => c.notNull())
    .addColumn('imputed_income_cents', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payroll_run_lines_member_period').on('payroll_run_lines').columns(['member_id', 'period_pay_date']).execute();
  await db.schema.createIndex('payroll_run_lines_run').on('payroll_run_lines').columns(['payroll_run_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('payroll_run_lines').execute();
  await db.schema.dropTable('payroll_runs').execute();
  await db.schema.alterTable('plan_configurations').dropColumn('tax_treatment').execute();
  await db.schema.alterTable('plan_configurations').dropColumn('deduction_code').execute();
  await db.schema.alterTable('members').dropColumn('pay_schedule_id').execute();
  await db.schema.dropTable('pay_schedules').execute();
}
