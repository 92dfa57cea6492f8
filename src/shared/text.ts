/** `text` cut to at most `length` characters, ending in "…" when cut; never halves a surrogate pair. */
export function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  let end = length - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}
