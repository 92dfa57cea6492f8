import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { WINDOW_STATUSES } from './open-enrollment-window.table.ts';
import { WINDOW_TRANSITIONS, assertWindowTransition, canTransitionWindow, type WindowAction } from './window-status.ts';

const ALLOWED: Record<WindowAction, Partial<Record<(typeof WINDOW_STATUSES)[number], string>>> = {
  configure: { setup_required: 'build_in_progress' },
  unconfigure: { build_in_progress: 'setup_required' },
  activate: { build_in_progress: 'active' },
  close: { active: 'closed' },
  complete: { closed: 'completed' },
};

const cases = (Object.keys(WINDOW_TRANSITIONS) as WindowAction[]).flatMap((action) =>
  WINDOW_STATUSES.map((from) => [action, from, ALLOWED[action][from]] as const),
);

describe('open enrollment window status machine', () => {
  it.each(cases)('when %s is asked of a %s window, then it leads to %s', (action, from, to) => {
    expect(canTransitionWindow(action, from)).toBe(to !== undefined);
    if (to === undefined) {
      try {
        assertWindowTransition(action, from);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).type).toBe('invalid_state');
      }
    } else {
      expect(assertWindowTransition(action, from)).toBe(to);
    }
  });

  it('when the table is read, then completed is final', () => {
    for (const action of Object.keys(WINDOW_TRANSITIONS) as WindowAction[]) expect(canTransitionWindow(action, 'completed')).toBe(false);
  });
});
