/**
 * A census import's file as records (docs/decisions.md "Census imports"): CSV through csv-parse (a byte order
 * mark and CRLF line ends are read; the header is line 1), or the JSON body's rows (row i is line i + 2, as if
 * a header came first). A file that is not such a census (no header, an unknown or repeated column, too many
 * rows) is a 400 naming `content` or `rows`; everything else is a per-row problem found by the check.
 */
import { parse } from 'csv-parse/sync';
import { inputError, ValidationFailed } from '../../shared/errors.ts';
import { CENSUS_IMPORT_COLUMNS, REQUIRED_CENSUS_COLUMNS, type CensusColumn } from './census-row-reader.ts';

/** Most rows one import may hold (the largest employer's roster with families, twice over). */
export const MAX_CENSUS_IMPORT_ROWS = 100_000;

/** The largest CSV file (bytes): `POST /census_imports`' body limit, and `benefits census import`'s (50,000 employees with their families is about 20 MiB). */
export const MAX_CENSUS_FILE_BYTES = 48 * 1024 * 1024;

export interface CensusRecord {
  line: number;
  cells: Partial<Record<CensusColumn, string>>;
}

function refuse(field: string, message: string): never {
  throw new ValidationFailed([inputError([field], message)]);
}

export function readCsvCensus(content: string): CensusRecord[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(content, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      to: MAX_CENSUS_IMPORT_ROWS + 1,
      info: true,
    }) as unknown as typeof records;
  } catch (error) {
    refuse('content', `Not a CSV file: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  if (records.length > MAX_CENSUS_IMPORT_ROWS) refuse('content', `At most ${MAX_CENSUS_IMPORT_ROWS} rows in one import.`);
  const header = (records[0]?.record ?? []).map((name) => name.trim().toLowerCase());
  const columns = checkHeader(header, 'content');
  return records.slice(1).map(({ record, info }) => ({
    line: info.lines,
    cells: Object.fromEntries(columns.flatMap((column, index) => (column === undefined || record[index] === undefined ? [] : [[column, record[index]]]))),
  }));
}

/** The header's columns in order; refuses a header without employee_id and relationship, with an unknown or a repeated column. */
function checkHeader(header: readonly string[], field: string): (CensusColumn | undefined)[] {
  const known = CENSUS_IMPORT_COLUMNS as readonly string[];
  const list = CENSUS_IMPORT_COLUMNS.join(', ');
  const missing = REQUIRED_CENSUS_COLUMNS.filter((name) => !header.includes(name));
  if (missing.length > 0) refuse(field, `The header (line 1) lacks ${missing.join(', ')}; the columns are ${list}.`);
  const unknown = header.find((name) => !known.includes(name));
  if (unknown !== undefined) refuse(field, `Unknown column "${unknown.slice(0, 64)}" in the header (line 1); the columns are ${list}.`);
  const repeated = header.find((name, index) => header.indexOf(name) !== index);
  if (repeated !== undefined) refuse(field, `The column ${repeated} appears twice in the header (line 1).`);
  return header as CensusColumn[];
}

/** The JSON body's rows: objects of the documented columns, each value text (numbers are taken as written) or null. */
export function readJsonCensus(rows: readonly Record<string, unknown>[]): CensusRecord[] {
  if (rows.length > MAX_CENSUS_IMPORT_ROWS) refuse('rows', `At most ${MAX_CENSUS_IMPORT_ROWS} rows in one import.`);
  const known = CENSUS_IMPORT_COLUMNS as readonly string[];
  return rows.map((row, index) => {
    const cells: Partial<Record<CensusColumn, string>> = {};
    for (const [key, value] of Object.entries(row)) {
      if (!known.includes(key))
        refuse('rows', `Row ${index} has the unknown column "${key.slice(0, 64)}"; the columns are ${CENSUS_IMPORT_COLUMNS.join(', ')}.`);
      if (value === null) continue;
      if (typeof value !== 'string' && typeof value !== 'number') refuse('rows', `Row ${index}, ${key}: must be text, a number or null.`);
      cells[key as CensusColumn] = String(value);
    }
    return { line: index + 2, cells };
  });
}
