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
} from './x12-codes.ts';

/** Acknowledgements are small (a 999 for a 50,000-member file with every member in error is well under this). */
export const MAX_ACKNOWLEDGEMENT_LENGTH = 1_000_000;
import type {
  Acknowledgement,
  AcknowledgementGroupEnvelope,
  FunctionalGroupAcknowledgement,
  InterchangeAcknowledgement,
  SegmentError,
  TransactionSetAcknowledgement,
} from './x12-acknowledgement-records.ts';
import {
  AcknowledgementFormatError,
  SEGMENT_ID,
  SegmentReader,
  WHITE_SPACE,
  element,
  errorCode,
  errorCodes,
  numberElement,
  optionalNumber,
  readDelimiters,
  requiredElement,
  resultCode,
  skipContext,
  splitSegments,
  type Segment,
} from './x12-segment-reader.ts';

export { AcknowledgementFormatError } from './x12-segment-reader.ts';
export type { Acknowledgement, FunctionalGroupAcknowledgement, InterchangeAcknowledgement } from './x12-acknowledgement-records.ts';

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
