import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * `carrier_file_resolutions`: the audit of an admin resolving a carrier file's discrepancy (docs/decisions.md
 * "Carrier files", Resolving discrepancies): one row per discrepancy resolved (the unique index makes two
 * resolutions of one discrepancy impossible, also when they race), with who (the API key), when, the action,
 * the note and what it did (the benefit changes it recorded, the fields it changed), written in the
 * transaction of its effect.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_file_resolutions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('carrier_file_id', 'text', (c) => c.notNull().references('carrier_files.id'))
    .addColumn('discrepancy_index', 'integer', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('benefit_change_ids', 'text', (c) => c.notNull())
    .addColumn('fields_changed', 'text', (c) => c.notNull())
    .addColumn('resolved_by', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('carrier_file_resolutions_discrepancy')
    .on('carrier_file_resolutions')
    .columns(['carrier_file_id', 'discrepancy_index'])
    .unique()
    .execute();
  // The people a resolution marked to have their demographics sent again (digest 'resend'): the next change
  // file of the group reads them without reading every person it was ever sent.
  await db.schema
    .createIndex('edi_sent_demographics_resend')
    .on('edi_sent_demographics')
    .columns(['group_id'])
    .where(sql.ref('digest'), '=', 'resend')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('edi_sent_demographics_resend').execute();
  await db.schema.dropTable('carrier_file_resolutions').execute();
}
