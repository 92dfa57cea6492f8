import { statusMachine } from '../../shared/state-machine.ts';
import type { DeliveryState } from './benefit-change.table.ts';

/**
 * Where a benefit change's hand-off to the carrier stands (benefit-change.table.ts DELIVERY_STATES), as data.
 * A change starts in the open state of its group's connection (manual, queued for api, awaiting_file for edi),
 * or completed when there is nothing to send (no_change):
 *
 *   api:    queued --send--> sent --carrier_accept--> completed
 *             '------------------'--carrier_reject--> rejected       (the carrier API's final refusal)
 *   edi:    awaiting_file --deliver_file--> sent --file_accept--> completed
 *             ^                               |
 *             '----------file_return----------'                      (a 999/TA1 rejected the file)
 *   manual, edi (a person, PATCH completed_at): any state but queued --complete_by_hand--> completed
 *             completed --reopen_manual--> manual, completed --reopen_file--> awaiting_file
 *   any connection (an admin records the carrier's business refusal, POST .../refuse):
 *             manual, awaiting_file, sent, completed --refuse--> rejected
 *
 * Only a carrier's business refusal (carrier_reject, refuse) leads to `rejected`: a 999/TA1 acknowledges a
 * file's syntax, not the carrier's decision about anyone, so it sends the file's changes back to be sent
 * (docs/decisions.md "Benefit changes and carriers").
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
  file_return: { from: ['awaiting_file', 'sent'], to: 'awaiting_file' },
  complete_by_hand: { from: ['manual', 'awaiting_file', 'sent', 'rejected', 'completed'], to: 'completed' },
  reopen_manual: { from: ['completed'], to: 'manual' },
  reopen_file: { from: ['completed'], to: 'awaiting_file' },
  refuse: { from: ['manual', 'awaiting_file', 'sent', 'completed'], to: 'rejected' },
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
  file_return: 'sent back by an acknowledgement',
  complete_by_hand: 'completed',
  reopen_manual: 'reopened',
  reopen_file: 'reopened',
  refuse: 'refused by the carrier',
};
