import { statusMachine } from '../../shared/state-machine.ts';
import type { DeliveryState } from './benefit-change.table.ts';

/**
 * Where a benefit change's hand-off to the carrier stands (benefit-change.table.ts DELIVERY_STATES), as data.
 * A change starts in the open state of its group's connection (manual, queued for api, awaiting_file for edi),
 * or completed when there is nothing to send (no_change):
 *
 *   api:    queued --send--> sent --carrier_accept--> completed
 *             '------------------'--carrier_reject--> rejected
 *   edi:    awaiting_file --deliver_file--> sent --file_accept--> completed
 *             '--------------------------------'--file_reject--> rejected
 *   manual, edi (a person, PATCH completed_at): any state but queued --complete_by_hand--> completed
 *             completed --reopen_manual--> manual, completed --reopen_file--> awaiting_file
 *
 * Only src/modules/benefit-changes/ writes `benefit_changes` (a lint rule in eslint.config.js): the carrier
 * job and the EDI module move changes through benefit-change.repository.ts, whose UPDATEs take their `from`
 * and `to` from this table (`... WHERE delivery_state IN (from)`), so a race or a repeated outcome loses cleanly.
 */
export const DELIVERY_TRANSITIONS = {
  send: { from: ['queued'], to: 'sent' },
  carrier_accept: { from: ['queued', 'sent'], to: 'completed' },
  carrier_reject: { from: ['queued', 'sent'], to: 'rejected' },
  deliver_file: { from: ['awaiting_file'], to: 'sent' },
  file_accept: { from: ['awaiting_file', 'sent'], to: 'completed' },
  file_reject: { from: ['awaiting_file', 'sent'], to: 'rejected' },
  complete_by_hand: { from: ['manual', 'awaiting_file', 'sent', 'rejected', 'completed'], to: 'completed' },
  reopen_manual: { from: ['completed'], to: 'manual' },
  reopen_file: { from: ['completed'], to: 'awaiting_file' },
} as const satisfies Record<string, { from: readonly DeliveryState[]; to: DeliveryState }>;

export type DeliveryAction = keyof typeof DELIVERY_TRANSITIONS;

const machine = statusMachine<DeliveryState, DeliveryAction>(
  DELIVERY_TRANSITIONS,
  (action, from, allowed) => `A benefit change that is ${from} cannot be ${DESCRIPTION[action]}; only a ${allowed} change can.`,
);

export function canTransitionDelivery(action: DeliveryAction, from: DeliveryState): boolean {
  return machine.can(action, from);
}

/** The delivery state `action` leads to from `from`; a 409 invalid_state when the action is not allowed there. */
export function assertDeliveryTransition(action: DeliveryAction, from: DeliveryState): DeliveryState {
  return machine.assert(action, from);
}

const DESCRIPTION: Record<DeliveryAction, string> = {
  send: 'sent to the carrier API',
  carrier_accept: 'accepted by the carrier API',
  carrier_reject: 'rejected by the carrier API',
  deliver_file: 'delivered in an 834 file',
  file_accept: 'accepted by an acknowledgement',
  file_reject: 'rejected by an acknowledgement',
  complete_by_hand: 'completed',
  reopen_manual: 'reopened',
  reopen_file: 'reopened',
};
