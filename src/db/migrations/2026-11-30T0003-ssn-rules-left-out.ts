import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * - `members.ssn_digest`: a keyed digest of the member's SSN (HMAC-SHA256 under a key derived from the service
 *   key), so that a unique index holds one employer's members to distinct SSNs. This migration cannot compute it
 *   (it has no key): the service fills it for existing members when it starts. Null without an SSN, and for a
 *   member whose SSN an earlier member of the employer already has.
 * - `edi_left_out`: which members a group's 834 builds could not write, and why, as last reported, so that each
 *   member and reason is reported once (in a file's `left_out` and an event), not in every file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('members').addColumn('ssn_digest', 'text').execute();
  await db.schema
    .createIndex('members_employer_ssn_digest')
    .unique()
    .on('members')
    .columns(['employer_id', 'ssn_digest'])
    .where(sql.ref('ssn_digest'), 'is not', null)
    .execute();

  await db.schema
    .createTable('edi_left_out')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    // No foreign key: the report goes with the member (members' delete removes it).
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    // The file whose `left_out` reported it; null when the build wrote no file (everyone waiting was left out).
    .addColumn('edi_file_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('edi_left_out_group_member_reason', ['group_id', 'member_id', 'reason'])
    .execute();
  await db.schema.createIndex('edi_left_out_member').on('edi_left_out').column('member_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('edi_left_out').execute();
  await db.schema.dropIndex('members_employer_ssn_digest').execute();
  await db.schema.alterTable('members').dropColumn('ssn_digest').execute();
}
