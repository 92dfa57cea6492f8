/**
 * The one writer of every CSV the service produces (STYLE habit 13): csv-stringify quotes per RFC 4180, and no
 * cell reaches a spreadsheet as a formula (OWASP "CSV Injection"; CWE-1236).
 */
import { stringify, type CastReturnObject, type Stringifier } from 'csv-stringify';

/**
 * First characters that make a spreadsheet read a cell as a formula: OWASP's list (= + - @ tab carriage return),
 * line feed (trimmed like the other two by some importers), and the full-width forms Apple Numbers folds into
 * the ASCII ones (the list csv-stringify's own escape_formulas uses).
 */
const FORMULA_TRIGGERS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r', '\n', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/**
 * What a spreadsheet may skip before it looks for a formula: every Unicode space (`White_Space`: the ASCII
 * ones, no-break, ogham, en to hair, line and paragraph separators, narrow no-break, medium mathematical,
 * ideographic), every format character (`Cf`: zero-width space and joiners, bidirectional marks, word joiner,
 * the byte order mark) and every control character. Importers differ in what they trim, so all of it counts.
 */
const SKIPPED_BEFORE_FORMULA = /^[\p{White_Space}\p{Cf}\p{Cc}]*/u;

/** A plain decimal number such as "-12.50": a spreadsheet reads it as a number, and it cannot be a formula. */
const PLAIN_NUMBER = /^-[0-9]+(\.[0-9]+)?$/;

/**
 * Whether a spreadsheet could run the cell: its first character is a trigger, or the first one after what an
 * importer may skip is (" =1+1", "\u00A0=1+1"), unless what follows is a plain negative number.
 */
function isFormula(cell: string): boolean {
  if (FORMULA_TRIGGERS.has(cell.charAt(0)) && !PLAIN_NUMBER.test(cell)) return true;
  const rest = cell.replace(SKIPPED_BEFORE_FORMULA, '');
  return FORMULA_TRIGGERS.has(rest.charAt(0)) && !PLAIN_NUMBER.test(rest);
}

/**
 * A cell as written: unchanged, or, when a spreadsheet would run it, prefixed with a single quote (read as
 * "this is text") and always quoted, so that the quote stays the first character of the cell.
 */
function neutralized(cell: string): string | CastReturnObject {
  if (!isFormula(cell)) return cell;
  return { value: `'${cell}`, quoted: true };
}

/**
 * A CSV stream of objects with these columns: a header row of the column names, then one row per object
 * written to it. Strings, numbers and objects (as JSON) pass through `neutralized`; booleans ("1" or "") and
 * dates (epoch milliseconds) keep csv-stringify's forms, which cannot start a formula.
 */
export function createCsvWriter(columns: readonly string[]): Stringifier {
  return stringify({
    header: true,
    columns: [...columns],
    cast: {
      string: neutralized,
      number: (value) => neutralized(String(value)),
      bigint: (value) => neutralized(String(value)),
      object: (value) => neutralized(JSON.stringify(value)),
    },
  });
}
