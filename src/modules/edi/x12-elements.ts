/**
 * X12 elements and segments as 005010 writes them (X12.5 and X12.6): the delimiters, element lengths, the one
 * sanitizer every free-form value goes through, the typed formatters (dates, SSN, FEIN, control numbers, code
 * lookups) and segment text. Pure: used by the 834 writer (x12-834.ts) and its envelope (x12-834-envelope.ts).
 */
import { parseDate } from '../../shared/dates.ts';
import { ssnProblem } from '../../shared/ssn.ts';
import { foldToX12, x12FoldedTextProblem } from '../../shared/x12-text.ts';
import { DATE_QUALIFIERS, lookupCode, type DateQualifier } from './x12-codes.ts';

/** The delimiters written (ISA: element separator at position 3, ISA11 repetition, ISA16 component, then the terminator). */
export const X12_DELIMITERS = { element: '*', repetition: '^', component: ':', segment: '~' } as const;

/** X12.5: the interchange header is fixed-length, 106 characters with its terminator. */
export const ISA_LENGTH = 106;

/** A value that cannot be written into `element` (e.g. 'NM103'). The message never repeats the value: it may be an SSN or a name. */
export class X12ValueError extends Error {
  override name = 'X12ValueError';
  readonly element: string;
  readonly reason: string;
  /** Position (from 0) in the input of the subscriber whose loops hold the value; undefined for the envelope and header. */
  readonly subscriberIndex: number | undefined;
  constructor(element: string, reason: string, subscriberIndex?: number) {
    super(subscriberIndex === undefined ? `${element}: ${reason}` : `${element} (subscriber at position ${subscriberIndex}): ${reason}`);
    this.element = element;
    this.reason = reason;
    this.subscriberIndex = subscriberIndex;
  }
}

/**
 * Minimum and maximum lengths of the free-form elements written, from the 005010 data element dictionary as
 * 005010X220A1 uses it (data element number in the comment).
 */
export const ELEMENT_LENGTHS = {
  ISA06: [1, 15], // I06 Interchange Sender ID (then padded to 15)
  ISA08: [1, 15], // I07 Interchange Receiver ID (then padded to 15)
  GS02: [2, 15], // 142 Application Sender's Code
  GS03: [2, 15], // 124 Application Receiver's Code
  BGN02: [1, 50], // 127 Reference Identification
  REF02: [1, 50], // 127 Reference Identification (REF*38, REF*0F, REF*1L)
  N102: [1, 60], // 93 Name
  N104: [2, 80], // 67 Identification Code
  NM103: [1, 60], // 1035 Name Last or Organization Name
  NM104: [1, 35], // 1036 Name First
  NM105: [1, 25], // 1037 Name Middle
  NM107: [1, 10], // 1039 Name Suffix
  N301: [1, 55], // 166 Address Information
  N302: [1, 55], // 166 Address Information
  N401: [2, 30], // 19 City Name
  N402: [2, 2], // 156 State or Province Code
  N403: [3, 15], // 116 Postal Code
  N404: [2, 3], // 26 Country Code
  HD04: [1, 50], // 1204 Plan Coverage Description
} as const satisfies Record<string, readonly [min: number, max: number]>;
export type X12FreeFormElement = keyof typeof ELEMENT_LENGTHS;

/**
 * How a value is made to fit: `text` (names, addresses, descriptions) is folded to ASCII letters where it can
 * be (José -> Jose, Weiß -> Weiss: shared/x12-text.ts, the fold the API's check uses), its runs of white space
 * made one space, trimmed and cut to the element's maximum; an `identifier` is only trimmed, and one too long is
 * refused, since a cut identifier names someone else.
 */
export type X12ValueKind = 'text' | 'identifier';

/** Printable ASCII, no leading, trailing or doubled space: already what the sanitizer would make of it. */
const PLAIN_TEXT = /^(?:[\x21-\x7E]+(?: [\x21-\x7E]+)*)?$/;

/** `value` folded (text) or trimmed (identifier) and checked against the X12 character set, not yet cut to a length. */
function fittedValue(element: X12FreeFormElement, value: string, kind: X12ValueKind): string {
  if (typeof value !== 'string') throw new X12ValueError(element, 'must be a string');
  // Most values are plain printable ASCII with single spaces: they need no normalizing (the common case, which
  // a 50,000-member file meets a million times).
  const fitted = PLAIN_TEXT.test(value) ? value : kind === 'text' ? foldToX12(value) : value.trim();
  const problem = x12FoldedTextProblem(fitted);
  if (problem !== undefined) throw new X12ValueError(element, problem);
  return fitted;
}

/**
 * The one sanitizer of element values. Refuses a value that is not a string, holds a delimiter (`*`, `~`, `:`,
 * `^`) or a character outside the X12 character set, or is shorter than the element's minimum once made to fit.
 */
export function sanitizeElement(element: X12FreeFormElement, value: string, kind: X12ValueKind): string {
  const [min, max] = ELEMENT_LENGTHS[element];
  let fitted = fittedValue(element, value, kind);
  if (fitted.length > max) {
    if (kind === 'identifier') throw new X12ValueError(element, `is longer than ${max} characters`);
    fitted = fitted.slice(0, max).trimEnd();
  }
  if (fitted.length < min) throw new X12ValueError(element, min === 1 ? 'is empty' : `is shorter than ${min} characters`);
  return fitted;
}

/**
 * N301 and N302 of an address (005010X220A1 2100A N3: N301 Address Information, N302 the second line "required
 * if a second address line exists", each AN 1/55): a first line longer than 55 characters goes on in N302 (cut
 * at the last space that fits, else at 55), followed by the second line; only what is longer than the two
 * elements together is cut, never the apartment of a first line that fits.
 */
export function addressLineElements(line1: string, line2: string | null | undefined): [n301: string, n302: string | undefined] {
  const max = ELEMENT_LENGTHS.N301[1];
  const first = fittedValue('N301', line1, 'text');
  const second = line2 === undefined || line2 === null || (typeof line2 === 'string' && line2.trim() === '') ? '' : fittedValue('N302', line2, 'text');
  if (first.length <= max) return [sanitizeElement('N301', first, 'text'), second === '' ? undefined : sanitizeElement('N302', second, 'text')];
  const space = first.lastIndexOf(' ', max);
  const cut = space > 0 ? space : max;
  const rest = `${first.slice(cut).trim()} ${second}`.trim();
  return [sanitizeElement('N301', first.slice(0, cut), 'text'), sanitizeElement('N302', rest, 'text')];
}

/** `value` when given (not undefined, null or blank), sanitized; undefined otherwise. */
export function optionalElement(element: X12FreeFormElement, value: string | null | undefined, kind: X12ValueKind): string | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  return sanitizeElement(element, value, kind);
}

/** A service date ('YYYY-MM-DD', through shared/dates.ts parseDate) as X12 D8, CCYYMMDD. */
export function x12Date(element: string, value: string): string {
  const date = typeof value === 'string' ? parseDate(value) : undefined;
  if (date === undefined) throw new X12ValueError(element, 'is not a calendar date (YYYY-MM-DD)');
  return date.replaceAll('-', '');
}

/**
 * NM109 with NM108 34: an SSN the SSA issues, by the one check the API uses too (shared/ssn.ts), so a member
 * the API accepted is never left out for it.
 */
export function x12SocialSecurityNumber(value: string): string {
  if (typeof value !== 'string' || !/^\d{9}$/.test(value)) throw new X12ValueError('NM109', 'an SSN must be exactly 9 digits');
  if (ssnProblem(value) !== undefined) throw new X12ValueError('NM109', 'is not an SSN the SSA issues');
  return value;
}

/** A federal employer identification number (N104 with N103 FI): exactly nine digits, no hyphen. */
export function x12EmployerIdentificationNumber(element: string, value: string): string {
  if (typeof value !== 'string' || !/^\d{9}$/.test(value)) throw new X12ValueError(element, 'an FEIN must be exactly 9 digits');
  return value;
}

/** ISA13, GS06 and ST02 are numbers of at most nine digits (I12, 28, 329); zero is not a control number. */
export function controlNumber(element: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > 999_999_999) throw new X12ValueError(element, 'must be a whole number from 1 to 999999999');
  return value;
}

export function code<Table extends Readonly<Record<string, string | null>>>(element: string, table: Table, key: string): NonNullable<Table[keyof Table]> {
  const found = typeof key === 'string' ? lookupCode(table, key) : undefined;
  if (found === undefined) throw new X12ValueError(element, `has no code for ${JSON.stringify(key)}`);
  if (found === null) throw new X12ValueError(element, `005010X220A1 has no code for ${JSON.stringify(key)}: the carrier's companion guide must give one`);
  return found;
}

/** A segment's text without its terminator; trailing empty elements are dropped, as X12 requires. */
export function segment(id: string, ...elements: (string | undefined)[]): string {
  let length = elements.length;
  while (length > 0 && (elements[length - 1] ?? '') === '') length -= 1;
  let text = id;
  for (let index = 0; index < length; index += 1) text += X12_DELIMITERS.element + (elements[index] ?? '');
  return text;
}

export function dateSegment(qualifier: DateQualifier, element: string, date: string): string {
  return segment('DTP', DATE_QUALIFIERS[qualifier], 'D8', x12Date(element, date));
}

/** The UTC calendar date and time of `instant`, refused outside years 1..9999 (CCYYMMDD cannot hold them). */
export function utcDateTime(instant: Date): { date: string; time: string } {
  if (!(instant instanceof Date) || Number.isNaN(instant.getTime())) throw new X12ValueError('ISA09', 'createdAt is not a valid date');
  const year = instant.getUTCFullYear();
  if (year < 1 || year > 9999) throw new X12ValueError('ISA09', 'createdAt is outside the years 1 to 9999');
  const two = (value: number) => String(value).padStart(2, '0');
  return {
    date: `${String(year).padStart(4, '0')}${two(instant.getUTCMonth() + 1)}${two(instant.getUTCDate())}`,
    time: `${two(instant.getUTCHours())}${two(instant.getUTCMinutes())}`,
  };
}
