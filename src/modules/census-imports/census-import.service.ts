import type { Kysely } from 'kysely';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import type { CensusApply } from './census-apply.ts';
import type { CensusCheck } from './census-check.ts';
import { EMPTY_SUMMARY, readCensusContent, type CensusContent, type CensusImportSummary, type CensusProgress } from './census-outcomes.ts';
import * as repository from './census-import.repository.ts';
import type { CensusImportResponse, CensusImportRowResponse } from './census-import.schemas.ts';
import type { CensusImportRow, CensusResultRow, CensusRowKind, CensusRowOutcome } from './census-import.table.ts';
import type { CensusProblem } from './census-row-reader.ts';
import { DEFAULT_MAX_TERMINATION_SHARE, type CensusWarning } from './census-rules.ts';

/** The job that checks an import in the background. */
export const CENSUS_CHECK_JOB = 'census_import.check';
/** Files up to this many rows are checked before POST answers (the job then finds them checked). */
export const INLINE_CHECK_ROWS = 1_000;
const INLINE_JOB_DELAY_MS = 60_000;
/**
 * When the caller checks the file itself whatever its size (`benefits census import`), its job waits this long: a
 * server's worker would otherwise check the same import beside it. It runs the check only if the caller stopped.
 */
const CALLER_CHECK_JOB_DELAY_MS = 15 * 60_000;

/** What `benefits census import` prints of an import: the first rows of each kind of problem, and the apply's outcomes. */
export interface CensusImportReview {
  census_import: CensusImportResponse;
  /** The first error rows, in file order. */
  errors: CensusImportRowResponse[];
  /** The first rows with a warning, in file order. */
  warnings: CensusImportRowResponse[];
  outcomes: Record<CensusRowOutcome, number>;
  /** The first rows the apply did not apply (conflict or failed), in file order. */
  not_applied: CensusImportRowResponse[];
}

export function toCensusImportResponse(row: CensusImportRow): CensusImportResponse {
  return {
    id: row.id,
    object: 'census_import',
    employer: row.employer_id,
    status: row.status,
    format: row.format,
    total_rows: row.total_rows,
    processed_rows: row.processed_rows,
    applied_rows: row.applied_rows,
    max_termination_share: row.max_termination_share,
    summary: JSON.parse(row.summary) as CensusImportSummary,
    failure: row.failure,
    created_at: row.created_at,
    checked_at: row.checked_at,
    applied_at: row.applied_at,
  };
}

export function toCensusImportRowResponse(row: CensusResultRow): CensusImportRowResponse {
  const problems = JSON.parse(row.problems) as { errors: CensusProblem[]; warnings: CensusWarning[] };
  return {
    id: row.id,
    object: 'census_import_row',
    kind: row.kind,
    line: row.line,
    target: row.target,
    employee_id: row.employee_id,
    relationship: row.relationship,
    member: row.member_id,
    dependent: row.dependent_id,
    changes: JSON.parse(row.changes) as CensusImportRowResponse['changes'],
    errors: problems.errors,
    warnings: problems.warnings,
    outcome: row.outcome,
    outcome_message: row.outcome_message,
    applied_at: row.applied_at,
    created_at: row.created_at,
  };
}

/**
 * Census imports (docs/decisions.md "Census imports"): an employer's roster uploaded as a dry run (stored, checked
 * in the background: census-check.ts), reviewed through GET, then applied (census-apply.ts).
 */
export class CensusImportService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #check: CensusCheck;
  readonly #apply: CensusApply;

  constructor(options: { db: Kysely<Database>; clock: Clock; encrypter: Encrypter; check: CensusCheck; apply: CensusApply }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#encrypter = options.encrypter;
    this.#check = options.check;
    this.#apply = options.apply;
  }

  /**
   * Stores the file (encrypted: it holds SSNs) and queues its check; a file that is not a census at all (no
   * header, an unknown column, too many rows) is a 400 with nothing stored. A small file is checked before this
   * returns; with `checkHere`, any file is (its progress told to `onProgress`), the job left as a safety net.
   */
  async createImport(
    scope: Scope,
    employerId: string,
    content: CensusContent,
    maxShare: number | undefined,
    checkHere?: { onProgress?: CensusProgress },
  ): Promise<CensusImportResponse> {
    // Read here for its 400s and its size only (the check reads the stored file again): not kept while the check runs.
    const totalRows = readCensusContent(content).length;
    const inline = checkHere !== undefined || totalRows <= INLINE_CHECK_ROWS;
    const row: CensusImportRow = {
      id: newId('census_import'),
      provider_id: scope.providerId,
      employer_id: employerId,
      status: 'checking',
      format: content.format,
      total_rows: totalRows,
      processed_rows: 0,
      applied_rows: 0,
      max_termination_share: maxShare ?? DEFAULT_MAX_TERMINATION_SHARE,
      content_encrypted: this.#encrypter.encrypt(JSON.stringify(content)),
      summary: JSON.stringify(EMPTY_SUMMARY),
      failure: null,
      created_at: this.#clock.now().toISOString(),
      checked_at: null,
      applied_at: null,
    };
    await this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { employer: employerId });
      await repository.insertCensusImport(trx, row);
      // A small file is checked here; its job waits a minute, and then finds it checked (or checks it if this process stopped).
      const delay = checkHere ? CALLER_CHECK_JOB_DELAY_MS : INLINE_JOB_DELAY_MS;
      const runAt = inline ? new Date(this.#clock.now().getTime() + delay) : undefined;
      await enqueueJob(trx, this.#clock, { kind: CENSUS_CHECK_JOB, payload: { census_import: row.id }, ...(runAt ? { runAt } : {}) });
    });
    if (inline) await this.#check.check(row.id, checkHere?.onProgress);
    return this.getImport(scope, row.id);
  }

  async getImport(scope: Scope, id: string): Promise<CensusImportResponse> {
    return toCensusImportResponse(await this.#getOrFail(scope, id));
  }

  async listRows(scope: Scope, id: string, kind: CensusRowKind | undefined, page: PageRequest): Promise<Page<CensusImportRowResponse>> {
    const found = await this.#getOrFail(scope, id);
    const rows = await repository.listCensusResults(this.#db, found.id, kind, page);
    return { ...rows, results: rows.results.map(toCensusImportRowResponse) };
  }

  /** Applies the reviewed diff (census-apply.ts); an applied import answers as it is. */
  async applyImport(scope: Scope, id: string, confirmTerminations: boolean, onProgress?: CensusProgress): Promise<CensusImportResponse> {
    await this.#apply.apply(scope, await this.#getOrFail(scope, id), confirmTerminations, onProgress);
    return this.getImport(scope, id);
  }

  /** The import with its first `limit` errors, warnings and rows not applied, and the apply's outcomes counted. */
  async reviewImport(scope: Scope, id: string, limit: number): Promise<CensusImportReview> {
    const found = await this.#getOrFail(scope, id);
    const [errors, warnings, outcomes, notApplied] = [
      await repository.findResultsBy(this.#db, found.id, { kind: 'error' }, limit),
      await repository.findResultsWithWarnings(this.#db, found.id, limit),
      await repository.countResultOutcomes(this.#db, found.id),
      await repository.findResultsBy(this.#db, found.id, { outcomes: ['conflict', 'failed'] }, limit),
    ];
    return {
      census_import: toCensusImportResponse(found),
      errors: errors.map(toCensusImportRowResponse),
      warnings: warnings.map(toCensusImportRowResponse),
      outcomes,
      not_applied: notApplied.map(toCensusImportRowResponse),
    };
  }

  /**
   * The scope of a caller with the whole database at hand (`benefits census import`): the employer's own provider,
   * or `providerId` when given (then an employer of another provider is not found, as through the API).
   */
  async scopeOfEmployer(employerId: string, providerId: string | undefined): Promise<Scope> {
    const owner = await repository.findEmployerProviderId(this.#db, employerId);
    if (owner === undefined || (providerId !== undefined && owner !== providerId)) throw new NotFound('employer');
    return { providerId: owner, employerId: null };
  }

  /** As `scopeOfEmployer`, for an import by id (`benefits census apply`). */
  async scopeOfImport(id: string, providerId: string | undefined): Promise<Scope> {
    const found = await repository.findCensusImportForJob(this.#db, id);
    if (!found || (providerId !== undefined && found.provider_id !== providerId)) throw new NotFound('census import');
    return { providerId: found.provider_id, employerId: null };
  }

  async #getOrFail(scope: Scope, id: string): Promise<CensusImportRow> {
    const found = await repository.findCensusImportById(this.#db, scope, id);
    if (!found) throw new NotFound('census import');
    return found;
  }
}
