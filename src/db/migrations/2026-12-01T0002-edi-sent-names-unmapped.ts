import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * - `edi_sent_demographics` keeps, beside the digest, the person's name as the file sent it (last, first, middle),
 *   so that a later name change is sent with the prior name (834 loop 2100B, NM1*70). Names only: SSNs stay in
 *   the digest. Null for people sent before this migration (their prior name is not known: no 2100B for them).
 * - `edi_files.unmapped`: the benefit changes a change file could not carry because their line has no 834 code
 *   in the profile (JSON text, `[{ benefit_change, line_of_coverage }]`); `[]` for files built before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('edi_sent_demographics').addColumn('last_name', 'text').execute();
  await db.schema.alterTable('edi_sent_demographics').addColumn('first_name', 'text').execute();
  await db.schema.alterTable('edi_sent_demographics').addColumn('middle_name', 'text').execute();
  await db.schema
    .alterTable('edi_files')
    .addColumn('unmapped', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('edi_files').dropColumn('unmapped').execute();
  await db.schema.alterTable('edi_sent_demographics').dropColumn('middle_name').execute();
  await db.schema.alterTable('edi_sent_demographics').dropColumn('first_name').execute();
  await db.schema.alterTable('edi_sent_demographics').dropColumn('last_name').execute();
}
