/**
 * What a rehire is (docs/decisions.md "Employment history", Rehires): one row per rule, by how long the employee
 * was away, each with its source. Pure functions over dates as 'YYYY-MM-DD' strings; the member service records
 * the rule with the rehire, and the enrollment rules read it when a rehire's coverage may start.
 */
import { addDays, compareDates, daysBetween } from '../../shared/dates.ts';

export const REHIRE_RULES = ['reinstated', 'continuing_employee', 'new_hire'] as const;
export type RehireRule = (typeof REHIRE_RULES)[number];

export interface RehireRuleRow {
  rule: RehireRule;
  /** The last rehire date, in days after the termination date, the row covers (null: any later). */
  lastDayAfterTermination: number | null;
  /** The prior elections go on from the rehire date for the rest of their plan year, unless the member elects anew. */
  reinstatesElections: boolean;
  /** A waiting period starts again from the rehire date. */
  newWaitingPeriod: boolean;
  source: string;
}

/**
 * In order: the first row whose last day the rehire date is not past applies.
 * - 30 days: the 30-day rule of the proposed cafeteria plan regulations (Prop. Treas. Reg. under 26 U.S.C. 125,
 *   72 FR 43938 (2007), the rule the issue cites as Prop. Treas. Reg. 1.125-4; proposed, so this service follows
 *   it as its plan rule): an employee who terminates and is rehired within 30 days is reinstated in the elections
 *   made before, for the rest of the plan year. A member may elect anew instead (`elections: elect_anew`).
 * - 13 weeks: 26 CFR 54.4980H-3(c)(4): an employee who resumes service after a period of fewer than 13
 *   consecutive weeks without an hour of service is a continuing employee, not a new one: no new waiting period
 *   (and no new measurement period). A rehire 91 days after the termination date was away 90 days (fewer than 13
 *   weeks); 92 days after, 91 days (13 weeks): a new employee.
 * - Later: a new employee, with a new waiting period from the rehire date.
 */
export const REHIRE_RULE_ROWS: readonly RehireRuleRow[] = [
  {
    rule: 'reinstated',
    lastDayAfterTermination: 30,
    reinstatesElections: true,
    newWaitingPeriod: false,
    source: 'Prop. Treas. Reg. (26 U.S.C. 125), 72 FR 43938 (2007): rehired within 30 days, prior elections reinstated',
  },
  {
    rule: 'continuing_employee',
    lastDayAfterTermination: 91,
    reinstatesElections: false,
    newWaitingPeriod: false,
    source: '26 CFR 54.4980H-3(c)(4): fewer than 13 consecutive weeks without an hour of service, a continuing employee',
  },
  {
    rule: 'new_hire',
    lastDayAfterTermination: null,
    reinstatesElections: false,
    newWaitingPeriod: true,
    source: '26 CFR 54.4980H-3(c)(4): 13 weeks or more without an hour of service, a new employee',
  },
];

/** The rule of a rehire on `rehireDate` after a termination on `terminationDate` (the rehire date is after it). */
export function rehireRuleOf(terminationDate: string, rehireDate: string): RehireRuleRow {
  return REHIRE_RULE_ROWS.find(
    (row) => row.lastDayAfterTermination === null || compareDates(rehireDate, addDays(terminationDate, row.lastDayAfterTermination)) <= 0,
  )!;
}

/** Days from the termination date to the rehire date (1: rehired the next day). */
export function daysAway(terminationDate: string, rehireDate: string): number {
  return daysBetween(terminationDate, rehireDate);
}

/**
 * The waiting period a member's coverage on a plan counts from: the hire date on record (a rehire's date after a
 * rehire) and the configuration's days, or no days for a rehire that starts no new waiting period (a reinstated
 * or continuing employee), or for an enrollment an admin overrode where the configuration allows its waiting
 * period to be waived (`waiting_period_waiver_allowed`).
 */
export function waitingPeriodBasis(
  member: { hireDate: string; rehireRule: string | null },
  configuration: { waiting_period_days: number; waiting_period_waiver_allowed: boolean | number },
  options: { overridden: boolean },
): { from: string; days: number } {
  const row = REHIRE_RULE_ROWS.find((candidate) => candidate.rule === member.rehireRule);
  const waived = options.overridden && Boolean(configuration.waiting_period_waiver_allowed);
  return { from: member.hireDate, days: (row !== undefined && !row.newWaitingPeriod) || waived ? 0 : configuration.waiting_period_days };
}
