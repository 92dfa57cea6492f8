import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Carrier acknowledgements that are not for one of our files (stored, shown to admins with the reason, never
 * applied), and what the acknowledgement pickup has read from each carrier folder, by name, size and
 * modification time, so that nothing there is downloaded twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('edi_unmatched_acknowledgements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    // Where it came from: 'sftp_pickup' (a carrier's outbound folder), with the remote file's name.
    .addColumn('received_via', 'text', (c) => c.notNull())
    .addColumn('remote_file', 'text')
    // '999', 'TA1', or 'unreadable' (X12 that is not a well-formed 999 or TA1).
    .addColumn('kind', 'text', (c) => c.notNull())
    // Its ISA05/ISA06 and ISA07/ISA08, ISA13, and the control number it names (AK102 or TA101), as sent.
    .addColumn('sender_qualifier', 'text')
    .addColumn('sender_id', 'text')
    .addColumn('receiver_qualifier', 'text')
    .addColumn('receiver_id', 'text')
    .addColumn('interchange_control_number', 'text')
    .addColumn('control_number', 'text')
    // The file whose control number it names, when one does (but other elements do not match).
    .addColumn('edi_file_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    // JSON text: [{ element, expected, found }].
    .addColumn('mismatches', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('edi_unmatched_acknowledgements_page')
    .on('edi_unmatched_acknowledgements')
    .columns(['provider_id', 'created_at', 'id'])
    .execute();

  // One row per remote file the pickup has read (or decided not to read); folder_key is a digest of the
  // provider, host, port, user and directory. A file that changes (size or time) is a new one.
  await db.schema
    .createTable('edi_pickup_seen_files')
    .addColumn('folder_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // -1 when the server did not say.
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('modified_at', 'bigint', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    // applied, unmatched, unreadable, not_x12, too_large.
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_pickup_seen_files_pk', ['folder_key', 'name', 'size', 'modified_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('edi_pickup_seen_files').execute();
  await db.schema.dropTable('edi_unmatched_acknowledgements').execute();
}
