/**
 * Reading X12 text as hostile input (STYLE habit 13): the delimiters from the ISA, the segments split once,
 * and a cursor with the checks every read makes. Everything that does not read is an
 * AcknowledgementFormatError (with the 1-based position of the segment at fault), never a TypeError.
 */
import { lookupCode } from './x12-codes.ts';
import type { AcknowledgementCode } from './x12-acknowledgement-records.ts';

/** X12.5: the ISA is fixed-length; a sloppy sender's may be off by a few padding spaces, never by this much. */
const MAX_ISA_LENGTH = 200;

/** Text that is not a well-formed 999 or TA1. `segment` is the 1-based position of the segment at fault, when there is one. */
export class AcknowledgementFormatError extends Error {
  override name = 'AcknowledgementFormatError';
  readonly segment: number | undefined;
  constructor(message: string, segment?: number) {
    super(segment === undefined ? message : `${message} (segment ${segment})`);
    this.segment = segment;
  }
}
export interface Delimiters {
  element: string;
  component: string;
  segment: string;
}

export interface Segment {
  id: string;
  /** elements[1] is the first element (as in ISA01); elements[0] is the id. */
  elements: string[];
  /** 1-based position in the file. */
  position: number;
}

export const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/;
export const WHITE_SPACE = new Set([' ', '\t', '\r', '\n', '\uFEFF']);
const DIGITS = /^\d+$/;
const CODE = /^[A-Z0-9]{1,3}$/;

/**
 * The delimiters an interchange declares: the element separator is the character after "ISA"; ISA16, after
 * the 16th element separator, is the component separator; the character after it ends the segment.
 */
export function readDelimiters(text: string, start: number): Delimiters {
  const element = text.charAt(start + 3);
  let separators = 0;
  let index = start + 3;
  const limit = Math.min(text.length, start + MAX_ISA_LENGTH);
  while (index < limit && separators < 16) {
    if (text.charAt(index) === element) separators += 1;
    index += 1;
  }
  if (separators < 16 || index + 1 >= text.length) throw new AcknowledgementFormatError('The ISA segment is truncated: it does not declare its delimiters', 1);
  const delimiters = { element, component: text.charAt(index), segment: text.charAt(index + 1) };
  const values = [delimiters.element, delimiters.component, delimiters.segment];
  if (new Set(values).size !== 3 || values.some((value) => /[A-Za-z0-9 ]/.test(value))) {
    throw new AcknowledgementFormatError('The ISA segment declares delimiters that are letters, digits, spaces or not distinct', 1);
  }
  return delimiters;
}

/** The segments of `text`, split once on the terminator; white space (newlines) between segments is ignored. */
export function splitSegments(text: string, start: number, delimiters: Delimiters): Segment[] {
  const pieces = text.slice(start).split(delimiters.segment);
  // After the last terminator only white space may follow; anything else is a segment cut off.
  const rest = pieces.pop() ?? '';
  if (!isWhiteSpace(rest)) throw new AcknowledgementFormatError('The text ends in the middle of a segment (truncated?)');
  const segments: Segment[] = [];
  for (const piece of pieces) {
    const raw = trimWhiteSpace(piece);
    if (raw === '') continue;
    const elements = raw.split(delimiters.element);
    const id = elements[0] ?? '';
    const position = segments.length + 1;
    if (!SEGMENT_ID.test(id)) throw new AcknowledgementFormatError('A segment does not start with a segment id', position);
    segments.push({ id, elements, position });
  }
  return segments;
}

function isWhiteSpace(text: string): boolean {
  for (const character of text) if (!WHITE_SPACE.has(character)) return false;
  return true;
}

/** `text` without the white space (line breaks, padding) before and after a segment. */
function trimWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && WHITE_SPACE.has(text.charAt(start))) start += 1;
  while (end > start && (text.charAt(end - 1) === '\r' || text.charAt(end - 1) === '\n')) end -= 1;
  return text.slice(start, end);
}

/** A cursor over the segments, with the checks every read makes. */
export class SegmentReader {
  private index = 0;
  private readonly segments: readonly Segment[];
  readonly component: string;
  constructor(segments: readonly Segment[], component: string) {
    this.segments = segments;
    this.component = component;
  }

  peek(): Segment | undefined {
    return this.segments[this.index];
  }

  /** The next segment, which must be `id`. */
  take(id: string, within: string): Segment {
    const segment = this.segments[this.index];
    if (segment === undefined) throw new AcknowledgementFormatError(`${within} ends before its ${id} segment (truncated?)`);
    if (segment.id !== id) throw new AcknowledgementFormatError(`Expected ${id} in ${within}, found ${segment.id}`, segment.position);
    this.index += 1;
    return segment;
  }

  /** The next segment when it is one of `ids`. */
  takeIf(...ids: string[]): Segment | undefined {
    const segment = this.segments[this.index];
    if (segment === undefined || !ids.includes(segment.id)) return undefined;
    this.index += 1;
    return segment;
  }

  get position(): number {
    return this.index;
  }

  get done(): boolean {
    return this.index >= this.segments.length;
  }
}

export function element(segment: Segment, position: number): string | undefined {
  const value = segment.elements[position];
  return value === undefined || value === '' ? undefined : value;
}

export function requiredElement(segment: Segment, position: number): string {
  const value = element(segment, position);
  if (value === undefined) throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is missing`, segment.position);
  return value;
}

export function numberElement(segment: Segment, position: number): number {
  const value = requiredElement(segment, position).trim();
  if (!DIGITS.test(value) || value.length > 10)
    throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not a number`, segment.position);
  return Number(value);
}

export function optionalNumber(value: string | undefined, segment: Segment, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!DIGITS.test(value) || value.length > 10) throw new AcknowledgementFormatError(`${name} is not a number`, segment.position);
  return Number(value);
}

/** A result code (AK901, IK501, TA104): one of `table`'s keys, or the acknowledgement cannot be understood. */
export function resultCode<Table extends Readonly<Record<string, string>>>(segment: Segment, position: number, table: Table): keyof Table & string {
  const value = requiredElement(segment, position);
  if (lookupCode(table, value) === undefined)
    throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not a known result code`, segment.position);
  return value;
}

/** An error code (IK304, IK403, IK502..., AK905..., TA105): kept even when the dictionary here lacks it. */
export function errorCode(segment: Segment, position: number, table: Readonly<Record<string, string>>): AcknowledgementCode | undefined {
  const value = element(segment, position);
  if (value === undefined) return undefined;
  if (!CODE.test(value)) throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not an error code`, segment.position);
  return { code: value, description: lookupCode(table, value) };
}

export function errorCodes(segment: Segment, first: number, last: number, table: Readonly<Record<string, string>>): AcknowledgementCode[] {
  const codes: AcknowledgementCode[] = [];
  for (let position = first; position <= last; position += 1) {
    const found = errorCode(segment, position, table);
    if (found !== undefined) codes.push(found);
  }
  return codes;
}

/** CTX segments give context (the member's id, the situational trigger a rule depends on); they are skipped. */
export function skipContext(reader: SegmentReader): void {
  let context = reader.takeIf('CTX');
  while (context !== undefined) context = reader.takeIf('CTX');
}
