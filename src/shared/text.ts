/** `text` cut to at most `length` characters, ending in "…" when cut; never halves a surrogate pair. */
export function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  let end = length - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A list query parameter, repeated and/or comma-separated (`?type=a&type=b,c`): its values, trimmed, blanks dropped. */
export function listParameterValues(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/**
 * Orders strings by their UTF-16 code units (`<` on strings), as SQLite's BINARY and PostgreSQL's "C" collations
 * order them; not localeCompare, which goes through ICU. Usable as a sort comparator.
 */
export function compareCodeUnits(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}
