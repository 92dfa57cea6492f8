/**
 * Text a carrier's 834 can carry (ASC X12.6 character sets, as 005010X220A1 uses them): printable ASCII, the
 * basic and extended sets together, less the delimiters the service writes (`*` element, `~` segment, `:`
 * component, `^` repetition). One fold and one check, used by the API (names and addresses are refused when they
 * cannot be sent: docs/decisions.md "Members and personal data", Names carriers can read) and by the 834 writer
 * (modules/edi/x12-elements.ts), so that what the API accepted is never left out of a file for its characters.
 */
import { inputError, ValidationFailed, type InputError } from './errors.ts';

/** Latin letters that no Unicode decomposition takes to ASCII, with the spelling carriers' systems expect. */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  ı: 'i',
  Ħ: 'H',
  ħ: 'h',
  // Typographic apostrophes, quotes and dashes, as word processors write them in names (O’Brien, Smith–Jones).
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u02BC': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2013': '-',
  '\u2014': '-',
};
const LATIN_LETTER_SEARCH = new RegExp(`[${Object.keys(LATIN_LETTERS).join('')}]`, 'gu');
const COMBINING_MARKS = /\p{M}/gu;
/** Invisible format characters (zero-width spaces and joiners, byte order marks, bidirectional controls, soft hyphens): copy-paste debris in names. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const WHITE_SPACE_RUNS = /\s+/g;
/** Printable ASCII: the 005010 basic and extended character sets together. */
const CHARACTER_SET = /^[\x20-\x7E]*$/;
/** Any of the delimiters the service writes. */
const DELIMITERS = /[*~:^]/;

/**
 * `value` as an 834 writes it: accents dropped (José -> Jose, by canonical decomposition), the Latin letters that
 * do not decompose spelled out (ß -> ss, Ø -> O), typographic quotes and dashes made plain, invisible format
 * characters (zero-width spaces, bidirectional controls) dropped, white space runs made one space, trimmed. Anything else outside printable ASCII (another script: 山田, Иванов) stays as it is,
 * for x12TextProblem to refuse.
 */
export function foldToX12(value: string): string {
  return value
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .replace(FORMAT_CHARACTERS, '')
    .replace(LATIN_LETTER_SEARCH, (letter) => LATIN_LETTERS[letter] ?? letter)
    .replace(WHITE_SPACE_RUNS, ' ')
    .trim();
}

/** Why `folded` (foldToX12's result) cannot go in an 834 element, or undefined when it can. */
export function x12FoldedTextProblem(folded: string): string | undefined {
  if (DELIMITERS.test(folded)) return 'holds an X12 delimiter (* ~ : ^)';
  if (!CHARACTER_SET.test(folded)) return 'holds a character outside the X12 character set (printable ASCII)';
  return undefined;
}

/**
 * Why a name or address cannot be sent to carriers, as the API says it (400, naming the field), or undefined
 * when it can: accented Latin letters are accepted (834 files carry them without the accent); the delimiters
 * and characters of other scripts are refused.
 */
export function x12TextProblem(value: string): string | undefined {
  const folded = foldToX12(value);
  if (DELIMITERS.test(folded)) return 'Cannot be sent to carriers (ANSI X12 834): it holds one of the characters * ~ : ^, which X12 uses as delimiters.';
  if (!CHARACTER_SET.test(folded)) {
    return 'Cannot be sent to carriers (ANSI X12 834): it holds characters outside the X12 character set (Latin letters, digits, spaces and common punctuation; accents are sent without them).';
  }
  return undefined;
}

/** The names and address of a person as a request gives them (any of them may be left out). */
export interface PersonText {
  first_name?: string | undefined;
  middle_name?: string | null | undefined;
  last_name?: string | undefined;
  address?: { line1: string; line2?: string | null | undefined; city: string } | null | undefined;
}

/**
 * The API's check of the names and address lines a request gives (834 NM103-NM105, N301/N302, N401): an input
 * error naming each field that carriers' files cannot carry. Fields left out are not checked, so that a record
 * stored before the check can still be changed in its other fields.
 */
export function personTextErrors(input: PersonText): InputError[] {
  const fields: [path: string[], value: string | null | undefined][] = [
    [['first_name'], input.first_name],
    [['middle_name'], input.middle_name],
    [['last_name'], input.last_name],
    [['address', 'line1'], input.address?.line1],
    [['address', 'line2'], input.address?.line2],
    [['address', 'city'], input.address?.city],
  ];
  return fields.flatMap(([path, value]) => {
    const problem = typeof value === 'string' ? x12TextProblem(value) : undefined;
    return problem === undefined ? [] : [inputError(path, problem)];
  });
}

/** Throws the 400 of personTextErrors, if any. */
export function assertPersonTextCarriersCanRead(input: PersonText): void {
  const errors = personTextErrors(input);
  if (errors.length > 0) throw new ValidationFailed(errors);
}
