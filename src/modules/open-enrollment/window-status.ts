import { statusMachine } from '../../shared/state-machine.ts';
import type { EventAction } from '../events/event-types.ts';
import type { WindowStatus } from './open-enrollment-window.table.ts';

/**
 * The open enrollment window lifecycle (docs/decisions.md "Open enrollment windows"), as data:
 *
 *   setup_required <--configure / unconfigure--> build_in_progress --activate--> active --close--> closed --complete--> completed
 *
 * `configure` and `unconfigure` happen by themselves when a create or PATCH gives the window (or takes away)
 * its plans and all three dates; the others are the POST actions. `close` is also taken by the daily sweep
 * for windows past their end_date.
 */
export const WINDOW_TRANSITIONS = {
  configure: { from: ['setup_required'], to: 'build_in_progress' },
  unconfigure: { from: ['build_in_progress'], to: 'setup_required' },
  activate: { from: ['build_in_progress'], to: 'active' },
  close: { from: ['active'], to: 'closed' },
  complete: { from: ['closed'], to: 'completed' },
} as const satisfies Record<string, { from: readonly WindowStatus[]; to: WindowStatus }>;

export type WindowAction = keyof typeof WINDOW_TRANSITIONS;

/**
 * The event each transition records (`open_enrollment_window.<action>`). configure and unconfigure happen
 * inside the create or PATCH that causes them: that change's own event carries the new status.
 */
export const WINDOW_EVENT_ACTIONS = {
  configure: null,
  unconfigure: null,
  activate: 'activated',
  close: 'closed',
  complete: 'completed',
} as const satisfies Record<WindowAction, EventAction<'open_enrollment_window'> | null>;

/** Statuses in which dates and plans may still change. */
export const EDITABLE_WINDOW_STATUSES: readonly WindowStatus[] = ['setup_required', 'build_in_progress'];

const machine = statusMachine<WindowStatus, WindowAction>(
  WINDOW_TRANSITIONS,
  (action, from, allowed) => `A window that is ${from} cannot be ${PAST_TENSE[action]}; only a ${allowed} window can.`,
);

export function canTransitionWindow(action: WindowAction, from: WindowStatus): boolean {
  return machine.can(action, from);
}

/** The status `action` leads to from `from`; a 409 invalid_state when the action is not allowed there. */
export function assertWindowTransition(action: WindowAction, from: WindowStatus): WindowStatus {
  return machine.assert(action, from);
}

const PAST_TENSE: Record<WindowAction, string> = {
  configure: 'configured',
  unconfigure: 'sent back to setup',
  activate: 'activated',
  close: 'closed',
  complete: 'completed',
};
