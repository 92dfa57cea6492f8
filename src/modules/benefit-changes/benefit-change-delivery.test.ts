import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { DELIVERY_STATES, type DeliveryState } from './benefit-change.table.ts';
import { DELIVERY_TRANSITIONS, assertDeliveryTransition, canTransitionDelivery, type DeliveryAction } from './benefit-change-delivery.ts';

const ALLOWED: Record<DeliveryAction, Partial<Record<DeliveryState, DeliveryState>>> = {
  send: { queued: 'sent' },
  carrier_accept: { queued: 'completed', sent: 'completed' },
  carrier_reject: { queued: 'rejected', sent: 'rejected' },
  deliver_file: { awaiting_file: 'sent' },
  file_accept: { awaiting_file: 'completed', sent: 'completed' },
  file_return: { awaiting_file: 'awaiting_file', sent: 'awaiting_file' },
  complete_by_hand: { manual: 'completed', awaiting_file: 'completed', sent: 'completed', rejected: 'completed', completed: 'completed' },
  reopen_manual: { completed: 'manual' },
  reopen_file: { completed: 'awaiting_file' },
  refuse: { manual: 'rejected', awaiting_file: 'rejected', sent: 'rejected', completed: 'rejected' },
};

const cases = (Object.keys(DELIVERY_TRANSITIONS) as DeliveryAction[]).flatMap((action) =>
  DELIVERY_STATES.map((from) => [action, from, ALLOWED[action][from]] as const),
);

describe('benefit change delivery state machine', () => {
  it.each(cases)('when %s is asked of a %s change, then it leads to %s', (action, from, to) => {
    expect(canTransitionDelivery(action, from)).toBe(to !== undefined);
    if (to === undefined) {
      expect(() => assertDeliveryTransition(action, from)).toThrow(AppError);
      try {
        assertDeliveryTransition(action, from);
      } catch (error) {
        expect((error as AppError).type).toBe('invalid_state');
      }
    } else {
      expect(assertDeliveryTransition(action, from)).toBe(to);
    }
  });

  it('when the table is read, then only a person moves a change out of rejected or completed', () => {
    const byHand = new Set<DeliveryAction>(['complete_by_hand', 'reopen_manual', 'reopen_file', 'refuse']);
    for (const final of ['completed', 'rejected'] as const) {
      for (const action of Object.keys(DELIVERY_TRANSITIONS) as DeliveryAction[]) {
        if (!byHand.has(action)) expect(canTransitionDelivery(action, final)).toBe(false);
      }
    }
  });

  it('when the table is read, then only a business refusal leads to rejected: an acknowledgement never does', () => {
    const rejecting = (Object.keys(DELIVERY_TRANSITIONS) as DeliveryAction[]).filter((action) => DELIVERY_TRANSITIONS[action].to === 'rejected');
    expect(rejecting.sort()).toEqual(['carrier_reject', 'refuse']);
  });
});
