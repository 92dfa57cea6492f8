import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const date = postgres ? 'date' : 'text';
  const json = postgres ? 'jsonb' : 'text';
  const bytes = postgres ? 'bytea' : 'blob';
  const real = postgres ? 'double precision' : 'real';

  const pageIndex = async (table: string, ...columns: string[]) => {
    await db.schema
      .createIndex(`${table}_${columns.length ? columns.map((c) => c.replace(/_id$/, '')).join('_') + '_' : ''}page`)
      .on(table)
      .columns(['provider_id', ...columns, 'created_at', 'id'])
      .execute();
  };

  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('dob', date, (c) => c.notNull())
    .addColumn('ssn_encrypted', 'text')
    .addColumn('ssn_last_four', 'text')
    .addColumn('email', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('address', json, (c) => c.notNull())
    .addColumn('hire_date', date, (c) => c.notNull())
    .addColumn('termination_date', date)
    .addColumn('biological_sex', 'text')
    .addColumn('employment_status', 'text')
    .addColumn('hours_worked', real)
    .addColumn('pay_frequency', 'text')
    .addColumn('payroll_provider_external_id', 'text')
    .addColumn('job_title', 'text')
    .addColumn('business_unit_id', 'text', (c) => c.references('business_units.id'))
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('members');
  await pageIndex('members', 'employer_id');

  await db.schema
    .createTable('member_subclasses')
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('subclass_id', 'text', (c) => c.notNull().references('subclasses.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('member_subclasses_pk', ['member_id', 'subclass_id'])
    .execute();

  await db.schema
    .createTable('dependents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('middle_name', 'text')
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('member_relationship', 'text', (c) => c.notNull())
    .addColumn('ssn_last_four', 'text')
    .addColumn('dob', date, (c) => c.notNull())
    .addColumn('biological_sex', 'text')
    .addColumn('address', json)
    .addColumn('has_disability', 'boolean', (c) => c.notNull())
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('dependents');
  await pageIndex('dependents', 'member_id');

  await db.schema
    .createTable('beneficiaries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('member_relationship', 'text', (c) => c.notNull())
    .addColumn('tin_last_four', 'text')
    .addColumn('address', json)
    .addColumn('phone_number', 'text')
    .addColumn('dob', date)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('beneficiaries');
  await pageIndex('beneficiaries', 'member_id');

  await db.schema
    .createTable('pay_rates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('effective_start', date, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('pay_rates');
  await pageIndex('pay_rates', 'member_id');

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', bytes, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('documents');

  await db.schema
    .createTable('plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('plan_name', 'text', (c) => c.notNull())
    .addColumn('plan_type', 'text')
    .addColumn('line_of_coverage', 'text', (c) => c.notNull())
    .addColumn('effective_start', date, (c) => c.notNull())
    .addColumn('effective_end', date, (c) => c.notNull())
    .addColumn('premium_type', 'text')
    .addColumn('composite_rates', json)
    .addColumn('age_rates', json)
    .addColumn('guaranteed_issue_volume_cents', 'bigint')
    .addColumn('requires_primary_care_provider', 'boolean', (c) => c.notNull())
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('plans');
  await pageIndex('plans', 'employer_id');
  await pageIndex('plans', 'group_id');

  await db.schema
    .createTable('plan_configurations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('waiting_period_days', 'integer', (c) => c.notNull())
    .addColumn('termination_policy', 'text', (c) => c.notNull())
    .addColumn('dependent_age_limit', 'integer', (c) => c.notNull())
    .addColumn('dependent_age_out_rule', 'text', (c) => c.notNull())
    .addColumn('required_subclass_id', 'text', (c) => c.references('subclasses.id'))
    .addColumn('contribution_strategy', json)
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('plan_configurations');
  await pageIndex('plan_configurations', 'plan_id');
  // One configuration per plan and required subclass (and one without): which one applies is never ambiguous.
  await db.schema
    .createIndex('plan_configurations_plan_subclass')
    .unique()
    .on('plan_configurations')
    .columns(['plan_id'])
    .expression(sql`coalesce(required_subclass_id, '')`)
    .execute();
  await db.schema.createIndex('plan_configurations_employer').on('plan_configurations').columns(['provider_id', 'employer_id']).execute();

  await db.schema
    .createTable('member_id_cards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('carrier_id', 'text', (c) => c.references('carriers.id'))
    .addColumn('member_number', 'text')
    .addColumn('group_number', 'text')
    .addColumn('document_id', 'text', (c) => c.references('documents.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('member_id_cards');
  await pageIndex('member_id_cards', 'member_id');

  // Enrollments: the engine that fills them arrives later; members, ID cards and deletes need them now.
  await db.schema
    .createTable('enrollments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('effective_start', date)
    .addColumn('effective_end', date)
    .addColumn('reason', 'text')
    .addColumn('change_date', date)
    .addColumn('qualifying_life_event_documents', json, (c) => c.notNull())
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('submitted_at', timestamp)
    .addColumn('approved_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('enrollments');
  await pageIndex('enrollments', 'member_id');
  await pageIndex('enrollments', 'employer_id');

  await db.schema
    .createTable('enrolled_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('effective_start', date)
    .addColumn('effective_end', date)
    .addColumn('premium_cents', 'bigint')
    .addColumn('employer_contribution_cents', 'bigint')
    .addColumn('member_contribution_cents', 'bigint')
    .addColumn('payroll_provider_external_id', 'text')
    .addColumn('volume_cents', 'bigint')
    .addColumn('requested_volume_cents', 'bigint')
    .addColumn('volume_approved_at', timestamp)
    .addColumn('eoi_dismissed_at', timestamp)
    .addColumn('eoi_status', 'text', (c) => c.notNull())
    .addColumn('primary_care_provider', json)
    .addColumn('member_id_card_id', 'text', (c) => c.references('member_id_cards.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('enrolled_plans_enrollment').on('enrolled_plans').columns(['enrollment_id', 'position']).execute();
  await db.schema.createIndex('enrolled_plans_member').on('enrolled_plans').column('member_id').execute();
  await db.schema.createIndex('enrolled_plans_card').on('enrolled_plans').column('member_id_card_id').execute();

  await db.schema
    .createTable('enrolled_dependents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('enrolled_plan_id', 'text', (c) => c.notNull().references('enrolled_plans.id').onDelete('cascade'))
    .addColumn('dependent_id', 'text', (c) => c.notNull().references('dependents.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('volume_cents', 'bigint')
    .addColumn('requested_volume_cents', 'bigint')
    .addColumn('volume_approved_at', timestamp)
    .addColumn('eoi_dismissed_at', timestamp)
    .addColumn('eoi_status', 'text', (c) => c.notNull())
    .addColumn('primary_care_provider', json)
    .addColumn('member_id_card_id', 'text', (c) => c.references('member_id_cards.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('enrolled_dependents_plan').on('enrolled_dependents').columns(['enrolled_plan_id', 'position']).execute();
  await db.schema.createIndex('enrolled_dependents_dependent').on('enrolled_dependents').column('dependent_id').execute();
  await db.schema.createIndex('enrolled_dependents_card').on('enrolled_dependents').column('member_id_card_id').execute();

  await db.schema
    .createTable('coverage_waivers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('line_of_coverage', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text', (c) => c.references('members.id'))
    .addColumn('dependent_id', 'text', (c) => c.references('dependents.id'))
    .execute();
  await db.schema.createIndex('coverage_waivers_enrollment').on('coverage_waivers').columns(['enrollment_id', 'position']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text')
    .addColumn('notification_type', 'text', (c) => c.notNull())
    .addColumn('related_object_type', 'text', (c) => c.notNull())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('payload', json, (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    // One occurrence of a date-driven rule, e.g. 'newly_eligible:mem_x': makes repeated runs create nothing new.
    .addColumn('occurrence_key', 'text', (c) => c.unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await pageIndex('notifications');
  await pageIndex('notifications', 'notification_type');
  await pageIndex('notifications', 'related_object_id');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'notifications',
    'coverage_waivers',
    'enrolled_dependents',
    'enrolled_plans',
    'enrollments',
    'member_id_cards',
    'plan_configurations',
    'plans',
    'documents',
    'pay_rates',
    'beneficiaries',
    'dependents',
    'member_subclasses',
    'members',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
