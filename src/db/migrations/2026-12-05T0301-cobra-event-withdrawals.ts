import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * COBRA events can be withdrawn: an event recorded by an enrollment whose coverage a later change cancels before
 * it began (a retroactive death or termination before a dependent's age-out) records losses that no longer
 * happen. The event stays, marked:
 *
 * - `cobra_events.withdrawn_at`: when it was withdrawn (null while it stands);
 * - `cobra_events.withdrawn_by_enrollment_id`: the enrollment whose change withdrew it;
 * - `cobra_events.withdrawn_losses`: JSON text, the losses it had recorded. They leave `cobra_event_losses`, whose
 *   key records each loss once, so that the same loss recorded again later is news.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  await db.schema.alterTable('cobra_events').addColumn('withdrawn_at', timestamp).execute();
  await db.schema.alterTable('cobra_events').addColumn('withdrawn_by_enrollment_id', 'text').execute();
  await db.schema.alterTable('cobra_events').addColumn('withdrawn_losses', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['withdrawn_losses', 'withdrawn_by_enrollment_id', 'withdrawn_at'])
    await db.schema.alterTable('cobra_events').dropColumn(column).execute();
}
