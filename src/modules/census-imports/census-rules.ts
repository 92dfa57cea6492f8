/**
 * The diff rules of a census import (docs/decisions.md "Census imports"): who a row is (matching), what it
 * changes (field by field), what it warns of, and when terminations need a confirmation. Pure: the service
 * loads the records and writes the outcome.
 */
import { createHash } from 'node:crypto';
import { compareDates } from '../../shared/dates.ts';
import { foldToX12 } from '../../shared/x12-text.ts';
import { ELEMENT_LENGTHS } from '../edi/x12-elements.ts';
import type { CensusProblem, CensusValues } from './census-row-reader.ts';

/** The share of an employer's employed members a file may terminate without a confirmation, unless the import says otherwise. */
export const DEFAULT_MAX_TERMINATION_SHARE = 0.1;

/** A member as matching sees it. */
export interface MemberRef {
  id: string;
  payrollId: string | null;
}

export type EmployeeMatch =
  { kind: 'new' } | { kind: 'found'; memberId: string; by: 'employee_id' | 'ssn' } | { kind: 'conflict'; column: 'employee_id' | 'ssn'; message: string };

/**
 * Who an employee row is: the member whose payroll_provider_external_id is the employee_id, else the member with
 * the row's SSN (by its keyed digest). Both found and different, or an SSN of a member known by another
 * employee id, is a conflict: the file and our records disagree on who this is, and a person must decide.
 */
export function matchEmployee(employeeId: string, byEmployeeId: MemberRef | undefined, bySsn: MemberRef | undefined): EmployeeMatch {
  if (byEmployeeId && bySsn && byEmployeeId.id !== bySsn.id) {
    return {
      kind: 'conflict',
      column: 'ssn',
      message: `employee_id ${employeeId} is member ${byEmployeeId.id}, but this SSN is member ${bySsn.id}'s: correct the file or the members first.`,
    };
  }
  if (byEmployeeId) return { kind: 'found', memberId: byEmployeeId.id, by: 'employee_id' };
  if (bySsn) {
    if (bySsn.payrollId !== null && bySsn.payrollId !== employeeId) {
      return {
        kind: 'conflict',
        column: 'employee_id',
        message: `This SSN is member ${bySsn.id}'s, whose employee_id is ${bySsn.payrollId}, not ${employeeId}: correct the file or the member first.`,
      };
    }
    return { kind: 'found', memberId: bySsn.id, by: 'ssn' };
  }
  return { kind: 'new' };
}

/** A dependent as matching sees it. */
export interface DependentRef {
  id: string;
  firstName: string;
  dob: string;
  ssnLastFour: string | null;
}

/**
 * Which of the member's dependents a row is: the one with the row's SSN (`sameSsn` decrypts only those whose
 * last four match), else the one with the same first name (compared as an 834 spells it, case aside) and date
 * of birth. The relationship is not part of the key: a divorce changes it (spouse -> ex_spouse), and the row
 * then updates it. Undefined: a new dependent.
 */
export function matchDependent(
  dependents: readonly DependentRef[],
  row: { firstName: string | undefined; dob: string | undefined; ssn: string | undefined },
  sameSsn: (dependent: DependentRef, ssn: string) => boolean,
): DependentRef | undefined {
  const { ssn } = row;
  if (ssn !== undefined) {
    const bySsn = dependents.find((dependent) => dependent.ssnLastFour === ssn.slice(-4) && sameSsn(dependent, ssn));
    if (bySsn) return bySsn;
  }
  if (row.firstName === undefined || row.dob === undefined) return undefined;
  const key = nameKey(row.firstName);
  return dependents.find((dependent) => dependent.dob === row.dob && nameKey(dependent.firstName) === key);
}

/** A name as a carrier's file spells it, case aside: how people are told apart in a file. */
export function nameKey(name: string): string {
  return foldToX12(name).toLowerCase();
}

/** One field a row changes: the SSN shows only `new: 'changed'`, never a value. */
export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}

/**
 * What the row's values change in the record's (both by the API's field names): each given field whose value
 * differs, in the row's order. `ssnChanged` says whether a given SSN differs from the stored one (compared by
 * digest or by the one dependent's stored SSN, never shown).
 */
export function fieldChanges(current: Readonly<Record<string, unknown>>, values: CensusValues, ssnChanged: boolean): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (field === 'annual_pay') continue;
    if (field === 'ssn') {
      if (ssnChanged) changes.push({ field: 'ssn', old: null, new: 'changed' });
      continue;
    }
    if (!(field in current)) continue;
    const old = current[field] ?? null;
    if (!sameValue(old, value)) changes.push({ field, old, new: value });
  }
  return changes;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && (a as string[]).toSorted().join('\u0000') === (b as string[]).toSorted().join('\u0000');
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].every((key) => (left[key] ?? null) === (right[key] ?? null));
  }
  return a === b;
}

export const CENSUS_WARNING_CODES = [
  'ssn_changed_with_coverage',
  'dob_changed_with_coverage',
  'termination_in_past',
  'name_too_long_for_carriers',
  'not_applied',
] as const;
export type CensusWarningCode = (typeof CENSUS_WARNING_CODES)[number];
export interface CensusWarning extends CensusProblem {
  code: CensusWarningCode;
}

/** The name elements of an 834 and their longest length (005010 NM103-NM105: x12-elements.ts ELEMENT_LENGTHS). */
const NAME_ELEMENTS = [
  ['first_name', 'NM104'],
  ['middle_name', 'NM105'],
  ['last_name', 'NM103'],
] as const;

/**
 * The warnings of a row that can be applied: an SSN or date of birth changed for someone with coverage (the
 * carriers must be told: the change goes to them as a demographic change), a termination date already past
 * (coverage ends at once, not on a later day), a name longer than an 834 carries (it is cut), and a column
 * read but not applied.
 */
export function rowWarnings(input: {
  line: number;
  changes: readonly FieldChange[];
  values: CensusValues;
  hasCoverage: boolean;
  today: string;
  target: 'member' | 'dependent';
}): CensusWarning[] {
  const { line, changes, values, hasCoverage, today } = input;
  const warnings: CensusWarning[] = [];
  const changed = (field: string) => changes.find((change) => change.field === field);
  if (hasCoverage && changed('ssn')) {
    warnings.push({
      line,
      column: 'ssn',
      code: 'ssn_changed_with_coverage',
      message: 'The SSN changes for someone with coverage: the carriers will be sent the new one.',
    });
  }
  const dob = changed('dob');
  if (hasCoverage && dob) {
    warnings.push({
      line,
      column: 'dob',
      code: 'dob_changed_with_coverage',
      message: 'The date of birth changes for someone with coverage: the carriers will be sent it, and age-rated premiums may change.',
    });
  }
  const termination = changed('termination_date');
  if (termination && typeof termination.new === 'string' && compareDates(termination.new, today) < 0) {
    warnings.push({
      line,
      column: 'termination_date',
      code: 'termination_in_past',
      message: `The termination date ${termination.new} is already past: coverage ends as of it when the import is applied.`,
    });
  }
  for (const [field, element] of NAME_ELEMENTS) {
    const value = values[field];
    const max = ELEMENT_LENGTHS[element][1];
    if (value !== undefined && foldToX12(value).length > max) {
      warnings.push({
        line,
        column: field,
        code: 'name_too_long_for_carriers',
        message: `Longer than the ${max} characters an 834 carries (${element}): carriers receive it cut.`,
      });
    }
  }
  if (values.annual_pay !== undefined) {
    warnings.push({
      line,
      column: 'annual_pay',
      code: 'not_applied',
      message: 'annual_pay is read and checked but not applied: pay rates are set through /pay_rates.',
    });
  }
  if (input.target === 'member' && values.middle_name !== undefined) {
    warnings.push({
      line,
      column: 'middle_name',
      code: 'not_applied',
      message: 'Members have no middle name on record: middle_name is applied to dependents only.',
    });
  }
  return warnings;
}

/** Whether an import terminating `terminations` of `employedMembers` needs confirm_terminations: strictly more than the share. */
export function needsTerminationConfirmation(terminations: number, employedMembers: number, maxShare: number): boolean {
  return terminations > maxShare * employedMembers;
}

/** A fingerprint of a record as read: the apply compares it, under the member's lock, with the record then. */
export function recordVersion(row: object): string {
  return createHash('sha256').update(JSON.stringify(row)).digest('base64url');
}
