import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { ENROLLMENT_STATUSES } from './enrollment.table.ts';
import { ENROLLMENT_TRANSITIONS, assertTransition, canTransition, type EnrollmentAction } from './enrollment-status.ts';

const ALLOWED: Record<EnrollmentAction, Partial<Record<(typeof ENROLLMENT_STATUSES)[number], string>>> = {
  save_and_submit: { not_started: 'pending' },
  reopen: { pending: 'not_started' },
  cancel: { not_started: 'cancelled', pending: 'cancelled' },
  approve: { pending: 'approved' },
  complete: { approved: 'synced' },
  reject: { approved: 'failed', synced: 'failed' },
};

const cases = (Object.keys(ENROLLMENT_TRANSITIONS) as EnrollmentAction[]).flatMap((action) =>
  ENROLLMENT_STATUSES.map((from) => [action, from, ALLOWED[action][from]] as const),
);

describe('enrollment status machine', () => {
  it.each(cases)('when %s is asked of a %s enrollment, then it leads to %s', (action, from, to) => {
    expect(canTransition(action, from)).toBe(to !== undefined);
    if (to === undefined) {
      expect(() => assertTransition(action, from)).toThrow(AppError);
      try {
        assertTransition(action, from);
      } catch (error) {
        expect((error as AppError).type).toBe('invalid_state');
      }
    } else {
      expect(assertTransition(action, from)).toBe(to);
    }
  });

  it('when the table is read, then cancelled and failed are final, and synced moves only to failed (a carrier refusing a change after accepting it)', () => {
    for (const final of ['synced', 'cancelled', 'failed'] as const) {
      for (const action of Object.keys(ENROLLMENT_TRANSITIONS) as EnrollmentAction[]) {
        expect(canTransition(action, final)).toBe(final === 'synced' && action === 'reject');
      }
    }
  });
});
