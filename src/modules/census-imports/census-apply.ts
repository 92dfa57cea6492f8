/**
 * The apply of a checked census import (docs/decisions.md "Census imports"): exactly the reviewed diff's create
 * and update rows, through the member and dependent services (the same checks, events, notifications and
 * effects on coverage as the API's), one transaction per batch. Each row records its outcome in its batch's
 * transaction, so a crash loses at most the batch in flight and a second apply goes on from there; an apply of
 * an applied import is a no-op. Lock order: the import's row, then the member (then what the services lock).
 */
import { setImmediate } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { AppError, InvalidState } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { lockMembersByIds } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { rememberReads } from '../../db/query-cache.ts';
import type { CreateDependentBody, UpdateDependentBody } from '../dependents/dependent.schemas.ts';
import type { CreateMemberBody, UpdateMemberBody } from '../members/member.schemas.ts';
import * as repository from './census-import.repository.ts';
import type { CensusImportRow, CensusResultRow, CensusRowOutcome } from './census-import.table.ts';
import { recordVersion } from './census-rules.ts';
import type { CensusImportSummary, CensusProgress } from './census-outcomes.ts';

/** Rows applied per transaction. */
export const APPLY_BATCH = 200;
/** Rows per page of the check, before the apply starts, that nothing changed since the dry run. */
const CHANGED_CHECK_PAGE = 1_000;

type ChangeResult = Awaited<ReturnType<typeof repository.findChangeResults>>[number];

/** The member and dependent services' writes in the caller's transaction (wired in services.ts). */
export interface CensusPeople {
  createMemberIn(trx: Transaction<Database>, scope: Scope, body: CreateMemberBody): Promise<{ id: string }>;
  /** `locked`: the member as the batch locked it (not read again). */
  updateMemberIn(trx: Transaction<Database>, scope: Scope, id: string, body: UpdateMemberBody, locked?: MemberRow): Promise<unknown>;
  /** `locked`: the member as the batch locked it (not read again); absent for a member the batch created. */
  createDependentIn(trx: Transaction<Database>, scope: Scope, body: CreateDependentBody, locked?: MemberRow): Promise<{ id: string }>;
  updateDependentIn(trx: Transaction<Database>, scope: Scope, id: string, body: UpdateDependentBody): Promise<unknown>;
}

/** A 409 of the apply: a record the diff changes was changed since the dry run (nothing was applied). */
export class CensusRecordChanged extends AppError {
  constructor(lines: readonly (number | null)[]) {
    const shown = lines.slice(0, 20).join(', ');
    super(
      'census_record_changed',
      `${lines.length} row(s) change a member or dependent that was changed since the dry run (file line(s) ${shown}${lines.length > 20 ? ', ...' : ''}): nothing was applied. Upload the file again for a new dry run.`,
    );
  }
}

/** A 409 of the apply: the file terminates more than the import's max_termination_share of the employed members. */
export class TerminationsNeedConfirmation extends AppError {
  constructor(summary: CensusImportSummary, share: number) {
    super(
      'confirmation_required',
      `This import terminates ${summary.terminations} of the employer's ${summary.employed_members} employed members, more than its max_termination_share (${share}): review the rows that set termination_date, then apply with { "confirm_terminations": true }.`,
    );
  }
}

/** A row of a batch run without savepoints was refused by the services: the batch is undone, to run again with them. */
class RefusedRow extends Error {}

/** What a batch's rows need of the database, read once per batch (#batchFacts). */
interface BatchFacts {
  /** The employer's members by employee id (those the batch's rows name), and those its create rows made. */
  byEmployeeId: Map<string, string>;
  /** The members the batch's rows change or add dependents to, locked, as they were at the batch's start. */
  members: Map<string, MemberRow>;
  /** Members the batch created (in this transaction: no lock to take). */
  created: Set<string>;
  /** The dependents the batch's rows update. */
  dependents: Map<string, DependentRow>;
}

interface RowResult {
  outcome: CensusRowOutcome;
  message: string | null;
  memberId: string | null;
  dependentId: string | null;
}

export class CensusApply {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #people: CensusPeople;

  constructor(options: { db: Kysely<Database>; clock: Clock; encrypter: Encrypter; people: CensusPeople }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#encrypter = options.encrypter;
    this.#people = options.people;
  }

  /**
   * Applies the import (status checked or applying) to the end. Refused, with nothing written: terminations
   * above the share without `confirmTerminations`, and any record changed since the dry run (checked here
   * first, then again for each row under its member's lock: a row whose record changed in between is skipped,
   * outcome conflict). `onProgress` is told the rows done (of the create and update rows) after each batch.
   */
  async apply(scope: Scope, found: CensusImportRow, confirmTerminations: boolean, onProgress?: CensusProgress): Promise<void> {
    if (found.status === 'applied') return;
    if (found.status === 'checking') throw new InvalidState('The import is still being checked: apply it once its status is checked.');
    if (found.status === 'failed') throw new InvalidState('The import failed its check (see failure): upload a corrected file.');
    const summary = JSON.parse(found.summary) as CensusImportSummary;
    if (summary.needs_termination_confirmation && !confirmTerminations) throw new TerminationsNeedConfirmation(summary, found.max_termination_share);
    if (found.status === 'checked') {
      const changed = await this.#changedSinceCheck(found);
      if (changed.length > 0) throw new CensusRecordChanged(changed);
      await repository.moveCensusImportStatus(this.#db, found.id, ['checked'], 'applying');
    }
    const total = summary.create + summary.update;
    let done = onProgress ? await repository.countAppliedResults(this.#db, found.id) : 0;
    for (;;) {
      // A batch runs without a savepoint per row; when the services refuse one of its rows, it is undone and run
      // again with them, so that the refused row alone is undone (#applyRow).
      let finished: true | number;
      try {
        finished = await this.#applyBatch(scope, found.id, false);
      } catch (error) {
        if (!(error instanceof RefusedRow)) throw error;
        finished = await this.#applyBatch(scope, found.id, true);
      }
      if (finished === true) return;
      done += finished;
      onProgress?.(done, total);
      // Lets the server answer other requests between batches (on SQLite nothing else would run until the end).
      await setImmediate();
    }
  }

  /** One batch in one transaction: true when the import is applied (or no longer applying), else the count of rows it settled. */
  async #applyBatch(scope: Scope, importId: string, guarded: boolean): Promise<true | number> {
    return this.#db.transaction().execute(async (trx): Promise<true | number> => {
      const current = await repository.lockCensusImport(trx, importId);
      if (!current || current.status !== 'applying') return true;
      const rows = await repository.findUnappliedResults(trx, importId, APPLY_BATCH);
      if (rows.length === 0) {
        await repository.updateCensusImport(trx, importId, { status: 'applied', applied_at: this.#clock.now().toISOString() });
        return true;
      }
      // The batch writes no plans, configurations, groups or webhook endpoints: their reads are answered once per batch.
      rememberReads(trx);
      const facts = await this.#batchFacts(trx, scope, current, rows);
      let applied = 0;
      const settled: CensusResultRow[] = [];
      for (const row of rows) {
        const result = guarded ? await this.#applyRow(trx, scope, current, row, facts) : await this.#applyRowUnguarded(trx, scope, current, row, facts);
        if (result.outcome === 'applied') applied += 1;
        settled.push({
          ...row,
          outcome: result.outcome,
          outcome_message: result.message,
          applied_at: this.#clock.now().toISOString(),
          member_id: result.memberId,
          dependent_id: result.dependentId,
        });
      }
      await repository.markCensusResults(trx, settled);
      await repository.updateCensusImport(trx, importId, { applied_rows: current.applied_rows + applied });
      return rows.length;
    });
  }

  /**
   * What the batch's rows need, read once for the batch: the members the file's employee ids name (a create
   * row's conflict, a dependent's member created by an earlier batch), then the members the rows change or add
   * dependents to, locked together in id order (after the import's row: the lock order), and the dependents
   * the rows update.
   */
  async #batchFacts(trx: Transaction<Database>, scope: Scope, current: CensusImportRow, rows: readonly CensusResultRow[]): Promise<BatchFacts> {
    const byEmployeeId = new Map(
      (
        await repository.findMembersOfEmployerBy(
          trx,
          current,
          'payroll_provider_external_id',
          rows.flatMap((row) =>
            row.employee_id !== null && (row.target === 'member' ? row.kind === 'create' : row.member_id === null) ? [row.employee_id] : [],
          ),
        )
      ).map((member) => [member.payroll_provider_external_id!, member.id]),
    );
    const memberIds = rows.flatMap((row) => {
      if (row.target === 'member') return row.kind === 'update' && row.member_id !== null ? [row.member_id] : [];
      const memberId = row.member_id ?? (row.employee_id === null ? undefined : byEmployeeId.get(row.employee_id));
      return memberId === undefined ? [] : [memberId];
    });
    const members = new Map([...(await lockMembersByIds(trx, memberIds))].filter(([, member]) => member.provider_id === scope.providerId));
    const dependents = new Map(
      (
        await repository.findDependentsByIds(
          trx,
          rows.flatMap((row) => (row.target === 'dependent' && row.kind === 'update' && row.dependent_id !== null ? [row.dependent_id] : [])),
        )
      ).map((dependent) => [dependent.id, dependent]),
    );
    return { byEmployeeId, members, created: new Set(), dependents };
  }

  /** The lines of create and update rows whose record is no longer as the dry run saw it. */
  async #changedSinceCheck(found: CensusImportRow): Promise<(number | null)[]> {
    const changed: (number | null)[] = [];
    // A page at a time: the rows of a large file and their records are never all held at once.
    let after = -1;
    for (;;) {
      const rows = await repository.findChangeResults(this.#db, found.id, after, CHANGED_CHECK_PAGE);
      if (rows.length === 0) return changed;
      after = rows.at(-1)!.position;
      changed.push(...(await this.#changedOf(found, rows)));
    }
  }

  /** The lines of one page of create and update rows whose record is no longer as the dry run saw it. */
  async #changedOf(found: CensusImportRow, rows: readonly ChangeResult[]): Promise<(number | null)[]> {
    const members = new Map(
      (
        await repository.findMembersByIds(
          this.#db,
          rows.flatMap((row) => (row.target === 'member' && row.member_id !== null ? [row.member_id] : [])),
        )
      ).map((member) => [member.id, member]),
    );
    const createdIds = new Set(
      (
        await repository.findMembersOfEmployerBy(
          this.#db,
          found,
          'payroll_provider_external_id',
          rows.flatMap((row) => (row.target === 'member' && row.kind === 'create' && row.employee_id !== null ? [row.employee_id] : [])),
        )
      ).map((member) => member.payroll_provider_external_id),
    );
    const dependents = new Map(
      (
        await repository.findDependentsOfMembers(
          this.#db,
          rows.flatMap((row) => (row.target === 'dependent' && row.member_id !== null ? [row.member_id] : [])),
        )
      ).map((d) => [d.id, d]),
    );
    const changed: (number | null)[] = [];
    for (const row of rows) {
      if (row.kind === 'create') {
        if (row.target === 'member' && createdIds.has(row.employee_id)) changed.push(row.line);
        continue;
      }
      const record = row.target === 'member' ? members.get(row.member_id ?? '') : dependents.get(row.dependent_id ?? '');
      if (!record || recordVersion(record) !== row.seen_version) changed.push(row.line);
    }
    return changed;
  }

  /**
   * One row without a savepoint: a row not applied (conflict, no member) has written nothing, and a refusal by
   * the services (a 4xx) ends the batch (RefusedRow), which is then run again with #applyRow.
   */
  async #applyRowUnguarded(trx: Transaction<Database>, scope: Scope, current: CensusImportRow, row: CensusResultRow, facts: BatchFacts): Promise<RowResult> {
    try {
      return await this.#write(trx, scope, current, row, facts);
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      throw new RefusedRow();
    }
  }

  /** One row in a savepoint: a refusal by the services (a 4xx) undoes the row alone and is recorded as its outcome. */
  async #applyRow(trx: Transaction<Database>, scope: Scope, current: CensusImportRow, row: CensusResultRow, facts: BatchFacts): Promise<RowResult> {
    await sql`savepoint census_row`.execute(trx);
    try {
      const result = await this.#write(trx, scope, current, row, facts);
      if (result.outcome === 'applied') await sql`release savepoint census_row`.execute(trx);
      else {
        await sql`rollback to savepoint census_row`.execute(trx);
        await sql`release savepoint census_row`.execute(trx);
      }
      return result;
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      await sql`rollback to savepoint census_row`.execute(trx);
      await sql`release savepoint census_row`.execute(trx);
      const detail = error.inputErrors?.map((e) => `${e.field}: ${e.message}`).join('; ');
      return { outcome: 'failed', message: detail ? `${error.message} (${detail})` : error.message, memberId: row.member_id, dependentId: row.dependent_id };
    }
  }

  async #write(trx: Transaction<Database>, scope: Scope, current: CensusImportRow, row: CensusResultRow, facts: BatchFacts): Promise<RowResult> {
    const input = JSON.parse(row.input) as Record<string, unknown>;
    if (row.ssn_encrypted !== null) input.ssn = this.#encrypter.decrypt(row.ssn_encrypted);
    const conflict = (message: string): RowResult => ({ outcome: 'conflict', message, memberId: row.member_id, dependentId: row.dependent_id });
    const applied = (memberId: string | null, dependentId: string | null): RowResult => ({ outcome: 'applied', message: null, memberId, dependentId });
    if (row.target === 'member') {
      if (row.kind === 'create') {
        if (facts.byEmployeeId.has(row.employee_id ?? '')) return conflict(`A member with employee_id ${row.employee_id ?? ''} was created since the dry run.`);
        const created = await this.#people.createMemberIn(trx, scope, { ...(input as Omit<CreateMemberBody, 'employer'>), employer: current.employer_id });
        // The batch's dependent rows of this employee find their member here.
        if (row.employee_id !== null) facts.byEmployeeId.set(row.employee_id, created.id);
        facts.created.add(created.id);
        return applied(created.id, null);
      }
      const member = facts.members.get(row.member_id!);
      if (!member || recordVersion(member) !== row.seen_version) return conflict('The member was changed since the dry run: not applied.');
      await this.#people.updateMemberIn(trx, scope, member.id, input, member);
      return applied(member.id, null);
    }
    const memberId = row.member_id ?? facts.byEmployeeId.get(row.employee_id ?? '') ?? null;
    if (memberId === null)
      return { outcome: 'failed', message: "The employee's row was not applied, so the dependent has no member.", memberId: null, dependentId: null };
    // Locked with the batch (or created by it).
    if (!facts.members.has(memberId) && !facts.created.has(memberId)) return conflict('The member was deleted since the dry run.');
    if (row.kind === 'create') {
      const created = await this.#people.createDependentIn(
        trx,
        scope,
        { ...(input as Omit<CreateDependentBody, 'member'>), member: memberId },
        facts.members.get(memberId),
      );
      return applied(memberId, created.id);
    }
    const dependent = facts.dependents.get(row.dependent_id!);
    if (!dependent || recordVersion(dependent) !== row.seen_version) return conflict('The dependent was changed since the dry run: not applied.');
    await this.#people.updateDependentIn(trx, scope, dependent.id, input);
    return applied(memberId, dependent.id);
  }
}
