import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * `enrollments.medicare_entitled_dependent_id`: for a `medicare_eligible` enrollment, the dependent whose own
 * Medicare entitlement it records; null when it is the employee's (the only entitlement that is a COBRA
 * qualifying event, 29 U.S.C. 1163(4)).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('enrollments').addColumn('medicare_entitled_dependent_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('enrollments').dropColumn('medicare_entitled_dependent_id').execute();
}
