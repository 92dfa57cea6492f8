import type { Executor } from '../../db/database.ts';
import { batches } from '../../shared/batches.ts';
import { newId } from '../../shared/ids.ts';
import { leaveInProgress, type EmploymentEventDetails, type NewEmploymentEvent } from './employment-history.ts';
import type { MemberEmploymentEventRow, MemberRow } from './member.table.ts';

/**
 * Appends entries to the member's history after the last one (the caller holds the member's lock, so positions
 * cannot collide; the unique index would refuse it). Returns the rows written.
 */
export async function appendEmploymentEvents(
  db: Executor,
  member: Pick<MemberRow, 'id' | 'provider_id'>,
  events: readonly NewEmploymentEvent[],
  recordedAt: string,
): Promise<MemberEmploymentEventRow[]> {
  if (events.length === 0) return [];
  const last = await db
    .selectFrom('member_employment_events')
    .select((eb) => eb.fn.max('position').as('position'))
    .where('member_id', '=', member.id)
    .executeTakeFirst();
  const start = last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1;
  const rows = events.map((event, index): MemberEmploymentEventRow => ({
    id: newId('employment_event'),
    provider_id: member.provider_id,
    member_id: member.id,
    event_type: event.type,
    effective_date: event.effectiveDate,
    details: JSON.stringify(event.details),
    position: start + index,
    recorded_at: recordedAt,
  }));
  await db.insertInto('member_employment_events').values(rows).execute();
  return rows;
}

/** The member's history, in the order it was recorded. */
export function findEmploymentEvents(db: Executor, memberId: string): Promise<MemberEmploymentEventRow[]> {
  return db.selectFrom('member_employment_events').selectAll().where('member_id', '=', memberId).orderBy('position').execute();
}

export function parseDetails(row: Pick<MemberEmploymentEventRow, 'details'>): EmploymentEventDetails {
  return JSON.parse(row.details) as EmploymentEventDetails;
}

/**
 * Which of these members are on a leave of absence on `asOf`: their latest leave entry (leave_of_absence or
 * return_from_leave, effective by `asOf`, in recorded order) is a leave_of_absence. Read-only; for the 834's
 * INS08 (edi-loops.ts employmentStatusOf).
 */
export async function findMembersOnLeave(db: Executor, memberIds: readonly string[], asOf: string): Promise<Set<string>> {
  const onLeave = new Set<string>();
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    const rows = await db
      .selectFrom('member_employment_events')
      .select(['member_id', 'event_type', 'effective_date', 'details'])
      .where('member_id', 'in', batch)
      .where('event_type', 'in', ['leave_of_absence', 'return_from_leave'])
      .where('effective_date', '<=', asOf)
      .orderBy('member_id')
      .orderBy('position')
      .execute();
    for (const [memberId, history] of Map.groupBy(rows, (row) => row.member_id)) if (leaveInProgress(history)) onLeave.add(memberId);
  }
  return onLeave;
}
