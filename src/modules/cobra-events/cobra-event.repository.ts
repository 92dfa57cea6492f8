import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { findByIdInScope, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { CobraEventLossRow, CobraEventRow } from './cobra-event.table.ts';

export interface CobraEventFilter {
  employerId?: string | undefined;
  memberId?: string | undefined;
  /** A stored timestamp: only events created strictly after it. */
  createdAfter?: string | undefined;
}

/** Employer keys see their employer's events only. */
function cobraEvents(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('cobra_events').selectAll(), scope, 'cobra_events', 'employer_id');
}

export const findCobraEventById: (db: Executor, scope: Scope, id: string) => Promise<CobraEventRow | undefined> = findByIdInScope(cobraEvents);

export function listCobraEvents(db: Executor, scope: Scope, filter: CobraEventFilter, page: PageRequest): Promise<Page<CobraEventRow>> {
  let query = cobraEvents(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);
  return paginate(query, page);
}

/** The losses of these events, each event's in recorded order. */
export async function findLossesOf(db: Executor, cobraEventIds: readonly string[]): Promise<CobraEventLossRow[]> {
  if (cobraEventIds.length === 0) return [];
  return db
    .selectFrom('cobra_event_losses')
    .selectAll()
    .where('cobra_event_id', 'in', [...cobraEventIds])
    .orderBy('cobra_event_id')
    .orderBy('position')
    .execute();
}

export async function insertCobraEvent(trx: Transaction<Database>, row: CobraEventRow): Promise<void> {
  await insertRows(trx, 'cobra_events', [row]);
}

/**
 * Inserts the losses (all of one event: member, type, date and first day without coverage), skipping those
 * already recorded for the same event (type and date) of the member and the same first day without coverage,
 * and those the person suffered for that event on an earlier day: who ceased to be covered on the line then
 * loses nothing new when a later election of it ends too (a later plan year's coverage of an ex-spouse that
 * the divorce ends, coverage/relationship-ends.ts).
 * Returns the rows that were new (RETURNING answers only the rows an INSERT ... ON CONFLICT DO NOTHING
 * inserted, on both databases), in the order given.
 */
export async function insertNewLosses(trx: Transaction<Database>, rows: readonly CobraEventLossRow[]): Promise<CobraEventLossRow[]> {
  if (rows.length === 0) return [];
  const lostEarlier = new Set((await lossesOnEarlierDays(trx, rows[0]!)).map((row) => `${row.line_of_coverage}|${row.person_id}`));
  const fresh = rows.filter((row) => !lostEarlier.has(`${row.line_of_coverage}|${row.person_id}`));
  if (fresh.length === 0) return [];
  // From a cached statement text (src/db/bulk-insert.ts): the daily sweep records thousands of these.
  const positions = new Set(
    await insertRows(trx, 'cobra_event_losses', fresh, {
      skipConflictsOn: ['member_id', 'event_type', 'event_date', 'coverage_lost_date', 'line_of_coverage', 'person_id'],
      returning: 'position',
    }),
  );
  return fresh.filter((row) => positions.has(row.position));
}

/** The losses recorded for the event of `loss` (member, type, date) with an earlier first day without coverage. */
function lossesOnEarlierDays(trx: Transaction<Database>, loss: CobraEventLossRow) {
  return trx
    .selectFrom('cobra_event_losses')
    .select(['line_of_coverage', 'person_id'])
    .where('member_id', '=', loss.member_id)
    .where('event_type', '=', loss.event_type)
    .where('event_date', '=', loss.event_date)
    .where('coverage_lost_date', '<', loss.coverage_lost_date)
    .execute();
}

/** The events the enrollments recorded that are not withdrawn, in id order. */
export async function findStandingEventsOf(trx: Transaction<Database>, enrollmentIds: readonly string[]): Promise<CobraEventRow[]> {
  return trx.selectFrom('cobra_events').selectAll().where('enrollment_id', 'in', enrollmentIds).where('withdrawn_at', 'is', null).orderBy('id').execute();
}

/** Marks the event withdrawn (if it still stands) and takes its losses out of the record of losses. */
export async function withdrawCobraEvent(
  trx: Transaction<Database>,
  id: string,
  withdrawal: Pick<CobraEventRow, 'withdrawn_at' | 'withdrawn_by_enrollment_id' | 'withdrawn_losses'>,
): Promise<CobraEventRow | undefined> {
  const row = await trx.updateTable('cobra_events').set(withdrawal).where('id', '=', id).where('withdrawn_at', 'is', null).returningAll().executeTakeFirst();
  if (row) await trx.deleteFrom('cobra_event_losses').where('cobra_event_id', '=', id).execute();
  return row;
}

/** Takes back an event none of whose losses was new (inside the transaction that inserted it). */
export async function deleteCobraEvent(trx: Transaction<Database>, id: string): Promise<void> {
  await trx.deleteFrom('cobra_events').where('id', '=', id).execute();
}

/**
 * Records the disability determination that extends an event, if none was recorded (a conditional UPDATE: of two
 * concurrent requests one wins). Returns the row updated, or undefined when another determination got there first.
 */
export async function recordDisabilityExtension(
  trx: Transaction<Database>,
  id: string,
  extension: Pick<
    CobraEventRow,
    'maximum_coverage_months' | 'coverage_period_end' | 'disability_person_id' | 'disabled_on' | 'disability_determined_on' | 'disability_recorded_at'
  >,
): Promise<CobraEventRow | undefined> {
  return trx.updateTable('cobra_events').set(extension).where('id', '=', id).where('disability_recorded_at', 'is', null).returningAll().executeTakeFirst();
}
