/**
 * A member's employment history (docs/decisions.md "Employment history"): what a member write says happened to
 * the employment, as entries of the history, and the consistency of a termination's reason and a death. Pure
 * functions over member rows and dates as 'YYYY-MM-DD' strings; the member service records the entries in the
 * transaction of the write.
 */
import { compareDates } from '../../shared/dates.ts';
import { InvalidState, ValidationFailed, inputError, type AppError, type InputError } from '../../shared/errors.ts';
import type { EmploymentEventType, LeaveType, MemberEmploymentEventRow, MemberRow, TerminationReason } from './member.table.ts';

/** What an entry holds besides its type and date (stored as JSON; every field optional). */
export interface EmploymentEventDetails {
  termination_reason?: TerminationReason | null;
  /** A termination_date cleared: the termination it recorded was withdrawn (an entry error, or a reversal before it took effect). */
  withdrawn?: boolean;
  /** A hire date corrected (not a rehire): the date it replaced. */
  corrected_from?: string;
  leave_type?: LeaveType;
  hours_before?: number | null;
  hours_after?: number | null;
  status_before?: string | null;
  status_after?: string | null;
  /** A rehire: the termination it follows, the days between and the rule of rehire-rules.ts that applied. */
  previous_termination_date?: string;
  days_away?: number;
  rehire_rule?: string;
  /** A rehire's elections: reinstated, or the member elects anew. */
  elections?: 'reinstate' | 'elect_anew';
  /** An admin's override of a waiting period, with the admin's reason (the audit trail). */
  waiting_period_waived?: { reason: string };
}

export interface NewEmploymentEvent {
  type: EmploymentEventType;
  effectiveDate: string;
  details: EmploymentEventDetails;
}

type EmploymentFields = Pick<MemberRow, 'hire_date' | 'termination_date' | 'termination_reason' | 'hours_worked' | 'employment_status'>;

/**
 * The history entries a member write makes, in order: a new member's hire (and termination); a hire date
 * corrected; a termination recorded, moved or withdrawn; hours and employment status changed (as of `today`,
 * the day HR says it). A rehire is its own action (rehire-rules.ts), never inferred from a PATCH.
 */
export function employmentEventsOf(before: EmploymentFields | null, after: EmploymentFields, today: string): NewEmploymentEvent[] {
  if (before === null) {
    const events: NewEmploymentEvent[] = [{ type: 'hire', effectiveDate: after.hire_date, details: {} }];
    if (after.termination_date !== null) {
      events.push({ type: 'termination', effectiveDate: after.termination_date, details: { termination_reason: after.termination_reason } });
    }
    return events;
  }
  const events: NewEmploymentEvent[] = [];
  if (after.hire_date !== before.hire_date) events.push({ type: 'hire', effectiveDate: after.hire_date, details: { corrected_from: before.hire_date } });
  if (after.termination_date === null && before.termination_date !== null) {
    events.push({ type: 'termination', effectiveDate: before.termination_date, details: { termination_reason: before.termination_reason, withdrawn: true } });
  } else if (
    after.termination_date !== null &&
    (after.termination_date !== before.termination_date || after.termination_reason !== before.termination_reason)
  ) {
    events.push({ type: 'termination', effectiveDate: after.termination_date, details: { termination_reason: after.termination_reason } });
  }
  return [...events, ...workChangesOf(before, after, today)];
}

/** The changes of hours and of employment status between two versions of a member, as of `today`. */
export function workChangesOf(
  before: Pick<MemberRow, 'hours_worked' | 'employment_status'>,
  after: Pick<MemberRow, 'hours_worked' | 'employment_status'>,
  today: string,
): NewEmploymentEvent[] {
  const events: NewEmploymentEvent[] = [];
  if (after.hours_worked !== before.hours_worked) {
    events.push({ type: 'change_of_hours', effectiveDate: today, details: { hours_before: before.hours_worked, hours_after: after.hours_worked } });
  }
  if (after.employment_status !== before.employment_status) {
    events.push({
      type: 'change_of_status',
      effectiveDate: today,
      details: { status_before: before.employment_status, status_after: after.employment_status },
    });
  }
  return events;
}

/** The leave the member is on: the latest leave_of_absence with no return_from_leave after it, if any. */
export function leaveInProgress(
  history: readonly Pick<MemberEmploymentEventRow, 'event_type' | 'effective_date' | 'details'>[],
): { effectiveDate: string; leaveType: LeaveType } | undefined {
  const last = history.findLast((row) => row.event_type === 'leave_of_absence' || row.event_type === 'return_from_leave');
  if (last?.event_type !== 'leave_of_absence') return undefined;
  return { effectiveDate: last.effective_date, leaveType: (JSON.parse(last.details) as EmploymentEventDetails).leave_type ?? 'other' };
}

/**
 * Why a leave of absence, or a return from one, cannot be recorded: a 400 on its fields, or a 409 when the
 * member's state does not allow it (a leave while on leave or after the termination, a return without a leave).
 */
export function leaveProblem(
  member: Pick<MemberRow, 'hire_date' | 'termination_date'>,
  input: { event_type: 'leave_of_absence' | 'return_from_leave'; effective_date: string; leave_type?: LeaveType | undefined },
  onLeave: { effectiveDate: string } | undefined,
): AppError | undefined {
  if (input.event_type === 'leave_of_absence') {
    if (input.leave_type === undefined) return new ValidationFailed([inputError(['leave_type'], 'A leave_of_absence needs its leave_type.')]);
    if (onLeave) return new InvalidState(`The member is on a leave of absence since ${onLeave.effectiveDate}: record the return_from_leave first.`);
    if (member.termination_date !== null) return new InvalidState('The member has a termination_date: a leave of absence is recorded for an employee.');
    if (compareDates(input.effective_date, member.hire_date) < 0) {
      return new ValidationFailed([inputError(['effective_date'], `A leave cannot start before the hire date: expected ${member.hire_date} or later.`)]);
    }
    return undefined;
  }
  if (input.leave_type !== undefined)
    return new ValidationFailed([inputError(['leave_type'], 'A return_from_leave returns from the leave recorded: leave_type is for leave_of_absence.')]);
  if (!onLeave) return new InvalidState('The member is not on a leave of absence: there is nothing to return from.');
  if (compareDates(input.effective_date, onLeave.effectiveDate) < 0) {
    return new ValidationFailed([inputError(['effective_date'], `The leave began on ${onLeave.effectiveDate}: expected ${onLeave.effectiveDate} or later.`)]);
  }
  return undefined;
}

type DeathFields = Pick<MemberRow, 'termination_date' | 'termination_reason' | 'date_of_death'>;

/**
 * A death recorded as HR records it: a date_of_death without a termination_date ends the employment that day,
 * and a termination on the day of death, or with reason `death`, is one (docs/decisions.md "Employment
 * history"). Returns the fields completed; `assertEmploymentConsistent` then refuses what still disagrees.
 */
export function withDeathCompleted<T extends DeathFields>(row: T): T {
  if (row.date_of_death !== null) {
    const terminationDate = row.termination_date ?? row.date_of_death;
    const diedInService = terminationDate === row.date_of_death;
    return { ...row, termination_date: terminationDate, termination_reason: diedInService ? (row.termination_reason ?? 'death') : row.termination_reason };
  }
  if (row.termination_reason === 'death' && row.termination_date !== null) return { ...row, date_of_death: row.termination_date };
  return row;
}

/** What is wrong with a member's termination reason and date of death, as 400 errors on their fields. */
export function employmentProblems(row: DeathFields & Pick<MemberRow, 'dob'>, today: string): InputError[] {
  const errors: InputError[] = [];
  if (row.termination_reason !== null && row.termination_date === null) {
    errors.push(inputError(['termination_reason'], 'A termination_reason needs a termination_date.'));
  }
  if (row.date_of_death !== null) {
    if (compareDates(row.date_of_death, today) > 0) errors.push(inputError(['date_of_death'], 'The date of death cannot be in the future.'));
    if (compareDates(row.date_of_death, row.dob) < 0) errors.push(inputError(['date_of_death'], 'The date of death cannot be before the date of birth.'));
    if (row.termination_date !== null && compareDates(row.termination_date, row.date_of_death) > 0) {
      errors.push(inputError(['termination_date'], `The termination date cannot be after the date of death (expected ${row.date_of_death} or earlier).`));
    }
    if (row.termination_date === row.date_of_death && row.termination_reason !== 'death') {
      errors.push(inputError(['termination_reason'], 'An employment that ended on the date of death ended by death: expected termination_reason death.'));
    }
  }
  return errors;
}
