import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Lists filtered by the ids an integrator's own systems gave the records (GET /employers?external_id=,
 * GET /members?payroll_provider_external_id=, GET /dependents?member_payroll_provider_external_id=): one index
 * each, within the provider, in the keyset order of a page (created_at, id), so that a filtered page seeks
 * instead of scanning the provider's records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('employers_provider_external_id').on('employers').columns(['provider_id', 'external_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('members_provider_payroll_id')
    .on('members')
    .columns(['provider_id', 'payroll_provider_external_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('members_provider_payroll_id').execute();
  await db.schema.dropIndex('employers_provider_external_id').execute();
}
