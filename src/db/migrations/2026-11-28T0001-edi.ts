import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Carrier EDI (X12 834, 005010X220A1): a trading-partner profile per `edi` group, the control numbers each
 * partner has been sent, the files built (their content encrypted, in chunks), which benefit changes each
 * change file carried (each exactly once), who each full file listed, and what each person's demographics were
 * when last sent (so that a change of name, address, birth date, SSN or sex goes out as maintenance).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('edi_profiles')
    .addColumn('group_id', 'text', (c) => c.primaryKey().references('carrier_groups.id'))
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('interchange_sender_qualifier', 'text', (c) => c.notNull())
    .addColumn('interchange_sender_id', 'text', (c) => c.notNull())
    .addColumn('interchange_receiver_qualifier', 'text', (c) => c.notNull())
    .addColumn('interchange_receiver_id', 'text', (c) => c.notNull())
    .addColumn('application_sender_code', 'text', (c) => c.notNull())
    .addColumn('application_receiver_code', 'text', (c) => c.notNull())
    .addColumn('usage_indicator', 'text', (c) => c.notNull())
    .addColumn('sponsor_name', 'text', (c) => c.notNull())
    .addColumn('sponsor_tax_id', 'text', (c) => c.notNull())
    .addColumn('payer_name', 'text', (c) => c.notNull())
    .addColumn('payer_id', 'text', (c) => c.notNull())
    .addColumn('payer_id_qualifier', 'text', (c) => c.notNull())
    .addColumn('master_policy_number', 'text')
    // JSON text: the companion guide's choices (HD03 per line of coverage, HD05 per tier, REF*0F's source, ...).
    .addColumn('companion_guide', 'text', (c) => c.notNull())
    .addColumn('schedule_time', 'text')
    .addColumn('schedule_time_zone', 'text')
    // The last day the scheduler built this group's change file: claimed by a conditional update, once per day.
    .addColumn('last_scheduled_on', 'text')
    .addColumn('delivery_method', 'text', (c) => c.notNull())
    // JSON text, secrets (password, private key) encrypted inside it; null for download delivery.
    .addColumn('sftp', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('edi_profiles_provider').on('edi_profiles').columns(['provider_id', 'employer_id']).execute();

  // One row per trading partner (sender and receiver ids): the last control numbers used, never handed out twice.
  await db.schema
    .createTable('edi_control_numbers')
    .addColumn('partner_key', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('last_interchange_control_number', 'integer', (c) => c.notNull())
    .addColumn('last_group_control_number', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('edi_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('as_of', 'text', (c) => c.notNull())
    .addColumn('interchange_control_number', 'integer', (c) => c.notNull())
    .addColumn('group_control_number', 'integer', (c) => c.notNull())
    .addColumn('transaction_set_control_number', 'text', (c) => c.notNull())
    .addColumn('usage_indicator', 'text', (c) => c.notNull())
    .addColumn('member_count', 'integer', (c) => c.notNull())
    .addColumn('segment_count', 'integer', (c) => c.notNull())
    .addColumn('byte_count', 'integer', (c) => c.notNull())
    .addColumn('benefit_change_count', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    // JSON text: for a full file, who the last accepted full file listed and this one does not.
    .addColumn('missing', 'text')
    // JSON text: members the build could not write (no subscriber id, a value X12 cannot carry), and why.
    .addColumn('left_out', 'text', (c) => c.notNull())
    .addColumn('delivery_method', 'text', (c) => c.notNull())
    .addColumn('delivery_attempts', 'integer', (c) => c.notNull())
    .addColumn('delivery_error', 'text')
    .addColumn('remote_path', 'text')
    // JSON text: the acknowledgement's result (999 or TA1), without the file's content.
    .addColumn('acknowledgement', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('acknowledged_at', 'text')
    .execute();
  await db.schema.createIndex('edi_files_page').on('edi_files').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('edi_files_group_page').on('edi_files').columns(['provider_id', 'group_id', 'created_at', 'id']).execute();
  // An acknowledgement names the interchange (TA1) or functional group (999) it answers.
  await db.schema.createIndex('edi_files_interchange').on('edi_files').columns(['group_id', 'interchange_control_number']).execute();
  await db.schema.createIndex('edi_files_functional_group').on('edi_files').columns(['group_id', 'group_control_number']).execute();

  // The file's X12 text, encrypted chunk by chunk (a 50,000-member file is never one string in memory).
  await db.schema
    .createTable('edi_file_chunks')
    .addColumn('edi_file_id', 'text', (c) => c.notNull().references('edi_files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_file_chunks_pk', ['edi_file_id', 'position'])
    .execute();

  // Which benefit changes a change file carried: the primary key keeps each in one file only.
  await db.schema
    .createTable('edi_file_changes')
    .addColumn('benefit_change_id', 'text', (c) => c.primaryKey().references('benefit_changes.id'))
    .addColumn('edi_file_id', 'text', (c) => c.notNull().references('edi_files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('edi_file_changes_file').on('edi_file_changes').columns(['edi_file_id', 'position']).execute();

  // Who a full file listed (each covered person and line), to tell who the next one leaves out: JSON arrays of
  // [person, member, line] in pieces (a 50,000-member file lists 100,000 people).
  await db.schema
    .createTable('edi_file_people')
    .addColumn('edi_file_id', 'text', (c) => c.notNull().references('edi_files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('people', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_file_people_pk', ['edi_file_id', 'position'])
    .execute();

  // A keyed digest of each person's demographics as last sent to the group's carrier.
  await db.schema
    .createTable('edi_sent_demographics')
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('edi_file_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_sent_demographics_pk', ['group_id', 'person_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('edi_sent_demographics').execute();
  await db.schema.dropTable('edi_file_people').execute();
  await db.schema.dropTable('edi_file_changes').execute();
  await db.schema.dropTable('edi_file_chunks').execute();
  await db.schema.dropTable('edi_files').execute();
  await db.schema.dropTable('edi_control_numbers').execute();
  await db.schema.dropTable('edi_profiles').execute();
}
