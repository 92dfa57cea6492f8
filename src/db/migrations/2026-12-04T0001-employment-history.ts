import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * - `members.original_hire_date`: the first hire date, kept when a rehire moves `hire_date` (backfilled from it).
 * - `members.termination_reason` (why the employment ended: voluntary, involuntary, gross_misconduct, layoff,
 *   retirement, death, reduction_in_hours, leave, other) and `members.date_of_death`.
 * - `member_employment_events`: the member's employment history, one row per event (hire, termination, rehire,
 *   leave_of_absence, return_from_leave, change_of_hours, change_of_status) with its effective date, so the
 *   original hire date and every later one are kept whatever `members.hire_date` says now. `details` is JSON
 *   (the event's own values: a leave's type, hours before and after, the rehire rule that applied).
 *
 * The history starts with each member's hire (and termination, where there is one) as the member row holds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('members').addColumn('original_hire_date', 'text').execute();
  await sql`update members set original_hire_date = hire_date`.execute(db);
  await db.schema.alterTable('members').addColumn('termination_reason', 'text').execute();
  await db.schema.alterTable('members').addColumn('date_of_death', 'text').execute();
  await db.schema
    .createTable('member_employment_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    // No foreign key: the history goes with the member (members' delete removes it).
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('member_employment_events_member_position', ['member_id', 'position'])
    .execute();
  await sql`
    insert into member_employment_events (id, provider_id, member_id, event_type, effective_date, details, position, recorded_at)
    select 'employment_event_' || id || '_hire', provider_id, id, 'hire', hire_date, '{}', 0, created_at from members
  `.execute(db);
  await sql`
    insert into member_employment_events (id, provider_id, member_id, event_type, effective_date, details, position, recorded_at)
    select 'employment_event_' || id || '_termination', provider_id, id, 'termination', termination_date, '{"termination_reason":null}', 1, created_at
    from members where termination_date is not null
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('member_employment_events').execute();
  await db.schema.alterTable('members').dropColumn('date_of_death').execute();
  await db.schema.alterTable('members').dropColumn('termination_reason').execute();
  await db.schema.alterTable('members').dropColumn('original_hire_date').execute();
}
