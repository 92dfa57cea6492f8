/**
 * What makes one plan the renewal of another (next plan year's plan as a record of its own): the rules a link
 * between a predecessor and its successor keeps, as data, each read by `renewalLinkErrors`. A link is made by
 * `POST /plans/{id}/renew` or by PATCH (`next_plan` on the predecessor, `previous_plan` on the successor).
 */
import { addDays, compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import type { PlanRow } from './plan.table.ts';

/** What the rules read of each side of a link. */
export type RenewalSide = Pick<PlanRow, 'id' | 'group_id' | 'line_of_coverage' | 'effective_start' | 'effective_end' | 'previous_plan_id' | 'next_plan_id'>;

interface LinkRule {
  holds(predecessor: RenewalSide, successor: RenewalSide): boolean;
  message(predecessor: RenewalSide, successor: RenewalSide): string;
}

/** The day a successor of `predecessor` starts: the day after the predecessor's plan year ends. */
export function renewalStart(predecessor: Pick<RenewalSide, 'effective_end'>): string {
  return addDays(predecessor.effective_end, 1);
}

/**
 * Each rule of a link, in the order its errors are listed. Because a successor starts after its predecessor
 * ends, following `next_plan` always moves forward in time: a chain of renewals can never come back to a plan.
 */
const LINK_RULES: readonly LinkRule[] = [
  {
    // The carrier and employer stay: a move to another carrier is a new plan (its benefit changes are a
    // `removed` for the old group and a `new` for the new one), not a renewal.
    holds: (predecessor, successor) => predecessor.group_id === successor.group_id,
    message: (predecessor, successor) =>
      `Plan ${successor.id} is in group ${successor.group_id}, plan ${predecessor.id} in group ${predecessor.group_id}: a renewal stays in the same group (carrier and employer).`,
  },
  {
    holds: (predecessor, successor) => predecessor.line_of_coverage === successor.line_of_coverage,
    message: (predecessor, successor) =>
      `Plan ${successor.id} is ${successor.line_of_coverage} coverage, plan ${predecessor.id} ${predecessor.line_of_coverage}: a renewal keeps the line of coverage.`,
  },
  {
    // Coverage carried over runs without a gap or an overlap: the member's last day on the old plan is the day
    // before their first on the new one.
    holds: (predecessor, successor) => compareDates(successor.effective_start, renewalStart(predecessor)) === 0,
    message: (predecessor, successor) =>
      `Plan ${successor.id} starts on ${successor.effective_start}; a renewal of plan ${predecessor.id} starts the day after it ends: ${renewalStart(predecessor)}.`,
  },
  {
    holds: (predecessor, successor) => predecessor.next_plan_id === null || predecessor.next_plan_id === successor.id,
    message: (predecessor) =>
      `Plan ${predecessor.id} is already renewed by plan ${predecessor.next_plan_id}; a plan has at most one successor. Unlink them first (next_plan: null on plan ${predecessor.id}).`,
  },
  {
    holds: (predecessor, successor) => successor.previous_plan_id === null || successor.previous_plan_id === predecessor.id,
    message: (_predecessor, successor) =>
      `Plan ${successor.id} already renews plan ${successor.previous_plan_id}; a plan has at most one predecessor. Unlink them first (previous_plan: null on plan ${successor.id}).`,
  },
];

/**
 * Why `successor` cannot renew `predecessor`, each at `field` (the body field naming the other plan); empty when
 * it can. The plan a PATCH changes comes with its links as asked (its own successor or predecessor is replaced),
 * the plan it names as it stands (a link it already has to a third plan is never taken away).
 */
export function renewalLinkErrors(predecessor: RenewalSide, successor: RenewalSide, field: readonly (string | number)[]): InputError[] {
  if (predecessor.id === successor.id) return [inputError([...field], 'A plan cannot renew itself.')];
  return LINK_RULES.filter((rule) => !rule.holds(predecessor, successor)).map((rule) => inputError([...field], rule.message(predecessor, successor)));
}

/**
 * A linked plan whose dates a PATCH moves must stay next to its neighbours: it still starts the day after its
 * predecessor ends and ends the day before its successor starts. Errors at `effective_start` / `effective_end`.
 */
export function linkedDatesErrors(
  plan: Pick<RenewalSide, 'effective_start' | 'effective_end'>,
  neighbours: { predecessor?: Pick<RenewalSide, 'id' | 'effective_end'> | undefined; successor?: Pick<RenewalSide, 'id' | 'effective_start'> | undefined },
): InputError[] {
  const errors: InputError[] = [];
  const { predecessor, successor } = neighbours;
  if (predecessor && compareDates(plan.effective_start, renewalStart(predecessor)) !== 0) {
    errors.push(
      inputError(
        ['effective_start'],
        `The plan renews plan ${predecessor.id}, which ends on ${predecessor.effective_end}: it must start on ${renewalStart(predecessor)}. Unlink it first (previous_plan: null) to move it.`,
      ),
    );
  }
  if (successor && compareDates(renewalStart(plan), successor.effective_start) !== 0) {
    errors.push(
      inputError(
        ['effective_end'],
        `The plan is renewed by plan ${successor.id}, which starts on ${successor.effective_start}: it must end on ${addDays(successor.effective_start, -1)}. Unlink it first (next_plan: null) to move it.`,
      ),
    );
  }
  return errors;
}
