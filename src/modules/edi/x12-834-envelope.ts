/** The 834's envelope and header (ISA, GS, ST, BGN, REF*38, DTP*007/303, N1*P5, N1*IN), validated whole before anything is written. */
import { BENEFIT_ENROLLMENT_GUIDE, FILE_ACTION_CODES, INTERCHANGE_ID_QUALIFIERS, PAYER_ID_QUALIFIERS, type InterchangeIdQualifier } from './x12-codes.ts';
import type { Envelope834 } from './x12-834-records.ts';
import {
  code,
  controlNumber,
  ISA_LENGTH,
  X12_DELIMITERS,
  dateSegment,
  optionalElement,
  sanitizeElement,
  segment,
  utcDateTime,
  X12ValueError,
  x12EmployerIdentificationNumber,
} from './x12-elements.ts';

function interchangeId(element: 'ISA06' | 'ISA08', party: { qualifier: InterchangeIdQualifier; id: string }): [qualifier: string, id: string] {
  const qualifierElement = element === 'ISA06' ? 'ISA05' : 'ISA07';
  if (!(INTERCHANGE_ID_QUALIFIERS as readonly string[]).includes(party.qualifier))
    throw new X12ValueError(qualifierElement, 'is not an interchange ID qualifier of the guide');
  return [party.qualifier, sanitizeElement(element, party.id, 'identifier').padEnd(15, ' ')];
}

export interface EnvelopeSegments {
  interchangeHeader: string;
  groupHeader: string;
  /** ST through the N1 loops: the first segments of the transaction set. */
  transactionHeader: string[];
  transactionSetControlNumber: string;
  groupControlNumber: string;
  interchangeControlNumber: string;
}

/** Validates the whole envelope and header before anything is written. */
export function envelopeSegments(envelope: Envelope834): EnvelopeSegments {
  const { date, time } = utcDateTime(envelope.createdAt);
  const [senderQualifier, senderId] = interchangeId('ISA06', envelope.sender);
  const [receiverQualifier, receiverId] = interchangeId('ISA08', envelope.receiver);
  const interchangeControlNumber = String(controlNumber('ISA13', envelope.interchangeControlNumber)).padStart(9, '0');
  if (typeof envelope.acknowledgementRequested !== 'boolean') throw new X12ValueError('ISA14', 'must be true or false');
  const usage = envelope.usage === 'production' ? 'P' : envelope.usage === 'test' ? 'T' : undefined;
  if (usage === undefined) throw new X12ValueError('ISA15', 'must be test or production');
  const interchangeHeader = segment(
    'ISA',
    '00', // ISA01: no authorization information
    ' '.repeat(10),
    '00', // ISA03: no security information
    ' '.repeat(10),
    senderQualifier,
    senderId,
    receiverQualifier,
    receiverId,
    date.slice(2), // ISA09 YYMMDD
    time,
    X12_DELIMITERS.repetition, // ISA11
    '00501', // ISA12
    interchangeControlNumber,
    envelope.acknowledgementRequested ? '1' : '0',
    usage,
    X12_DELIMITERS.component, // ISA16
  );
  // Every ISA element has a fixed width, so this only fails on a bug here.
  if (interchangeHeader.length + 1 !== ISA_LENGTH) throw new Error(`ISA is ${interchangeHeader.length + 1} characters, not ${ISA_LENGTH}`);

  const groupControlNumber = String(controlNumber('GS06', envelope.groupControlNumber));
  const groupHeader = segment(
    'GS',
    'BE', // GS01: Benefit Enrollment and Maintenance (834)
    sanitizeElement('GS02', envelope.applicationSenderCode, 'identifier'),
    sanitizeElement('GS03', envelope.applicationReceiverCode, 'identifier'),
    date,
    time,
    groupControlNumber,
    'X', // GS07: Accredited Standards Committee X12
    BENEFIT_ENROLLMENT_GUIDE,
  );

  const transactionSetControlNumber = String(controlNumber('ST02', envelope.transactionSetControlNumber)).padStart(4, '0');
  const transactionHeader = [
    segment('ST', '834', transactionSetControlNumber, BENEFIT_ENROLLMENT_GUIDE),
    // BGN01 00 Original; BGN05 UT: createdAt is written in UTC.
    segment(
      'BGN',
      '00',
      sanitizeElement('BGN02', envelope.referenceId, 'identifier'),
      date,
      time,
      'UT',
      undefined,
      undefined,
      code('BGN08', FILE_ACTION_CODES, envelope.action),
    ),
  ];
  const masterPolicyNumber = optionalElement('REF02', envelope.masterPolicyNumber, 'identifier');
  if (masterPolicyNumber !== undefined) transactionHeader.push(segment('REF', '38', masterPolicyNumber));
  if (envelope.fileEffectiveDate !== undefined) transactionHeader.push(dateSegment('file_effective', 'DTP03', envelope.fileEffectiveDate));
  if (envelope.maintenanceEffectiveDate !== undefined) transactionHeader.push(dateSegment('maintenance_effective', 'DTP03', envelope.maintenanceEffectiveDate));
  transactionHeader.push(
    segment('N1', 'P5', sanitizeElement('N102', envelope.sponsor.name, 'text'), 'FI', x12EmployerIdentificationNumber('N104', envelope.sponsor.fein)),
    segment('N1', 'IN', sanitizeElement('N102', envelope.payer.name, 'text'), ...payerId(envelope.payer)),
  );
  return { interchangeHeader, groupHeader, transactionHeader, transactionSetControlNumber, groupControlNumber, interchangeControlNumber };
}

function payerId(payer: Envelope834['payer']): [qualifier: string, id: string] {
  if (!(PAYER_ID_QUALIFIERS as readonly string[]).includes(payer.idQualifier)) throw new X12ValueError('N103', 'is not a payer ID qualifier of the guide');
  const id = payer.idQualifier === 'FI' ? x12EmployerIdentificationNumber('N104', payer.id) : sanitizeElement('N104', payer.id, 'identifier');
  return [payer.idQualifier, id];
}
