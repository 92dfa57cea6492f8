/**
 * `benefits census import FILE --employer ID [--apply]` and `benefits census apply ID` (docs/decisions.md "Census
 * imports", "From the command line"): the API's dry run and apply, run in this process against DATABASE_URL
 * through the same service (`buildServices`; no Fastify), with a progress display on stderr and the diff's
 * summary on stdout.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Config } from '../config.ts';
import { describeDatabase } from '../db/database.ts';
import { ApiKeyService } from '../modules/api-keys/api-key.service.ts';
import { MAX_CENSUS_FILE_BYTES } from '../modules/census-imports/census-file.ts';
import type { CensusImportReview, CensusImportService } from '../modules/census-imports/census-import.service.ts';
import type { CensusImportRowResponse } from '../modules/census-imports/census-import.schemas.ts';
import { buildServices } from '../services.ts';
import { systemClock } from '../shared/clock.ts';
import { AppError } from '../shared/errors.ts';
import type { Scope } from '../shared/tenancy.ts';
import { openCheckedDatabase } from '../start/checked-database.ts';
import { progressOn, type ProgressStream } from '../start/progress.ts';
import { asStartError, openStartDatabase } from '../start/start-errors.ts';

type Output = (text: string) => void;

/**
 * Exit codes of the census commands: 0 every row checked (and applied) as it is; 1 refused or failed, nothing
 * applied (not a census file, no such employer, the check failed, the apply refused); 3 done, but rows were
 * skipped: rows in error (the rest is checked, or applied), or rows the apply could not apply. 2 (the command
 * line) is cli.ts's.
 */
export const CENSUS_EXIT = { done: 0, refused: 1, rowsSkipped: 3 } as const;

export interface CensusCommandIo {
  out: Output;
  /** Where the progress goes (stderr): a bar on a terminal, else a line per tenth. */
  progress: ProgressStream;
}

export interface CensusImportOptions {
  file: string;
  employer: string;
  /** A provider's name: the employer must be one of its; the employer's own provider when absent. */
  provider?: string | undefined;
  apply: boolean;
  confirmTerminations: boolean;
  maxTerminationShare?: number | undefined;
  /** How many errors, warnings and rows not applied to list (the summary counts them all). */
  show: number;
}

/** The file as text: at most the API's CSV body limit, and UTF-8 (csv-parse reads a byte order mark). */
export function readCensusFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new AppError('invalid_request', `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    if (!stat.isFile()) throw new AppError('invalid_request', `${path} is not a file`);
    if (size > MAX_CENSUS_FILE_BYTES) {
      throw new AppError(
        'payload_too_large',
        `${path} is ${size} bytes; a census file may be at most ${MAX_CENSUS_FILE_BYTES} bytes (48 MiB), as through the API`,
      );
    }
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const got = readSync(fd, bytes, read, size - read, read);
      if (got === 0) break;
      read += got;
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, read));
    } catch {
      throw new AppError('invalid_request', `${path} is not UTF-8 text: save the file as UTF-8 (CSV UTF-8) and try again`);
    }
  } finally {
    closeSync(fd);
  }
}

/** Opens DATABASE_URL with the start checks of `serve` (the key decrypts SSNs), builds the services, runs `work`. */
async function withCensusImports(config: Config, work: (imports: CensusImportService, providerIdOf: (name: string) => Promise<string>) => Promise<number>) {
  const description = describeDatabase(config.databaseUrl);
  const database = openStartDatabase(config.databaseUrl);
  try {
    const encryptionKey = await openCheckedDatabase(config, database, systemClock);
    const services = buildServices({ config, db: database.db, clock: systemClock, encryptionKey });
    const providerIdOf = async (name: string) => {
      const providers = await new ApiKeyService(database.db, systemClock).listProviders();
      const found = providers.find((provider) => provider.name === name);
      if (!found) throw new AppError('not_found', `no provider named "${name}" (providers: ${providers.map((p) => `"${p.name}"`).join(', ') || 'none'})`);
      return found.id;
    };
    return await work(services.censusImports, providerIdOf);
  } catch (error) {
    throw asStartError(error, description);
  } finally {
    await database.close();
  }
}

/** `benefits census import`: the dry run, checked here to the end; then, with `apply`, the apply. Returns the exit code. */
export async function censusImportCommand(config: Config, options: CensusImportOptions, io: CensusCommandIo): Promise<number> {
  const content = readCensusFile(options.file);
  return withCensusImports(config, async (imports, providerIdOf) => {
    const scope = await imports.scopeOfEmployer(options.employer, options.provider === undefined ? undefined : await providerIdOf(options.provider));
    const checking = progressOn(io.progress, 'Checking');
    let created;
    try {
      created = await imports.createImport(scope, options.employer, { format: 'csv', content }, options.maxTerminationShare, {
        onProgress: (done, total) => checking.update(done, total),
      });
    } catch (error) {
      // A file that is not a census at all: say which file, and why, on one line.
      if (error instanceof AppError && error.type === 'validation_error' && error.inputErrors) {
        throw new AppError('invalid_request', `${options.file}: ${error.inputErrors.map((e) => e.message).join(' ')}`);
      }
      throw error;
    } finally {
      checking.end();
    }
    const review = await imports.reviewImport(scope, created.id, options.show);
    printDryRun(io.out, review, options.show);
    if (review.census_import.status === 'failed') return CENSUS_EXIT.refused;
    if (!options.apply) {
      printHowToApply(io.out, review);
      return review.census_import.summary.error > 0 ? CENSUS_EXIT.rowsSkipped : CENSUS_EXIT.done;
    }
    return applyAndPrint(imports, scope, created.id, options, io);
  });
}

/** `benefits census apply ID`: applies an import reviewed before (as POST /census_imports/{id}/apply). */
export async function censusApplyCommand(
  config: Config,
  options: { id: string; provider?: string | undefined; confirmTerminations: boolean; show: number },
  io: CensusCommandIo,
): Promise<number> {
  return withCensusImports(config, async (imports, providerIdOf) => {
    const scope = await imports.scopeOfImport(options.id, options.provider === undefined ? undefined : await providerIdOf(options.provider));
    return applyAndPrint(imports, scope, options.id, options, io);
  });
}

async function applyAndPrint(
  imports: CensusImportService,
  scope: Scope,
  id: string,
  options: { confirmTerminations: boolean; show: number },
  io: CensusCommandIo,
): Promise<number> {
  const applying = progressOn(io.progress, 'Applying');
  try {
    await imports.applyImport(scope, id, options.confirmTerminations, (done, total) => applying.update(done, total));
  } catch (error) {
    if (error instanceof AppError && error.type === 'confirmation_required') {
      throw new AppError('confirmation_required', `${error.message} Nothing was applied. From here: benefits census apply ${id} --confirm-terminations`);
    }
    throw error;
  } finally {
    applying.end();
  }
  const review = await imports.reviewImport(scope, id, options.show);
  printApplied(io.out, review, options.show);
  const skipped = review.outcomes.conflict + review.outcomes.failed + review.census_import.summary.error;
  return skipped > 0 ? CENSUS_EXIT.rowsSkipped : CENSUS_EXIT.done;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function where(row: { line: number | null; column: string | null }): string {
  return `line ${row.line ?? '-'}${row.column ? `, ${row.column}` : ''}`;
}

/** A heading, the lines shown, and how many more there are and where to see them all. */
function listed(out: Output, heading: string, lines: readonly string[], more: number, seeAll: string): void {
  if (lines.length === 0) return;
  out(`${heading}:`);
  for (const line of lines) out(`  ${line}`);
  if (more > 0) out(`  ... ${count(more)} more: ${seeAll}`);
}

function printDryRun(out: Output, review: CensusImportReview, show: number): void {
  const found = review.census_import;
  const summary = found.summary;
  out(`Census import ${found.id} of employer ${found.employer}: ${found.status}, ${count(found.total_rows)} rows (dry run: nothing written to members).`);
  if (found.status === 'failed') {
    out(`The check failed: ${found.failure ?? 'no reason recorded'}`);
    return;
  }
  out(`  create      ${count(summary.create)}`);
  out(`  update      ${count(summary.update)}`);
  out(`  unchanged   ${count(summary.unchanged)}`);
  out(`  errors      ${count(summary.error)} (skipped by the apply)`);
  out(`  warnings    ${count(summary.warnings)}`);
  out(`  missing     ${count(summary.missing)} employed member(s) not in the file: listed, never terminated`);
  out(
    `  terminated  ${count(summary.terminations)} of ${count(summary.employed_members)} employed member(s) by termination_date${
      summary.needs_termination_confirmation ? `: more than ${found.max_termination_share} of them, the apply needs --confirm-terminations` : ''
    }`,
  );
  const rows = `GET /census_imports/${found.id}/rows`;
  const errors = review.errors.flatMap((row) => row.errors.map((problem) => `${where(problem)}: ${problem.message}`)).slice(0, show);
  listed(out, `Errors (${count(summary.error)} row(s))`, errors, summary.error - review.errors.length, `${rows}?kind=error`);
  const warnings = review.warnings.flatMap((row) => row.warnings.map((warning) => `${where(warning)}: ${warning.code}: ${warning.message}`)).slice(0, show);
  listed(out, `Warnings (${count(summary.warnings)})`, warnings, summary.warnings - warnings.length, `the rows' warnings, ${rows}`);
}

function printHowToApply(out: Output, review: CensusImportReview): void {
  const id = review.census_import.id;
  const confirm = review.census_import.summary.needs_termination_confirmation;
  out(`Review the rows: GET /census_imports/${id}/rows (?kind=create|update|unchanged|error|missing).`);
  out(
    `To apply this dry run: benefits census apply ${id}${confirm ? ' --confirm-terminations' : ''}, or POST /census_imports/${id}/apply${
      confirm ? ' with { "confirm_terminations": true }' : ''
    } (or run this command again with --apply: a new dry run, applied at once).`,
  );
}

function notApplied(row: CensusImportRowResponse): string {
  return `line ${row.line ?? '-'}: ${row.outcome ?? ''}: ${row.outcome_message ?? ''}`;
}

function printApplied(out: Output, review: CensusImportReview, show: number): void {
  const found = review.census_import;
  const { applied, conflict, failed } = review.outcomes;
  out(
    `Applied census import ${found.id}: ${count(applied)} row(s) applied, ${count(conflict)} skipped as changed since the dry run, ${count(failed)} refused; ${count(found.summary.error)} row(s) in error skipped; status ${found.status}.`,
  );
  const shown = review.not_applied.slice(0, show).map(notApplied);
  listed(
    out,
    `Not applied (${count(conflict + failed)} row(s))`,
    shown,
    conflict + failed - shown.length,
    `the rows' outcome, GET /census_imports/${found.id}/rows`,
  );
}
