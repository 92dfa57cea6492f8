import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * A dependent's whole SSN, write-only and encrypted like members' (AES-256-GCM with the service key): some
 * carriers want it in their 834 files (the EDI profile's send_dependent_ssn). Null for every dependent so far.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dependents').addColumn('ssn_encrypted', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dependents').dropColumn('ssn_encrypted').execute();
}
