import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Who receives a life or AD&D election's benefit, and what share: primary designations first, contingent
  // ones when no primary survives. A percentage is kept in basis points (100.00% = 10000).
  await db.schema
    .createTable('beneficiary_designations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('enrolled_plan_id', 'text', (c) => c.notNull().references('enrolled_plans.id').onDelete('cascade'))
    .addColumn('beneficiary_id', 'text', (c) => c.notNull().references('beneficiaries.id'))
    .addColumn('designation', 'text', (c) => c.notNull())
    .addColumn('percentage_basis_points', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('beneficiary_designations_plan').on('beneficiary_designations').columns(['enrolled_plan_id', 'position']).execute();
  await db.schema.createIndex('beneficiary_designations_beneficiary').on('beneficiary_designations').column('beneficiary_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('beneficiary_designations').execute();
}
