/**
 * The dry run of a census import (docs/decisions.md "Census imports"): reads the stored file, matches each row
 * to a member or dependent, and stores the diff, a batch of rows per transaction so that GET shows the
 * progress. Writes nothing but the import's own rows. Run by the job (census-import.job.ts), or at once for a
 * small file; run again from the start after a crash (the rows of an unfinished check are replaced).
 */
import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { toDateString } from '../../shared/dates.ts';
import { AppError } from '../../shared/errors.ts';
import type { SsnDigester } from '../../shared/ssn.ts';
import { batches } from '../../shared/batches.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { CensusRecord } from './census-file.ts';
import * as repository from './census-import.repository.ts';
import {
  columnOf,
  DEPENDENT_REQUIRED,
  dependentFields,
  EMPLOYEE_ONLY_FIELDS,
  EMPTY_SUMMARY,
  errorOutcome,
  MEMBER_REQUIRED,
  memberFields,
  readCensusContent,
  resultId,
  toRef,
  type CensusContent,
  type CensusImportSummary,
  type CensusProgress,
  type EmployeeOutcome,
  type Outcome,
} from './census-outcomes.ts';
import type { CensusImportRow, CensusResultRow } from './census-import.table.ts';
import { readCensusRow, type CensusFileRow, type CensusProblem, type CensusValues } from './census-row-reader.ts';
import {
  fieldChanges,
  matchDependent,
  matchEmployee,
  nameKey,
  needsTerminationConfirmation,
  recordVersion,
  rowWarnings,
  type CensusWarning,
  type FieldChange,
} from './census-rules.ts';

/** Rows checked per transaction: the step GET's processed_rows moves by. */
export const CHECK_BATCH = 1_000;

export class CensusCheck {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #ssnDigester: SsnDigester;

  constructor(options: { db: Kysely<Database>; clock: Clock; encrypter: Encrypter; ssnDigester: SsnDigester }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#encrypter = options.encrypter;
    this.#ssnDigester = options.ssnDigester;
  }

  /** Checks the import if it is still `checking`; a file that cannot be read at all fails it (status failed, with why). */
  async check(importId: string, onProgress?: CensusProgress): Promise<void> {
    const found = await repository.findCensusImportForJob(this.#db, importId);
    if (!found || found.status !== 'checking' || found.content_encrypted === null) return;
    let records: CensusRecord[];
    try {
      records = readCensusContent(JSON.parse(this.#encrypter.decrypt(found.content_encrypted)) as CensusContent);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const detail = error.inputErrors?.map((e) => e.message).join(' ') ?? error.message;
      await repository.updateCensusImport(this.#db, importId, {
        status: 'failed',
        failure: detail,
        content_encrypted: null,
        checked_at: this.#clock.now().toISOString(),
      });
      return;
    }
    await repository.deleteCensusResults(this.#db, importId);
    await repository.updateCensusImport(this.#db, importId, { processed_rows: 0, total_rows: records.length });
    // The run keeps the import's row but not its encrypted file (as large as the file again), which it has read.
    const row = { ...found, content_encrypted: null };
    await new CensusCheckRun(this.#db, this.#clock, this.#encrypter, this.#ssnDigester, row, records, onProgress).run();
  }
}

/** One run of the check over one import's records (state kept between its batches). */
class CensusCheckRun {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #ssnDigester: SsnDigester;
  readonly #import: CensusImportRow;
  readonly #records: CensusRecord[];
  readonly #today: string;
  readonly #summary: CensusImportSummary = { ...EMPTY_SUMMARY };
  readonly #employees = new Map<string, EmployeeOutcome>();
  readonly #employeeSsns = new Map<string, number>();
  readonly #matchedMembers = new Map<string, number>();
  readonly #dependentKeys = new Map<string, number>();
  #units: { businessUnits: Map<string, string>; subclasses: Map<string, string> } = { businessUnits: new Map(), subclasses: new Map() };
  readonly #onProgress: CensusProgress | undefined;
  #processed = 0;

  constructor(
    db: Kysely<Database>,
    clock: Clock,
    encrypter: Encrypter,
    ssnDigester: SsnDigester,
    row: CensusImportRow,
    records: CensusRecord[],
    onProgress: CensusProgress | undefined,
  ) {
    this.#db = db;
    this.#clock = clock;
    this.#encrypter = encrypter;
    this.#ssnDigester = ssnDigester;
    this.#import = row;
    this.#records = records;
    this.#onProgress = onProgress;
    this.#today = toDateString(clock.now());
  }

  async run(): Promise<void> {
    const units = await repository.findEmployerUnits(this.#db, this.#import.provider_id, this.#import.employer_id);
    const byIdOrName = (list: { id: string; name: string }[]) =>
      new Map([...list.map((u) => [u.name, u.id] as const), ...list.map((u) => [u.id, u.id] as const)]);
    this.#units = { businessUnits: byIdOrName(units.businessUnits), subclasses: byIdOrName(units.subclasses) };
    const read = this.#records.map((record, position) => ({ position, ...readCensusRow(record.line, record.cells), line: record.line }));
    // Employees first, so that every dependent's row knows what its employee's row decided.
    const employeeRows = read.filter((entry) => entry.row === undefined || entry.row.relationship === 'employee');
    const dependentRows = read.filter((entry) => entry.row !== undefined && entry.row.relationship !== 'employee');
    for (const batch of batches(employeeRows, CHECK_BATCH)) await this.#store(batch, await this.#checkEmployees(batch));
    for (const batch of batches(dependentRows, CHECK_BATCH)) await this.#store(batch, await this.#checkDependents(batch));
    await this.#finish();
  }

  async #store(batch: readonly { position: number; line: number }[], outcomes: Outcome[]): Promise<void> {
    const createdAt = this.#import.created_at;
    const rows: CensusResultRow[] = batch.map((entry, index) => {
      const outcome = outcomes[index]!;
      this.#summary[outcome.kind] += 1;
      this.#summary.warnings += outcome.warnings.length;
      if (outcome.terminates) this.#summary.terminations += 1;
      const record = this.#records[entry.position]!;
      return {
        id: resultId(this.#import.id, entry.position),
        census_import_id: this.#import.id,
        position: entry.position,
        line: entry.line,
        kind: outcome.kind,
        target: outcome.target,
        employee_id: record.cells.employee_id?.trim().slice(0, 255) || null,
        relationship: record.cells.relationship?.trim().toLowerCase().slice(0, 64) || null,
        member_id: outcome.memberId,
        dependent_id: outcome.dependentId,
        changes: JSON.stringify(outcome.changes),
        input: JSON.stringify(outcome.input),
        ssn_encrypted: outcome.ssn === null ? null : this.#encrypter.encrypt(outcome.ssn),
        problems: JSON.stringify({ errors: outcome.errors, warnings: outcome.warnings }),
        terminates: outcome.terminates ? 1 : 0,
        seen_version: outcome.seenVersion,
        outcome: null,
        outcome_message: null,
        applied_at: null,
        created_at: createdAt,
      };
    });
    this.#processed += rows.length;
    await this.#db.transaction().execute(async (trx) => {
      await repository.insertCensusResults(trx, rows);
      await repository.updateCensusImport(trx, this.#import.id, { processed_rows: this.#processed });
    });
    this.#onProgress?.(this.#processed, this.#records.length);
    // On SQLite every statement answers at once, so the check would never let the server answer anything else
    // (GET of its own progress included) until it ended: it yields after each batch.
    await setImmediate();
  }

  /** Business unit and subclass names or ids as the employer's ids; an unknown one is a problem of its column. */
  #resolveUnits(row: CensusFileRow, errors: CensusProblem[]): CensusValues {
    const values = { ...row.values };
    if (values.business_unit !== undefined) {
      const id = this.#units.businessUnits.get(values.business_unit);
      if (id === undefined) errors.push({ line: row.line, column: 'business_unit', message: 'No business unit of the employer has this id or legal name.' });
      else values.business_unit = id;
    }
    if (values.subclasses !== undefined) {
      const ids = values.subclasses.map((name) => this.#units.subclasses.get(name));
      const unknown = values.subclasses.filter((_, index) => ids[index] === undefined);
      if (unknown.length > 0)
        errors.push({ line: row.line, column: 'subclass', message: `No subclass of the employer has the id or name ${unknown.join(', ')}.` });
      else values.subclasses = [...new Set(ids as string[])];
    }
    return values;
  }

  async #checkEmployees(batch: readonly { row?: CensusFileRow; problems: CensusProblem[]; line: number }[]): Promise<Outcome[]> {
    const rows = batch.flatMap((entry) => (entry.row ? [entry.row] : []));
    const digestOf = new Map(rows.flatMap((row) => (row.values.ssn === undefined ? [] : [[row.line, this.#ssnDigester.digest(row.values.ssn)] as const])));
    const byPayrollId = new Map(
      (
        await repository.findMembersOfEmployerBy(
          this.#db,
          this.#import,
          'payroll_provider_external_id',
          rows.map((row) => row.employeeId),
        )
      ).map((m) => [m.payroll_provider_external_id!, m]),
    );
    const byDigest = new Map(
      (await repository.findMembersOfEmployerBy(this.#db, this.#import, 'ssn_digest', [...digestOf.values()])).map((m) => [m.ssn_digest!, m]),
    );
    const memberIds = [...new Set([...byPayrollId.values(), ...byDigest.values()].map((member) => member.id))];
    const covered = await repository.findMembersWithCoverage(this.#db, memberIds);
    const subclasses = await repository.findSubclassIdsOfMembers(this.#db, memberIds);
    const membersById = new Map([...byPayrollId.values(), ...byDigest.values()].map((member) => [member.id, member]));
    return batch.map((entry) => {
      if (!entry.row) return errorOutcome('member', entry.problems);
      const row = entry.row;
      const errors: CensusProblem[] = [];
      const fail = (column: string, message: string) => {
        this.#employees.set(row.employeeId, this.#employees.get(row.employeeId) ?? { line: row.line, memberId: null, failed: true });
        return errorOutcome('member', [{ line: row.line, column, message }]);
      };
      const earlier = this.#employees.get(row.employeeId);
      if (earlier)
        return errorOutcome('member', [
          { line: row.line, column: 'employee_id', message: `Line ${earlier.line} has this employee_id already: one row per employee.` },
        ]);
      const digest = digestOf.get(row.line);
      const sameSsnLine = digest === undefined ? undefined : this.#employeeSsns.get(digest);
      if (sameSsnLine !== undefined) return fail('ssn', `Line ${sameSsnLine} has this SSN already: one row per employee.`);
      if (digest !== undefined) this.#employeeSsns.set(digest, row.line);
      const values = this.#resolveUnits(row, errors);
      if (errors.length > 0) {
        this.#employees.set(row.employeeId, { line: row.line, memberId: null, failed: true });
        return errorOutcome('member', errors);
      }
      const match = matchEmployee(row.employeeId, toRef(byPayrollId.get(row.employeeId)), toRef(digest === undefined ? undefined : byDigest.get(digest)));
      if (match.kind === 'conflict') return fail(match.column, match.message);
      if (match.kind === 'new') {
        const lacking = MEMBER_REQUIRED.filter((field) => values[field] === undefined);
        if (lacking.length > 0)
          return fail(
            columnOf(lacking[0]!),
            `Required to create a member (employee_id ${row.employeeId} is not one yet): ${lacking.map(columnOf).join(', ')}.`,
          );
        this.#employees.set(row.employeeId, { line: row.line, memberId: null, failed: false });
        const { ssn, annual_pay: _annualPay, middle_name: _middleName, ...fields } = values;
        const input = { ...fields, payroll_provider_external_id: row.employeeId };
        return {
          ...errorOutcome('member', []),
          kind: 'create',
          changes: Object.entries(values)
            .filter(([field]) => field !== 'annual_pay' && field !== 'middle_name')
            .map(([field, value]): FieldChange => (field === 'ssn' ? { field, old: null, new: 'changed' } : { field, old: null, new: value as unknown })),
          input,
          ssn: ssn ?? null,
          warnings: rowWarnings({ line: row.line, changes: [], values, hasCoverage: false, today: this.#today, target: 'member' }),
        };
      }
      const member = membersById.get(match.memberId)!;
      const matchedAt = this.#matchedMembers.get(member.id);
      if (matchedAt !== undefined) return fail('employee_id', `Line ${matchedAt} is the same member (${member.id}): one row per employee.`);
      this.#matchedMembers.set(member.id, row.line);
      this.#employees.set(row.employeeId, { line: row.line, memberId: member.id, failed: false });
      const ssnChanged = digest !== undefined && digest !== member.ssn_digest;
      const changes = fieldChanges(memberFields(member, subclasses.get(member.id) ?? []), values, ssnChanged);
      if (member.payroll_provider_external_id === null) changes.push({ field: 'payroll_provider_external_id', old: null, new: row.employeeId });
      const warnings = rowWarnings({ line: row.line, changes, values, hasCoverage: covered.has(member.id), today: this.#today, target: 'member' });
      const input = Object.fromEntries(changes.filter((change) => change.field !== 'ssn').map((change) => [change.field, change.new]));
      // A reason given again with an unchanged date is sent with it, so that the member keeps the date and gets the reason.
      if (input.termination_reason !== undefined && input.termination_date === undefined) input.termination_date = member.termination_date;
      return {
        kind: changes.length === 0 ? 'unchanged' : 'update',
        target: 'member',
        memberId: member.id,
        dependentId: null,
        changes,
        input,
        ssn: ssnChanged ? values.ssn! : null,
        errors: [],
        warnings,
        terminates: member.termination_date === null && values.termination_date !== undefined,
        seenVersion: recordVersion(member),
      };
    });
  }

  async #checkDependents(batch: readonly { row?: CensusFileRow; problems: CensusProblem[]; line: number }[]): Promise<Outcome[]> {
    const rows = batch.map((entry) => entry.row!);
    const outside = rows.filter((row) => !this.#employees.has(row.employeeId)).map((row) => row.employeeId);
    const outsideMembers = new Map(
      (await repository.findMembersOfEmployerBy(this.#db, this.#import, 'payroll_provider_external_id', outside)).map((m) => [
        m.payroll_provider_external_id!,
        m.id,
      ]),
    );
    const memberOf = (row: CensusFileRow) => this.#employees.get(row.employeeId)?.memberId ?? outsideMembers.get(row.employeeId) ?? null;
    const dependents = Map.groupBy(
      await repository.findDependentsOfMembers(
        this.#db,
        rows.flatMap((row) => memberOf(row) ?? []),
      ),
      (dependent) => dependent.member_id,
    );
    const covered = await repository.findDependentsWithCoverage(
      this.#db,
      [...dependents.values()].flat().map((dependent) => dependent.id),
    );
    return batch.map((entry) => {
      const row = entry.row!;
      const fail = (column: string, message: string) => errorOutcome('dependent', [{ line: row.line, column, message }]);
      const employee = this.#employees.get(row.employeeId);
      if (employee?.failed) return fail('employee_id', `The employee's row (line ${employee.line}) cannot be applied: fix it first.`);
      const memberId = memberOf(row);
      if (employee === undefined && memberId === null) {
        return fail('employee_id', `employee_id ${row.employeeId} is neither an employee row of this file nor a member of the employer.`);
      }
      const { ssn, ...given } = row.values;
      const values: CensusValues = { ...given, ...(ssn === undefined ? {} : { ssn }) };
      const ignored = EMPLOYEE_ONLY_FIELDS.filter((field) => values[field] !== undefined);
      for (const field of ignored) delete values[field];
      const notApplied: CensusWarning[] = ignored.map((field) => ({
        line: row.line,
        column: columnOf(field),
        code: 'not_applied',
        message: `${columnOf(field)} is the employee's: not applied to a dependent.`,
      }));
      const candidates = memberId === null ? [] : (dependents.get(memberId) ?? []);
      const found = matchDependent(
        candidates.map((d) => ({ id: d.id, firstName: d.first_name, dob: d.dob, ssnLastFour: d.ssn_last_four })),
        { firstName: values.first_name, dob: values.dob, ssn },
        (dependent, wanted) => this.#storedSsnOf(candidates, dependent.id) === wanted,
      );
      const key = `${row.employeeId}\u0000${found ? found.id : ssn !== undefined ? `ssn:${this.#ssnDigester.digest(ssn)}` : `${nameKey(values.first_name ?? '')}:${values.dob ?? ''}`}`;
      const sameLine = this.#dependentKeys.get(key);
      if (sameLine !== undefined)
        return fail(found ? 'first_name' : ssn !== undefined ? 'ssn' : 'first_name', `Line ${sameLine} is the same dependent: one row per person.`);
      this.#dependentKeys.set(key, row.line);
      const fields: Record<string, unknown> = { ...values, member_relationship: row.relationship };
      delete fields.ssn;
      if (!found) {
        const lacking = DEPENDENT_REQUIRED.filter((field) => values[field] === undefined);
        if (lacking.length > 0) return fail(lacking[0]!, `Required to add a dependent (no dependent of the member matches): ${lacking.join(', ')}.`);
        return {
          ...errorOutcome('dependent', [], memberId),
          kind: 'create',
          changes: Object.entries({ ...fields, ...(ssn === undefined ? {} : { ssn: 'changed' }) }).map(([field, value]) => ({ field, old: null, new: value })),
          input: fields,
          ssn: ssn ?? null,
          warnings: [...rowWarnings({ line: row.line, changes: [], values, hasCoverage: false, today: this.#today, target: 'dependent' }), ...notApplied],
        };
      }
      const current = candidates.find((dependent) => dependent.id === found.id)!;
      const ssnChanged = ssn !== undefined && this.#storedSsnOf(candidates, current.id) !== ssn;
      const changes = fieldChanges(dependentFields(current), { ...values, member_relationship: row.relationship } as CensusValues, ssnChanged);
      const input = Object.fromEntries(changes.filter((change) => change.field !== 'ssn').map((change) => [change.field, change.new]));
      return {
        kind: changes.length === 0 ? 'unchanged' : 'update',
        target: 'dependent',
        memberId,
        dependentId: current.id,
        changes,
        input,
        ssn: ssnChanged ? ssn : null,
        errors: [],
        warnings: [
          ...rowWarnings({ line: row.line, changes, values, hasCoverage: covered.has(current.id), today: this.#today, target: 'dependent' }),
          ...notApplied,
        ],
        terminates: false,
        seenVersion: recordVersion(current),
      };
    });
  }

  /** The one dependent's stored SSN (decrypted only when its last four already match: matchDependent), or null. */
  #storedSsnOf(dependents: readonly DependentRow[], id: string): string | null {
    const stored = dependents.find((dependent) => dependent.id === id)?.ssn_encrypted ?? null;
    return stored === null ? null : this.#encrypter.decrypt(stored);
  }

  /** The employed members the file left out (listed, never terminated), the summary, and the status. */
  async #finish(): Promise<void> {
    const employed = await repository.findEmployedMembers(this.#db, this.#import.employer_id, this.#today);
    const matched = new Set(this.#matchedMembers.keys());
    const missing = employed.filter((member) => !matched.has(member.id));
    const base = this.#records.length;
    const rows: CensusResultRow[] = missing.map((member, index) => ({
      id: resultId(this.#import.id, base + index),
      census_import_id: this.#import.id,
      position: base + index,
      line: null,
      kind: 'missing',
      target: 'member',
      employee_id: member.payroll_provider_external_id,
      relationship: 'employee',
      member_id: member.id,
      dependent_id: null,
      changes: '[]',
      input: '{}',
      ssn_encrypted: null,
      problems: JSON.stringify({ errors: [], warnings: [] }),
      terminates: 0,
      seen_version: null,
      outcome: null,
      outcome_message: null,
      applied_at: null,
      created_at: this.#import.created_at,
    }));
    const summary: CensusImportSummary = {
      ...this.#summary,
      missing: rows.length,
      employed_members: employed.length,
      needs_termination_confirmation: needsTerminationConfirmation(this.#summary.terminations, employed.length, this.#import.max_termination_share),
    };
    await this.#db.transaction().execute(async (trx) => {
      await repository.insertCensusResults(trx, rows);
      await repository.updateCensusImport(trx, this.#import.id, {
        status: 'checked',
        summary: JSON.stringify(summary),
        content_encrypted: null,
        checked_at: this.#clock.now().toISOString(),
      });
    });
  }
}
