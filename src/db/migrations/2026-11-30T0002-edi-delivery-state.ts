import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * When the job queue will next try to upload an EDI file (ISO 8601 UTC text, as the table's other times);
 * null when no attempt is scheduled. Null for every file so far.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('edi_files').addColumn('next_delivery_attempt_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('edi_files').dropColumn('next_delivery_attempt_at').execute();
}
