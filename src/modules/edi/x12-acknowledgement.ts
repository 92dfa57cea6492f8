/**
 * The reader of what carriers send back for an 834: 999 Implementation Acknowledgments (005010X231A1) and TA1
 * Interchange Acknowledgments (X12.5), as plain data. The text is hostile input (STYLE habit 13): it is
 * refused past MAX_ACKNOWLEDGEMENT_LENGTH, read in one pass over its segments without recursion, and anything
 * that is not a well-formed acknowledgement is an AcknowledgementFormatError, never a TypeError.
 *
 * A 999 names the functional group it acknowledges (AK102 = the GS06 sent); the interchange that carried
 * that group is found through it, since a 999's own ISA13 is the carrier's control number, not ours. A TA1
 * names the interchange directly (TA101 = the ISA13 sent).
 */
import {
  ELEMENT_ERROR_CODES,
  FUNCTIONAL_GROUP_ACKNOWLEDGE_CODES,
  FUNCTIONAL_GROUP_ERROR_CODES,
  INTERCHANGE_ACKNOWLEDGMENT_CODES,
  INTERCHANGE_NOTE_CODES,
  SEGMENT_ERROR_CODES,
  TRANSACTION_SET_ACKNOWLEDGMENT_CODES,
  TRANSACTION_SET_ERROR_CODES,
  lookupCode,
  type FunctionalGroupResult,
  type InterchangeResult,
  type TransactionSetResult,
} from './x12-codes.ts';

/** Acknowledgements are small (a 999 for a 50,000-member file with every member in error is well under this). */
export const MAX_ACKNOWLEDGEMENT_LENGTH = 1_000_000;

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

/** A code and its name in the X12 dictionary (undefined for a code the dictionary does not have). */
export interface AcknowledgementCode {
  code: string;
  description: string | undefined;
}

/** IK4: an element in error. */
export interface ElementError {
  /** IK401-1, -2, -3: the element's position in the segment, and the component and repetition when given. */
  position: number;
  componentPosition: number | undefined;
  repetitionPosition: number | undefined;
  /** IK402: the data element reference number. */
  elementReference: string | undefined;
  /** IK403. */
  error: AcknowledgementCode;
  /** IK404: the bad value as the carrier copied it. */
  badValue: string | undefined;
}

/** IK3 (with its IK4s): a segment in error. */
export interface SegmentError {
  /** IK301: e.g. NM1. */
  segmentId: string;
  /** IK302: the segment's position in the transaction set, ST being 1. */
  position: number;
  /** IK303: the loop, e.g. 2100A. */
  loop: string | undefined;
  /** IK304. */
  error: AcknowledgementCode | undefined;
  elementErrors: ElementError[];
}

/** AK2 ... IK5: one transaction set of the acknowledged group. */
export interface TransactionSetAcknowledgement {
  /** AK201: e.g. 834. */
  transactionSetId: string;
  /** AK202: the ST02 sent. */
  controlNumber: string;
  /** AK203: e.g. 005010X220A1. */
  implementationReference: string | undefined;
  /** IK501. */
  result: TransactionSetResult;
  /** IK502-IK506. */
  errors: AcknowledgementCode[];
  segmentErrors: SegmentError[];
}

/** The GS segment of the carrier's group that carries a 999 (its sender is the carrier, its receiver us). */
export interface AcknowledgementGroupEnvelope {
  /** GS01: FA (the reader refuses any other). */
  functionalIdentifier: string;
  /** GS02: the carrier's application code. */
  applicationSenderCode: string;
  /** GS03: ours. */
  applicationReceiverCode: string;
  /** GS06: the carrier's group control number. */
  controlNumber: string;
}

/** One 999 transaction set: the acknowledgement of one functional group. */
export interface FunctionalGroupAcknowledgement {
  /** The GS of the group this 999 came in. */
  envelope: AcknowledgementGroupEnvelope;
  /** ST02 of the 999 itself. */
  acknowledgementControlNumber: string;
  /** AK101: e.g. BE. */
  functionalIdentifier: string;
  /** AK102: the GS06 sent. */
  groupControlNumber: string;
  /** AK103: e.g. 005010X220A1. */
  version: string | undefined;
  /** AK901. */
  result: FunctionalGroupResult;
  /** AK902, AK903, AK904. */
  transactionSetsIncluded: number;
  transactionSetsReceived: number;
  transactionSetsAccepted: number;
  /** AK905-AK909. */
  errors: AcknowledgementCode[];
  transactionSets: TransactionSetAcknowledgement[];
}

/** TA1: the acknowledgement of an interchange envelope. */
export interface InterchangeAcknowledgement {
  /** TA101: the ISA13 sent. */
  interchangeControlNumber: string;
  /** TA102 (YYMMDD) and TA103 (HHMM) of the interchange acknowledged. */
  interchangeDate: string;
  interchangeTime: string;
  /** TA104. */
  result: InterchangeResult;
  /** TA105. */
  note: AcknowledgementCode;
}

export interface Acknowledgement {
  /** The acknowledgement's own envelope. */
  interchange: {
    senderQualifier: string;
    senderId: string;
    receiverQualifier: string;
    receiverId: string;
    /** ISA13 of the acknowledgement (the carrier's number). */
    controlNumber: string;
    /** ISA09 (YYMMDD) and ISA10 (HHMM). */
    date: string;
    time: string;
    /** ISA15: T, P (or I, information). */
    usage: string;
  };
  interchangeAcknowledgements: InterchangeAcknowledgement[];
  groupAcknowledgements: FunctionalGroupAcknowledgement[];
}

interface Delimiters {
  element: string;
  component: string;
  segment: string;
}

interface Segment {
  id: string;
  /** elements[1] is the first element (as in ISA01); elements[0] is the id. */
  elements: string[];
  /** 1-based position in the file. */
  position: number;
}

const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/;
const WHITE_SPACE = new Set([' ', '\t', '\r', '\n', '\uFEFF']);
const DIGITS = /^\d+$/;
const CODE = /^[A-Z0-9]{1,3}$/;

/**
 * The delimiters an interchange declares: the element separator is the character after "ISA"; ISA16, after
 * the 16th element separator, is the component separator; the character after it ends the segment.
 */
function readDelimiters(text: string, start: number): Delimiters {
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
function splitSegments(text: string, start: number, delimiters: Delimiters): Segment[] {
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
class SegmentReader {
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

function element(segment: Segment, position: number): string | undefined {
  const value = segment.elements[position];
  return value === undefined || value === '' ? undefined : value;
}

function requiredElement(segment: Segment, position: number): string {
  const value = element(segment, position);
  if (value === undefined) throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is missing`, segment.position);
  return value;
}

function numberElement(segment: Segment, position: number): number {
  const value = requiredElement(segment, position).trim();
  if (!DIGITS.test(value) || value.length > 10)
    throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not a number`, segment.position);
  return Number(value);
}

function optionalNumber(value: string | undefined, segment: Segment, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!DIGITS.test(value) || value.length > 10) throw new AcknowledgementFormatError(`${name} is not a number`, segment.position);
  return Number(value);
}

/** A result code (AK901, IK501, TA104): one of `table`'s keys, or the acknowledgement cannot be understood. */
function resultCode<Table extends Readonly<Record<string, string>>>(segment: Segment, position: number, table: Table): keyof Table & string {
  const value = requiredElement(segment, position);
  if (lookupCode(table, value) === undefined)
    throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not a known result code`, segment.position);
  return value;
}

/** An error code (IK304, IK403, IK502..., AK905..., TA105): kept even when the dictionary here lacks it. */
function errorCode(segment: Segment, position: number, table: Readonly<Record<string, string>>): AcknowledgementCode | undefined {
  const value = element(segment, position);
  if (value === undefined) return undefined;
  if (!CODE.test(value)) throw new AcknowledgementFormatError(`${segment.id}${String(position).padStart(2, '0')} is not an error code`, segment.position);
  return { code: value, description: lookupCode(table, value) };
}

function errorCodes(segment: Segment, first: number, last: number, table: Readonly<Record<string, string>>): AcknowledgementCode[] {
  const codes: AcknowledgementCode[] = [];
  for (let position = first; position <= last; position += 1) {
    const found = errorCode(segment, position, table);
    if (found !== undefined) codes.push(found);
  }
  return codes;
}

/** CTX segments give context (the member's id, the situational trigger a rule depends on); they are skipped. */
function skipContext(reader: SegmentReader): void {
  let context = reader.takeIf('CTX');
  while (context !== undefined) context = reader.takeIf('CTX');
}

function readTransactionSetAcknowledgement(reader: SegmentReader, ak2: Segment): TransactionSetAcknowledgement {
  const segmentErrors: SegmentError[] = [];
  for (let ik3 = reader.takeIf('IK3'); ik3 !== undefined; ik3 = reader.takeIf('IK3')) {
    const segmentId = requiredElement(ik3, 1);
    if (!SEGMENT_ID.test(segmentId)) throw new AcknowledgementFormatError('IK301 is not a segment id', ik3.position);
    const segmentError: SegmentError = {
      segmentId,
      position: numberElement(ik3, 2),
      loop: element(ik3, 3),
      error: errorCode(ik3, 4, SEGMENT_ERROR_CODES),
      elementErrors: [],
    };
    skipContext(reader);
    for (let ik4 = reader.takeIf('IK4'); ik4 !== undefined; ik4 = reader.takeIf('IK4')) {
      const [positionText, componentPosition, repetitionPosition] = requiredElement(ik4, 1).split(reader.component);
      const position = optionalNumber(positionText, ik4, 'IK401-1');
      if (position === undefined) throw new AcknowledgementFormatError('IK401-1 is missing', ik4.position);
      const error = errorCode(ik4, 3, ELEMENT_ERROR_CODES);
      if (error === undefined) throw new AcknowledgementFormatError('IK403 is missing', ik4.position);
      segmentError.elementErrors.push({
        position,
        componentPosition: optionalNumber(componentPosition, ik4, 'IK401-2'),
        repetitionPosition: optionalNumber(repetitionPosition, ik4, 'IK401-3'),
        elementReference: element(ik4, 2),
        error,
        badValue: element(ik4, 4),
      });
      skipContext(reader);
    }
    segmentErrors.push(segmentError);
  }
  const ik5 = reader.take('IK5', `the AK2 loop at segment ${ak2.position}`);
  return {
    transactionSetId: requiredElement(ak2, 1),
    controlNumber: requiredElement(ak2, 2),
    implementationReference: element(ak2, 3),
    result: resultCode(ik5, 1, TRANSACTION_SET_ACKNOWLEDGMENT_CODES),
    errors: errorCodes(ik5, 2, 6, TRANSACTION_SET_ERROR_CODES),
    segmentErrors,
  };
}

/** One 999 transaction set, ST through SE. */
function readImplementationAcknowledgement(reader: SegmentReader, envelope: AcknowledgementGroupEnvelope): FunctionalGroupAcknowledgement {
  const st = reader.take('ST', 'the functional group');
  const firstPosition = reader.position;
  if (element(st, 1) !== '999') throw new AcknowledgementFormatError('The transaction set is not a 999', st.position);
  const controlNumber = requiredElement(st, 2);
  const ak1 = reader.take('AK1', 'the 999');
  const transactionSets: TransactionSetAcknowledgement[] = [];
  for (let ak2 = reader.takeIf('AK2'); ak2 !== undefined; ak2 = reader.takeIf('AK2')) transactionSets.push(readTransactionSetAcknowledgement(reader, ak2));
  const ak9 = reader.take('AK9', 'the 999');
  const se = reader.take('SE', 'the 999');
  if (numberElement(se, 1) !== reader.position - firstPosition + 1)
    throw new AcknowledgementFormatError('SE01 does not count the segments of the 999', se.position);
  if (element(se, 2) !== controlNumber) throw new AcknowledgementFormatError('SE02 does not match ST02', se.position);
  return {
    envelope,
    acknowledgementControlNumber: controlNumber,
    functionalIdentifier: requiredElement(ak1, 1),
    groupControlNumber: requiredElement(ak1, 2),
    version: element(ak1, 3),
    result: resultCode(ak9, 1, FUNCTIONAL_GROUP_ACKNOWLEDGE_CODES),
    transactionSetsIncluded: numberElement(ak9, 2),
    transactionSetsReceived: numberElement(ak9, 3),
    transactionSetsAccepted: numberElement(ak9, 4),
    errors: errorCodes(ak9, 5, 9, FUNCTIONAL_GROUP_ERROR_CODES),
    transactionSets,
  };
}

function readInterchangeAcknowledgement(ta1: Segment): InterchangeAcknowledgement {
  const interchangeControlNumber = requiredElement(ta1, 1);
  if (!/^\d{9}$/.test(interchangeControlNumber)) throw new AcknowledgementFormatError('TA101 is not a nine-digit interchange control number', ta1.position);
  const note = errorCode(ta1, 5, INTERCHANGE_NOTE_CODES);
  if (note === undefined) throw new AcknowledgementFormatError('TA105 is missing', ta1.position);
  return {
    interchangeControlNumber,
    interchangeDate: requiredElement(ta1, 2),
    interchangeTime: requiredElement(ta1, 3),
    result: resultCode(ta1, 4, INTERCHANGE_ACKNOWLEDGMENT_CODES),
    note,
  };
}

/**
 * The 999s and TA1s of one interchange. Its envelopes are checked as a receiver checks them: control numbers
 * match (SE02 = ST02, GE02 = GS06, IEA02 = ISA13) and counts are right (SE01, GE01, IEA01).
 */
export function readAcknowledgement(text: string): Acknowledgement {
  if (typeof text !== 'string') throw new AcknowledgementFormatError('An acknowledgement must be text');
  if (text.length > MAX_ACKNOWLEDGEMENT_LENGTH)
    throw new AcknowledgementFormatError(`An acknowledgement longer than ${MAX_ACKNOWLEDGEMENT_LENGTH} characters is refused`);
  let start = 0;
  while (start < text.length && WHITE_SPACE.has(text.charAt(start))) start += 1;
  if (start === text.length) throw new AcknowledgementFormatError('The acknowledgement is empty');
  if (!text.startsWith('ISA', start)) throw new AcknowledgementFormatError('The acknowledgement does not start with an ISA segment');

  const delimiters = readDelimiters(text, start);
  const reader = new SegmentReader(splitSegments(text, start, delimiters), delimiters.component);
  const isa = reader.take('ISA', 'the interchange');
  if (isa.elements.length !== 17) throw new AcknowledgementFormatError('The ISA segment does not have 16 elements', isa.position);
  const isaElement = (position: number) => (isa.elements[position] ?? '').trim();
  const controlNumber = isaElement(13);
  if (!/^\d{9}$/.test(controlNumber)) throw new AcknowledgementFormatError('ISA13 is not a nine-digit interchange control number', isa.position);

  const interchangeAcknowledgements: InterchangeAcknowledgement[] = [];
  const groupAcknowledgements: FunctionalGroupAcknowledgement[] = [];
  for (let ta1 = reader.takeIf('TA1'); ta1 !== undefined; ta1 = reader.takeIf('TA1')) interchangeAcknowledgements.push(readInterchangeAcknowledgement(ta1));
  let groups = 0;
  for (let gs = reader.takeIf('GS'); gs !== undefined; gs = reader.takeIf('GS')) {
    groups += 1;
    if (element(gs, 1) !== 'FA') throw new AcknowledgementFormatError('The functional group is not an acknowledgement group (GS01 FA)', gs.position);
    const groupControlNumber = requiredElement(gs, 6);
    const envelope: AcknowledgementGroupEnvelope = {
      functionalIdentifier: 'FA',
      applicationSenderCode: requiredElement(gs, 2).trim(),
      applicationReceiverCode: requiredElement(gs, 3).trim(),
      controlNumber: groupControlNumber,
    };
    let transactionSets = 0;
    while (reader.peek()?.id === 'ST') {
      groupAcknowledgements.push(readImplementationAcknowledgement(reader, envelope));
      transactionSets += 1;
    }
    const ge = reader.take('GE', `the functional group at segment ${gs.position}`);
    if (numberElement(ge, 1) !== transactionSets) throw new AcknowledgementFormatError('GE01 does not count the transaction sets of the group', ge.position);
    if (element(ge, 2) !== groupControlNumber) throw new AcknowledgementFormatError('GE02 does not match GS06', ge.position);
  }
  const iea = reader.take('IEA', 'the interchange');
  if (numberElement(iea, 1) !== groups) throw new AcknowledgementFormatError('IEA01 does not count the functional groups', iea.position);
  if (element(iea, 2) !== controlNumber) throw new AcknowledgementFormatError('IEA02 does not match ISA13', iea.position);
  if (!reader.done) throw new AcknowledgementFormatError('Segments follow the IEA', reader.peek()?.position);
  if (interchangeAcknowledgements.length === 0 && groupAcknowledgements.length === 0) {
    throw new AcknowledgementFormatError('The interchange holds neither a TA1 nor a 999');
  }
  return {
    interchange: {
      senderQualifier: isaElement(5),
      senderId: isaElement(6),
      receiverQualifier: isaElement(7),
      receiverId: isaElement(8),
      controlNumber,
      date: isaElement(9),
      time: isaElement(10),
      usage: isaElement(15),
    },
    interchangeAcknowledgements,
    groupAcknowledgements,
  };
}
