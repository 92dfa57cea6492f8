/**
 * A carrier's premium bill as CSV (docs/decisions.md "Premium bills"): one line per member, month and (optionally)
 * line of coverage, read as hostile input. A file that is not CSV, lacks a column or holds a cell longer than a
 * record may be is a 400 on `content`; a line that cannot be read is a line error (file line, column, message)
 * and left out. Cells are never echoed (the member column may be an SSN) and never written anywhere.
 */
import { parse } from 'csv-parse/sync';
import { isCalendarDate } from '../../shared/dates.ts';
import { inputError, ValidationFailed } from '../../shared/errors.ts';
import { COVERAGE_TIERS, type CoverageTier } from '../plans/coverage-tier.ts';
import { LINES_OF_COVERAGE, type LineOfCoverage } from '../plans/plan.table.ts';

/** Our names of the bill's columns; `column_mapping` names the file's header for each. */
export const BILL_COLUMNS = ['member', 'coverage_tier', 'period', 'amount', 'line_of_coverage'] as const;
export type BillColumn = (typeof BILL_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly BillColumn[] = ['member', 'period', 'amount'];

/** The most lines one bill may hold (a bill of 50,000 members on four lines fits). */
export const MAX_BILL_LINES = 250_000;
/** The longest record csv-parse buffers: past it the file is refused (a cell of megabytes is no bill). */
const MAX_RECORD_CHARACTERS = 16_384;
/** The longest member key: an SSN, a member id, an external id (ids are at most 64 characters). */
const MAX_MEMBER_KEY = 64;
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** The largest amount of one line: $9,999,999.99 (12 digits of cents are far beyond any premium). */
const MAX_AMOUNT_CENTS = 999_999_999;

export interface BillLine {
  /** The file's line (the header is line 1). */
  line: number;
  memberKey: string;
  /** The tiers the line's tier stands for (ECH: one child or several), or null: not given. */
  tiers: readonly CoverageTier[] | null;
  /** 'YYYY-MM' */
  period: string;
  /** Negative for a credit. */
  amountCents: number;
  /** null when the file has no line_of_coverage column. */
  lineOfCoverage: LineOfCoverage | null;
}

export interface BillLineError {
  line: number;
  column: BillColumn;
  message: string;
}

/** Tier text (a tier name or a coverage level code) -> the tiers it stands for; empty: unknown. */
export type TierReader = (text: string) => readonly CoverageTier[];

/**
 * An amount as carriers print it: `1234.5`, `1,234.56`, `$1,234.56`, `-12.00`, `(12.00)` (a credit), at most two
 * decimals; integer cents, or undefined. No floating point.
 */
export function amountCentsOf(text: string): number | undefined {
  const match = /^(\()?(-)?\$?(-)?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]{1,2}))?(\))?$/.exec(text);
  if (!match) return undefined;
  const [, open, minus, minusAfterSign, whole = '0', fraction = '', close] = match;
  if (Boolean(open) !== Boolean(close) || (open && (minus || minusAfterSign)) || (minus && minusAfterSign)) return undefined;
  const digits = whole.replaceAll(',', '');
  if (digits.length > 10) return undefined;
  const cents = Number(digits) * 100 + Number(fraction.padEnd(2, '0'));
  if (cents > MAX_AMOUNT_CENTS) return undefined;
  return open || minus || minusAfterSign ? -cents : cents;
}

/** A billing month: `YYYY-MM`, or a calendar date `YYYY-MM-DD` (its month). */
export function periodOf(text: string): string | undefined {
  if (/^[0-9]{4}-(0[1-9]|1[0-2])$/.test(text)) return text;
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text) && isCalendarDate(text)) return text.slice(0, 7);
  return undefined;
}

/** Which header cell each of our columns is: `mapping` names the file's header (case and spaces at the ends aside). */
function columnIndexes(header: readonly string[], mapping: Partial<Record<BillColumn, string>>): Map<BillColumn, number> {
  const names = header.map((name) => name.trim().toLowerCase());
  const indexes = new Map<BillColumn, number>();
  const missing: string[] = [];
  for (const column of BILL_COLUMNS) {
    const wanted = (mapping[column] ?? column).trim().toLowerCase();
    const index = names.indexOf(wanted);
    if (index >= 0) indexes.set(column, index);
    else if (REQUIRED_COLUMNS.includes(column) || mapping[column] !== undefined)
      missing.push(mapping[column] === undefined ? column : `${column} ("${mapping[column]}")`);
  }
  if (missing.length > 0) {
    throw new ValidationFailed([
      inputError(
        ['content'],
        `The header (line 1) lacks ${missing.join(', ')}. Columns: member, period, amount (required), coverage_tier, line_of_coverage; column_mapping names your header for each.`,
      ),
    ]);
  }
  return indexes;
}

/** Reads a bill: its lines and the lines it could not read (one error per line, at its first column at fault). */
export function parseBill(content: string, mapping: Partial<Record<BillColumn, string>>, tiersOf: TierReader): { lines: BillLine[]; errors: BillLineError[] } {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(content, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      // A quote inside an unquoted cell (a formula such as =HYPERLINK("...")) is that cell's text, not a 400.
      relax_quotes: true,
      max_record_size: MAX_RECORD_CHARACTERS,
      to: MAX_BILL_LINES + 1,
      info: true,
    }) as unknown as typeof records;
  } catch (error) {
    throw new ValidationFailed([inputError(['content'], `Not a CSV file: ${(error as Error).message.split('\n')[0]}`)]);
  }
  if (records.length === 0) throw new ValidationFailed([inputError(['content'], 'The bill is empty: a header line, then one line per member and month.')]);
  if (records.length > MAX_BILL_LINES) throw new ValidationFailed([inputError(['content'], `At most ${MAX_BILL_LINES} lines in one bill.`)]);
  const indexes = columnIndexes(records[0]!.record, mapping);
  const lines: BillLine[] = [];
  const errors: BillLineError[] = [];
  for (let index = 1; index < records.length; index++) {
    const { record, info } = records[index]!;
    const cell = (column: BillColumn): string | null => {
      const at = indexes.get(column);
      const value = at === undefined ? undefined : record[at]?.trim();
      return value === undefined || value === '' ? null : value;
    };
    const parsed = readLine(cell, indexes.has('line_of_coverage'), tiersOf);
    if ('column' in parsed) errors.push({ line: info.lines, ...parsed });
    else lines.push({ line: info.lines, ...parsed });
  }
  return { lines, errors };
}

function readLine(
  cell: (column: BillColumn) => string | null,
  hasLineColumn: boolean,
  tiersOf: TierReader,
): Omit<BillLine, 'line'> | Omit<BillLineError, 'line'> {
  const memberKey = cell('member');
  if (memberKey === null) return { column: 'member', message: 'Required.' };
  if (memberKey.length > MAX_MEMBER_KEY) return { column: 'member', message: `At most ${MAX_MEMBER_KEY} characters.` };
  // No id, external id or SSN holds one; a NUL would also reach the database, which cannot compare it (CSV request bodies keep NULs).
  if (CONTROL_CHARACTER.test(memberKey)) return { column: 'member', message: 'May not contain control characters (NUL, tab, ...).' };
  const periodText = cell('period');
  const period = periodText === null ? undefined : periodOf(periodText);
  if (period === undefined) return { column: 'period', message: 'Must be a month, YYYY-MM (or a date, YYYY-MM-DD).' };
  const amountText = cell('amount');
  const amountCents = amountText === null ? undefined : amountCentsOf(amountText);
  if (amountCents === undefined)
    return { column: 'amount', message: 'Must be an amount such as 1234.56, 1,234.56, $1,234.56, -12.00 or (12.00), under 10,000,000.' };
  const tierText = cell('coverage_tier');
  const tiers = tierText === null ? null : tiersOf(tierText);
  if (tiers !== null && tiers.length === 0)
    return {
      column: 'coverage_tier',
      message: `Must be one of ${COVERAGE_TIERS.join(', ')}, or a coverage level code (EMP, ESP, ECH, FAM, or the group's own).`,
    };
  const line = cell('line_of_coverage');
  if (hasLineColumn && (line === null || !(LINES_OF_COVERAGE as readonly string[]).includes(line))) {
    return { column: 'line_of_coverage', message: `Must be one of ${LINES_OF_COVERAGE.join(', ')}.` };
  }
  return { memberKey, tiers, period, amountCents, lineOfCoverage: hasLineColumn ? (line as LineOfCoverage) : null };
}
