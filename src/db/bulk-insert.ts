import { CompiledQuery, PostgresAdapter, type Insertable } from 'kysely';
import type { Executor } from './database.ts';
import type { Database } from './schema.ts';
import { batches } from '../shared/batches.ts';

/** Statement texts kept per shape (table, columns, row count, conflict, returning): a handful per table in practice. */
const MAX_CACHED_TEXTS = 500;
const texts = new Map<string, string>();

/** Bound parameters per statement at most: under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const MAX_PARAMETERS = 30_000;

export interface BulkInsertOptions {
  /** Rows per INSERT statement (rows × columns must stay under MAX_PARAMETERS); by default as many as fit. */
  rowsPerStatement?: number;
  /** `ON CONFLICT (columns) DO NOTHING`: rows repeating a unique value (of one column, or of several) are skipped. */
  skipConflictsOn?: string | readonly string[];
  /**
   * `ON CONFLICT (columns) DO UPDATE SET column = excluded.column` for each of `set`: a row repeating the unique
   * key updates those columns of the stored row instead (an upsert). Not with `skipConflictsOn`.
   */
  updateConflictsOn?: { readonly columns: readonly string[]; readonly set: readonly string[] };
  /** A column whose values the statement returns (only for the rows it inserted). */
  returning?: string;
}

/**
 * Inserts many rows of one table, `rowsPerStatement` to a statement, writing the INSERT text itself (once per
 * shape) instead of having Kysely build it from the rows: for the thousands of rows the daily sweep records,
 * building the statement cost about as much as running it. Every row must have the same columns, in the same
 * order, as the first; values are bound, never written into the text. Returns the `returning` column's values.
 */
export async function insertRows<T extends keyof Database>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  options: BulkInsertOptions = {},
): Promise<unknown[]> {
  const first = rows[0];
  if (first === undefined) return [];
  if (options.skipConflictsOn !== undefined && options.updateConflictsOn !== undefined)
    throw new Error('insertRows: skipConflictsOn or updateConflictsOn, not both');
  const columns = Object.keys(first);
  const rowsPerStatement = Math.min(options.rowsPerStatement ?? Number.POSITIVE_INFINITY, Math.max(1, Math.floor(MAX_PARAMETERS / columns.length)));
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const returned: unknown[] = [];
  for (const batch of batches(rows, rowsPerStatement)) {
    const parameters: unknown[] = [];
    for (const row of batch) {
      const values = row as Record<string, unknown>;
      for (const column of columns) {
        const value = values[column];
        // Kysely would leave an undefined column out (its default); bound here it would be null: refused instead.
        if (value === undefined)
          throw new Error(
            column in values
              ? `insertRows(${table}): a row lacks a value for the column "${column}"`
              : `insertRows(${table}): a row lacks the column "${column}" the first row has`,
          );
        parameters.push(value);
      }
      if (Object.keys(values).length !== columns.length) throw new Error(`insertRows(${table}): a row has columns the first row lacks`);
    }
    const text = statementText(table, columns, batch.length, postgres, options);
    const result = await db.executeQuery(CompiledQuery.raw(text, parameters));
    if (options.returning !== undefined) for (const row of result.rows as Record<string, unknown>[]) returned.push(row[options.returning]);
  }
  return returned;
}

function statementText(table: string, columns: readonly string[], rowCount: number, postgres: boolean, options: BulkInsertOptions): string {
  const upsert = options.updateConflictsOn;
  const skip =
    options.skipConflictsOn === undefined ? undefined : typeof options.skipConflictsOn === 'string' ? [options.skipConflictsOn] : options.skipConflictsOn;
  const key = `${table}|${columns.join(',')}|${rowCount}|${postgres}|${skip?.join(',') ?? ''}|${upsert ? `${upsert.columns.join(',')}=${upsert.set.join(',')}` : ''}|${options.returning ?? ''}`;
  let text = texts.get(key);
  if (text !== undefined) return text;
  let parameter = 0;
  const placeholder = () => (postgres ? `$${++parameter}` : '?');
  const tuple = () => `(${columns.map(placeholder).join(', ')})`;
  text =
    `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values ${Array.from({ length: rowCount }, tuple).join(', ')}` +
    (skip !== undefined ? ` on conflict (${skip.map(quoted).join(', ')}) do nothing` : '') +
    (upsert !== undefined
      ? ` on conflict (${upsert.columns.map(quoted).join(', ')}) do update set ${upsert.set.map((column) => `${quoted(column)} = excluded.${quoted(column)}`).join(', ')}`
      : '') +
    (options.returning !== undefined ? ` returning ${quoted(options.returning)}` : '');
  if (texts.size >= MAX_CACHED_TEXTS) texts.clear();
  texts.set(key, text);
  return text;
}

/** A table or column name as an identifier; names come from the schema's types, never from input. */
function quoted(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`insertRows: "${name}" is not a plain identifier`);
  return `"${name}"`;
}
