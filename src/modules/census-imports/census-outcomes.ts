/**
 * What a census import's dry run decides for each row and for the file (docs/decisions.md "Census imports"): the
 * summary GET shows, a row's outcome and how the stored records compare with a row (census-check.ts runs it).
 */
import { parseAddress } from '../../http/schemas.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import { readCsvCensus, readJsonCensus, type CensusRecord } from './census-file.ts';
import type { CensusRowKind } from './census-import.table.ts';
import type { CensusProblem } from './census-row-reader.ts';
import type { CensusWarning, FieldChange } from './census-rules.ts';

/** What GET shows of the diff as a whole. */
export interface CensusImportSummary {
  create: number;
  update: number;
  unchanged: number;
  error: number;
  missing: number;
  warnings: number;
  terminations: number;
  employed_members: number;
  needs_termination_confirmation: boolean;
}

export const EMPTY_SUMMARY: CensusImportSummary = {
  create: 0,
  update: 0,
  unchanged: 0,
  error: 0,
  missing: 0,
  warnings: 0,
  terminations: 0,
  employed_members: 0,
  needs_termination_confirmation: false,
};

/** Told how far a long step has got (`done` of `total` rows), after each batch: the CLI's progress bar. */
export type CensusProgress = (done: number, total: number) => void;

/** The stored file: its format and its text (CSV) or rows (JSON). */
export type CensusContent = { format: 'csv'; content: string } | { format: 'json'; rows: Record<string, unknown>[] };

export function readCensusContent(content: CensusContent): CensusRecord[] {
  return content.format === 'csv' ? readCsvCensus(content.content) : readJsonCensus(content.rows);
}

/** The columns that are the employee's alone: given on a dependent's row, they are not applied. */
export const EMPLOYEE_ONLY_FIELDS = [
  'email',
  'phone_number',
  'hire_date',
  'termination_date',
  'termination_reason',
  'employment_status',
  'hours_worked',
  'pay_frequency',
  'annual_pay',
  'business_unit',
  'subclasses',
] as const;
export const MEMBER_REQUIRED = ['first_name', 'last_name', 'dob', 'address', 'hire_date'] as const;
export const DEPENDENT_REQUIRED = ['first_name', 'last_name', 'dob'] as const;

/** Ids sort by position, so that the keyset order (created_at, id), newest first, is the file's order. */
export function resultId(importId: string, position: number): string {
  return `cirow_${importId.slice(importId.indexOf('_') + 1)}_${String(99_999_999 - position).padStart(8, '0')}`;
}

export interface Outcome {
  kind: CensusRowKind;
  target: 'member' | 'dependent';
  memberId: string | null;
  dependentId: string | null;
  changes: FieldChange[];
  input: Record<string, unknown>;
  ssn: string | null;
  errors: CensusProblem[];
  warnings: CensusWarning[];
  terminates: boolean;
  seenVersion: string | null;
}

/** What the employee rows decided, for the dependents' rows: the member (null: created by the file) or an error. */
export interface EmployeeOutcome {
  line: number;
  memberId: string | null;
  failed: boolean;
}

export function memberFields(row: MemberRow, subclasses: readonly string[]): Record<string, unknown> {
  return {
    first_name: row.first_name,
    last_name: row.last_name,
    dob: row.dob,
    biological_sex: row.biological_sex,
    email: row.email,
    phone_number: row.phone_number,
    address: parseAddress(row.address),
    hire_date: row.hire_date,
    termination_date: row.termination_date,
    termination_reason: row.termination_reason,
    employment_status: row.employment_status,
    hours_worked: row.hours_worked,
    pay_frequency: row.pay_frequency,
    business_unit: row.business_unit_id,
    subclasses,
  };
}

export function dependentFields(row: DependentRow): Record<string, unknown> {
  return {
    first_name: row.first_name,
    middle_name: row.middle_name,
    last_name: row.last_name,
    dob: row.dob,
    biological_sex: row.biological_sex,
    address: row.address === null ? null : parseAddress(row.address),
    member_relationship: row.member_relationship,
  };
}

export const errorOutcome = (target: 'member' | 'dependent', errors: CensusProblem[], memberId: string | null = null): Outcome => ({
  kind: 'error',
  target,
  memberId,
  dependentId: null,
  changes: [],
  input: {},
  ssn: null,
  errors,
  warnings: [],
  terminates: false,
  seenVersion: null,
});

export function toRef(member: MemberRow | undefined) {
  return member === undefined ? undefined : { id: member.id, payrollId: member.payroll_provider_external_id };
}

/** The file's column for an API field. */
export function columnOf(field: string): string {
  const columns: Record<string, string> = {
    address: 'address_line1',
    phone_number: 'phone',
    biological_sex: 'sex',
    employment_status: 'employment_type',
    hours_worked: 'scheduled_hours',
    subclasses: 'subclass',
  };
  return columns[field] ?? field;
}
