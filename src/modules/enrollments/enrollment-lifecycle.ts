/**
 * Moves of an enrollment's status: the enrollments module is its only writer. The engine moves it through
 * moveEnrollment. Benefit changes settle an approved enrollment (all completed: synced; one rejected: failed)
 * through settleEnrollment, and lock it through lockEnrollmentStatus before reading its changes, never by
 * updating `enrollments` themselves.
 */
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { forUpdate } from '../../db/scope.ts';
import { InvalidState } from '../../shared/errors.ts';
import { assertTransition, ENROLLMENT_TRANSITIONS, type EnrollmentAction } from './enrollment-status.ts';
import { newId } from '../../shared/ids.ts';
import type { MemberRow } from '../members/member.table.ts';
import { transitionEnrollment } from './enrollment.repository.ts';
import type { EnrollmentRow, EnrollmentStatus } from './enrollment.table.ts';

/** The enrollment's status with the ids its events carry. */
export type EnrollmentStatusRow = Pick<
  EnrollmentRow,
  'id' | 'provider_id' | 'employer_id' | 'member_id' | 'status' | 'category' | 'open_enrollment_window_id' | 'rules_override_reason'
>;

/** Locks the enrollment row, so that concurrent settlements of its changes run one after the other. */
export function lockEnrollmentStatus(trx: Transaction<Database>, enrollmentId: string): Promise<EnrollmentStatusRow | undefined> {
  const columns = ['id', 'provider_id', 'employer_id', 'member_id', 'status', 'category', 'open_enrollment_window_id', 'rules_override_reason'] as const;
  return forUpdate(trx, trx.selectFrom('enrollments').select(columns).where('id', '=', enrollmentId)).executeTakeFirst();
}

/**
 * Settles an enrollment once its benefit changes are settled: `complete` (synced, from approved) or `reject`
 * (failed, from approved or synced: a carrier's refusal), as a conditional update from the statuses the
 * machine allows, so a race loses cleanly. Returns the status it moved to, or undefined when it was in none.
 */
export async function settleEnrollment(trx: Transaction<Database>, enrollmentId: string, action: 'complete' | 'reject'): Promise<EnrollmentStatus | undefined> {
  const { from, to } = ENROLLMENT_TRANSITIONS[action];
  return (await transitionEnrollment(trx, enrollmentId, from, to)) ? to : undefined;
}

/**
 * The engine's own status moves (submit, reopen, cancel, approve): checks `action` against the status machine
 * (409 when not allowed from the status read), then applies it as a conditional update; a 409 when another
 * request moved the enrollment since it was read.
 */
export async function moveEnrollment(
  trx: Transaction<Database>,
  enrollment: Pick<EnrollmentRow, 'id' | 'status'>,
  action: EnrollmentAction,
  set: { submitted_at?: string | null; approved_at?: string; open_enrollment_window_id?: string | null } = {},
): Promise<void> {
  const to = assertTransition(action, enrollment.status);
  const won = await transitionEnrollment(trx, enrollment.id, ENROLLMENT_TRANSITIONS[action].from, to, set);
  if (!won) throw new InvalidState(`The enrollment changed status while this request ran; it is no longer ${enrollment.status}.`);
}

/**
 * A `qle` enrollment the service itself records for a member (a termination, its undoing, an age-out):
 * submitted at `now`, and approved then when `status` is `approved` (else `pending`, approved by the engine's
 * approval of rows just stored).
 */
export function serviceEnrollmentRow(
  member: Pick<MemberRow, 'id' | 'provider_id' | 'employer_id'>,
  input: { status: 'pending' | 'approved'; reason: string; changeDate: string; effectiveStart: string; now: string },
): EnrollmentRow {
  return {
    id: newId('enrollment'),
    provider_id: member.provider_id,
    employer_id: member.employer_id,
    member_id: member.id,
    category: 'qle',
    status: input.status,
    effective_start: input.effectiveStart,
    effective_end: null,
    reason: input.reason,
    change_date: input.changeDate,
    qualifying_life_event_documents: '[]',
    metadata: '{}',
    submitted_at: input.now,
    approved_at: input.status === 'approved' ? input.now : null,
    open_enrollment_window_id: null,
    cancellation_reason: null,
    other_coverage: null,
    medicare_entitled_dependent_id: null,
    rules_override_reason: null,
    rules_override_api_key_id: null,
    rules_override_at: null,
    created_at: input.now,
  };
}
