/**
 * A carrier's census as CSV (docs/decisions.md "Carrier files"): one row per person per line of coverage the
 * carrier holds. Parsed by csv-parse as hostile input: a file that is not such a CSV is a 400 on `content`; a
 * row that cannot be read is reported with its line and column and left out, never a 500.
 */
import { parse } from 'csv-parse/sync';
import { isCalendarDate } from '../../shared/dates.ts';
import { inputError, ValidationFailed } from '../../shared/errors.ts';
import { COVERAGE_TIERS, DEPENDENT_RELATIONSHIPS, type CoverageTier, type DependentRelationship } from '../plans/coverage-tier.ts';
import { LINES_OF_COVERAGE, type LineOfCoverage } from '../plans/plan.table.ts';

/** The columns, in any order; the first four are required. */
export const CENSUS_COLUMNS = [
  'subscriber_id',
  'relationship',
  'line_of_coverage',
  'plan',
  'first_name',
  'last_name',
  'dob',
  'coverage_level',
  'coverage_start',
  'coverage_end',
] as const;
const REQUIRED: readonly string[] = ['subscriber_id', 'relationship', 'line_of_coverage', 'plan'];

/** The most rows one file may hold (a census of 50,000 families on four lines is under 1,000,000 bytes a line short of this). */
export const MAX_CENSUS_ROWS = 200_000;

export type CensusRelationship = 'employee' | DependentRelationship;

/** One person on one line, as the carrier holds it; `line` is the file's line (the header is line 1). */
export interface CensusRow {
  line: number;
  subscriberId: string;
  relationship: CensusRelationship;
  lineOfCoverage: LineOfCoverage;
  /** The carrier's plan: our plan id or its plan name. */
  plan: string;
  firstName: string | null;
  lastName: string | null;
  dob: string | null;
  /** The tiers the carrier's coverage level stands for (an 834's ECH is one child or several), or null: not given. */
  coverageLevels: readonly CoverageTier[] | null;
  coverageStart: string | null;
  coverageEnd: string | null;
}

export interface RowProblem {
  line: number;
  column: string;
  message: string;
}

const blankToNull = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

/** Reads a census: its rows and the rows it could not read (each problem once per row, at its first column at fault). */
export function parseCensus(content: string): { rows: CensusRow[]; problems: RowProblem[] } {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // `info` gives each record's line in the file (blank lines skipped still count).
    records = parse(content, { bom: true, skip_empty_lines: true, relax_column_count: true, to: MAX_CENSUS_ROWS + 1, info: true }) as unknown as typeof records;
  } catch (error) {
    throw new ValidationFailed([inputError(['content'], `Not a CSV file: ${(error as Error).message.split('\n')[0]}`)]);
  }
  const header = (records[0]?.record ?? []).map((name) => name.trim().toLowerCase());
  const missing = REQUIRED.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    throw new ValidationFailed([inputError(['content'], `The header (line 1) lacks ${missing.join(', ')}; the columns are ${CENSUS_COLUMNS.join(', ')}.`)]);
  }
  const unknown = header.filter((name) => !(CENSUS_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new ValidationFailed([inputError(['content'], `Unknown column ${unknown[0]}; the columns are ${CENSUS_COLUMNS.join(', ')}.`)]);
  if (records.length > MAX_CENSUS_ROWS + 1) throw new ValidationFailed([inputError(['content'], `At most ${MAX_CENSUS_ROWS} rows in one file.`)]);
  const rows: CensusRow[] = [];
  const problems: RowProblem[] = [];
  for (const { record, info } of records.slice(1)) {
    const line = info.lines;
    const cell = (name: string) => blankToNull(record[header.indexOf(name)]);
    const problem = (column: string, message: string) => problems.push({ line, column, message });
    const subscriberId = cell('subscriber_id');
    const relationship = cell('relationship');
    const lineOfCoverage = cell('line_of_coverage');
    const plan = cell('plan');
    const dates = ['dob', 'coverage_start', 'coverage_end'].map((name) => [name, cell(name)] as const);
    const level = cell('coverage_level');
    const badDate = dates.find(([, value]) => value !== null && !isCalendarDate(value));
    // The first column at fault, in the order of the columns' list.
    const fault: [string, string] | undefined =
      subscriberId === null
        ? ['subscriber_id', 'Required.']
        : relationship === null || (relationship !== 'employee' && !(DEPENDENT_RELATIONSHIPS as readonly string[]).includes(relationship))
          ? ['relationship', `Must be employee or one of ${DEPENDENT_RELATIONSHIPS.join(', ')}.`]
          : lineOfCoverage === null || !(LINES_OF_COVERAGE as readonly string[]).includes(lineOfCoverage)
            ? ['line_of_coverage', `Must be one of ${LINES_OF_COVERAGE.join(', ')}.`]
            : plan === null
              ? ['plan', 'Required: our plan id or its plan name.']
              : badDate
                ? [badDate[0], 'Must be a calendar date, YYYY-MM-DD.']
                : level !== null && !(COVERAGE_TIERS as readonly string[]).includes(level)
                  ? ['coverage_level', `Must be one of ${COVERAGE_TIERS.join(', ')}.`]
                  : undefined;
    if (fault) {
      problem(...fault);
      continue;
    }
    const date = (name: string) => dates.find(([n]) => n === name)![1];
    rows.push({
      line,
      subscriberId: subscriberId!,
      relationship: relationship as CensusRelationship,
      lineOfCoverage: lineOfCoverage as LineOfCoverage,
      plan: plan!,
      firstName: cell('first_name'),
      lastName: cell('last_name'),
      dob: date('dob'),
      coverageLevels: level === null ? null : [level as CoverageTier],
      coverageStart: date('coverage_start'),
      coverageEnd: date('coverage_end'),
    });
  }
  return { rows, problems };
}
