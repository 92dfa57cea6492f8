/** What the 999/TA1 reader (x12-acknowledgement.ts) gives back: acknowledgements as plain data. */
import type { FunctionalGroupResult, InterchangeResult, TransactionSetResult } from './x12-codes.ts';

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
