/**
 * What an approved enrollment does to the member's later elections on one line of coverage (docs/decisions.md
 * "Life events", retroactive events reach forward): pure functions of calendar dates and ids, table-driven tests in
 * later-elections-rules.test.ts. later-elections.ts reads the facts and carries the decisions out.
 */
import { compareDates } from '../../shared/dates.ts';

/** One of the approved enrollment's own elections on the line (several when it names the plan of each plan year it spans). */
export interface OwnElection {
  enrolledPlanId: string;
  start: string;
  end: string | null;
}

/** An election of another enrollment of the member on the line, starting after the approved enrollment's first day there. */
export interface LaterElection {
  enrolledPlanId: string;
  enrollmentId: string;
  /** `pending`: not approved yet, amended in place; `coverage`: approved (coverage-in-force.ts), amended through a continuation. */
  stage: 'pending' | 'coverage';
  start: string;
  dependentIds: readonly string[];
}

export type LaterElectionAction =
  /** The election covers `adding` too, from its own start, priced again. */
  | { kind: 'amend'; election: LaterElection; adding: readonly string[] }
  /** The approved enrollment elects a plan from the same day (the next plan year's): that election takes its place. */
  | { kind: 'replaced'; election: LaterElection; by: OwnElection };

export interface ReachForward {
  actions: LaterElectionAction[];
  /** Own elections that a later approved election takes over: each ends the day before `laterStart`. */
  yields: { own: OwnElection; laterStart: string }[];
}

const byStart = <T extends { start: string }>(a: T, b: T) => compareDates(a.start, b.start);

function runsOn(election: Pick<OwnElection, 'end'>, day: string): boolean {
  return election.end === null || compareDates(election.end, day) >= 0;
}

/**
 * The approved enrollment's elections `own` on a line add the people `adds` (who were not covered on the line the
 * day it starts: a newborn, an adopted child, a new spouse). Each later election of the member on the line then:
 *
 * - starting on the day one of `own` starts, once approved: is replaced by it (the enrollment names the plan of
 *   that plan year itself);
 * - else gets every one of `adds` it does not cover and who is `eligible` on it, from its own start (29 U.S.C.
 *   1181(f)(2)(C): a child is covered from birth, adoption or placement on, whatever the member elects later);
 *   nothing when it covers them all already.
 *
 * A later approved election also wins from its start over the own election running then (as it would have, had the
 * two been approved in the order of their starts): that one ends the day before, so that one entry per line is in
 * force on every date.
 */
export function reachForward(input: {
  own: readonly OwnElection[];
  adds: readonly string[];
  later: readonly LaterElection[];
  eligible: (dependentId: string, election: LaterElection) => boolean;
}): ReachForward {
  const own = [...input.own].sort(byStart);
  const first = own[0];
  const actions: LaterElectionAction[] = [];
  const yields = new Map<string, { own: OwnElection; laterStart: string }>();
  if (first === undefined) return { actions, yields: [] };
  for (const election of [...input.later].sort(byStart)) {
    if (compareDates(election.start, first.start) <= 0) continue;
    const carrying = own.filter((candidate) => compareDates(candidate.start, election.start) <= 0).at(-1)!;
    if (election.stage === 'coverage') {
      if (carrying.start === election.start) {
        actions.push({ kind: 'replaced', election, by: carrying });
        continue;
      }
      if (runsOn(carrying, election.start) && !yields.has(carrying.enrolledPlanId)) {
        yields.set(carrying.enrolledPlanId, { own: carrying, laterStart: election.start });
      }
    }
    const adding = input.adds.filter((id) => !election.dependentIds.includes(id) && input.eligible(id, election));
    if (adding.length > 0) actions.push({ kind: 'amend', election, adding });
  }
  return { actions, yields: [...yields.values()] };
}
