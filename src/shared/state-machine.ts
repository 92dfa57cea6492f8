import { InvalidState } from './errors.ts';

/**
 * The checks of a status machine written as data (STYLE habit 5): `transitions` maps each action to the
 * statuses it may start from and the status it leads to; `refusal` words the 409 for an action asked of the
 * wrong status.
 */
export function statusMachine<Status extends string, Action extends string>(
  transitions: Record<Action, { readonly from: readonly Status[]; readonly to: Status }>,
  refusal: (action: Action, from: Status, allowed: string) => string,
) {
  const can = (action: Action, from: Status): boolean => transitions[action].from.includes(from);
  return {
    can,
    /** The status `action` leads to from `from`; a 409 invalid_state when the action is not allowed there. */
    assert(action: Action, from: Status): Status {
      if (!can(action, from)) throw new InvalidState(refusal(action, from, transitions[action].from.join(' or ')));
      return transitions[action].to;
    },
  };
}
