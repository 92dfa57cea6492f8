import { statusMachine } from '../../shared/state-machine.ts';
import type { EventAction } from '../events/event-types.ts';
import type { EnrollmentStatus } from './enrollment.table.ts';

/**
 * The enrollment lifecycle (docs/decisions.md "Enrollments", Lifecycle), as data:
 *
 *   not_started --save_and_submit--> pending --approve--> approved --all changes completed--> synced
 *        ^                              |                    |                                   |
 *        '------------reopen------------'                    '--carrier refuses--> failed <------'
 *   not_started, pending --cancel--> cancelled
 *
 * "Carrier refuses": a business refusal of one of its benefit changes (the carrier API's, or one an admin
 * records), never a 999/TA1 rejection of a file; it may come after the carrier accepted the file (synced).
 */
export const ENROLLMENT_TRANSITIONS = {
  save_and_submit: { from: ['not_started'], to: 'pending' },
  reopen: { from: ['pending'], to: 'not_started' },
  cancel: { from: ['not_started', 'pending'], to: 'cancelled' },
  approve: { from: ['pending'], to: 'approved' },
  complete: { from: ['approved'], to: 'synced' },
  reject: { from: ['approved', 'synced'], to: 'failed' },
} as const satisfies Record<string, { from: readonly EnrollmentStatus[]; to: EnrollmentStatus }>;

export type EnrollmentAction = keyof typeof ENROLLMENT_TRANSITIONS;

/** The event each transition records (`enrollment.<action>`): named after the status it leads to. */
export const ENROLLMENT_EVENT_ACTIONS = {
  save_and_submit: 'submitted',
  reopen: 'reopened',
  cancel: 'cancelled',
  approve: 'approved',
  complete: 'synced',
  reject: 'failed',
} as const satisfies Record<EnrollmentAction, EventAction<'enrollment'>>;

const machine = statusMachine<EnrollmentStatus, EnrollmentAction>(
  ENROLLMENT_TRANSITIONS,
  (action, from, allowed) => `An enrollment that is ${from} cannot be ${PAST_TENSE[action]}; only a ${allowed} enrollment can.`,
);

export function canTransition(action: EnrollmentAction, from: EnrollmentStatus): boolean {
  return machine.can(action, from);
}

/** The status `action` leads to from `from`; a 409 invalid_state when the action is not allowed there. */
export function assertTransition(action: EnrollmentAction, from: EnrollmentStatus): EnrollmentStatus {
  return machine.assert(action, from);
}

const PAST_TENSE: Record<EnrollmentAction, string> = {
  save_and_submit: 'submitted',
  reopen: 'reopened',
  cancel: 'cancelled',
  approve: 'approved',
  complete: 'marked synced',
  reject: 'marked failed',
};
