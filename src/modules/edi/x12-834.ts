/**
 * The X12 834 writer (ASC X12N 005010X220A1, Benefit Enrollment and Maintenance): one interchange (ISA/IEA)
 * holding one functional group (GS/GE) holding one transaction set (ST/SE), streamed as text chunks so that a
 * full file of 50,000 members never sits in memory whole. Pure: no database, no clock (the caller passes
 * `createdAt`), no I/O.
 *
 * Every element value goes through `sanitizeElement` (or one of the typed formatters beside it: dates, SSN,
 * FEIN, control numbers); a value that cannot be written as it is meant throws an X12ValueError naming the
 * element, so a bad record stops the file rather than reaching a carrier changed or misread.
 */
import { parseDate } from '../../shared/dates.ts';
import { ssnProblem } from '../../shared/ssn.ts';
import type { DependentRelationship, CoverageTier } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import {
  BENEFIT_ENROLLMENT_GUIDE,
  BENEFIT_STATUS_CODES,
  COVERAGE_LEVEL_CODES,
  DATE_QUALIFIERS,
  EMPLOYMENT_STATUS_CODES,
  FILE_ACTION_CODES,
  GENDER_CODES,
  INDIVIDUAL_RELATIONSHIP_CODES,
  INSURANCE_LINE_CODES,
  INTERCHANGE_ID_QUALIFIERS,
  MAINTENANCE_REASON_CODES,
  MAINTENANCE_TYPE_CODES,
  PAYER_ID_QUALIFIERS,
  lookupCode,
  type BenefitStatus,
  type DateQualifier,
  type EmploymentStatus834,
  type FileAction,
  type InterchangeIdQualifier,
  type MaintenanceReason,
  type MaintenanceType,
  type PayerIdQualifier,
} from './x12-codes.ts';

/** The delimiters written (ISA: element separator at position 3, ISA11 repetition, ISA16 component, then the terminator). */
export const X12_DELIMITERS = { element: '*', repetition: '^', component: ':', segment: '~' } as const;

/** A chunk is handed on once it holds this much text: bounded memory whatever the file's size. */
const CHUNK_SIZE = 64 * 1024;

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
 * be (José -> Jose), its runs of white space made one space, trimmed and cut to the element's maximum; an
 * `identifier` is only trimmed, and one too long is refused, since a cut identifier names someone else.
 */
export type X12ValueKind = 'text' | 'identifier';

/** Printable ASCII: the 005010 basic and extended character sets together. */
const CHARACTER_SET = /^[\x20-\x7E]*$/;
/** Printable ASCII, no leading, trailing or doubled space: already what the sanitizer would make of it. */
const PLAIN_TEXT = /^(?:[\x21-\x7E]+(?: [\x21-\x7E]+)*)?$/;
/** Any of X12_DELIMITERS. */
const DELIMITER_SEARCH = /[*~:^]/;
const COMBINING_MARKS = /\p{M}/gu;
const WHITE_SPACE_RUNS = /\s+/g;

/**
 * The one sanitizer of element values. Refuses a value that is not a string, holds a delimiter (`*`, `~`, `:`,
 * `^`) or a character outside the X12 character set, or is shorter than the element's minimum once made to fit.
 */
export function sanitizeElement(element: X12FreeFormElement, value: string, kind: X12ValueKind): string {
  if (typeof value !== 'string') throw new X12ValueError(element, 'must be a string');
  const [min, max] = ELEMENT_LENGTHS[element];
  // Most values are plain printable ASCII with single spaces: they need no normalizing (the common case, which
  // a 50,000-member file meets a million times).
  const plain = PLAIN_TEXT.test(value);
  let fitted = plain ? value : kind === 'text' ? value.normalize('NFKD').replace(COMBINING_MARKS, '').replace(WHITE_SPACE_RUNS, ' ').trim() : value.trim();
  if (DELIMITER_SEARCH.test(fitted)) throw new X12ValueError(element, 'holds an X12 delimiter (* ~ : ^)');
  if (!CHARACTER_SET.test(fitted)) throw new X12ValueError(element, 'holds a character outside the X12 character set (printable ASCII)');
  if (fitted.length > max) {
    if (kind === 'identifier') throw new X12ValueError(element, `is longer than ${max} characters`);
    fitted = fitted.slice(0, max).trimEnd();
  }
  if (fitted.length < min) throw new X12ValueError(element, min === 1 ? 'is empty' : `is shorter than ${min} characters`);
  return fitted;
}

/** `value` when given (not undefined, null or blank), sanitized; undefined otherwise. */
function optionalElement(element: X12FreeFormElement, value: string | null | undefined, kind: X12ValueKind): string | undefined {
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
function controlNumber(element: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > 999_999_999) throw new X12ValueError(element, 'must be a whole number from 1 to 999999999');
  return value;
}

function code<Table extends Readonly<Record<string, string | null>>>(element: string, table: Table, key: string): NonNullable<Table[keyof Table]> {
  const found = typeof key === 'string' ? lookupCode(table, key) : undefined;
  if (found === undefined) throw new X12ValueError(element, `has no code for ${JSON.stringify(key)}`);
  if (found === null) throw new X12ValueError(element, `005010X220A1 has no code for ${JSON.stringify(key)}: the carrier's companion guide must give one`);
  return found;
}

/** Everything about the file that is not a member: the envelope (ISA, GS) and the 834 header (BGN, REF, DTP, N1). */
export interface Envelope834 {
  /** ISA05/ISA06: the sender's id (at most 15 characters; padded) and who assigned it. */
  sender: { qualifier: InterchangeIdQualifier; id: string };
  /** ISA07/ISA08: the receiver's id and who assigned it. */
  receiver: { qualifier: InterchangeIdQualifier; id: string };
  /** ISA13 (= IEA02): unique per sender, 1..999999999, written with nine digits. */
  interchangeControlNumber: number;
  /** ISA14: whether a TA1 is wanted back. */
  acknowledgementRequested: boolean;
  /** ISA15: T or P. */
  usage: 'test' | 'production';
  /** ISA09/ISA10, GS04/GS05, BGN03/BGN04: written in UTC, which BGN05 says (UT). */
  createdAt: Date;
  /** GS02/GS03: the application sender and receiver codes agreed with the carrier. */
  applicationSenderCode: string;
  applicationReceiverCode: string;
  /** GS06 (= GE02). */
  groupControlNumber: number;
  /** ST02 (= SE02), written with at least four digits. */
  transactionSetControlNumber: number;
  /** BGN02: the sender's reference for this file. */
  referenceId: string;
  /** BGN08: changes only, a full replacement, or a full file to compare. */
  action: FileAction;
  /** REF*38: the master policy (group) number, when the carrier wants it. */
  masterPolicyNumber?: string;
  /** DTP*007 (file effective) and DTP*303 (maintenance effective), 'YYYY-MM-DD'. */
  fileEffectiveDate?: string;
  maintenanceEffectiveDate?: string;
  /** N1*P5 (1000A): the employer, with its FEIN (N103 FI). */
  sponsor: { name: string; fein: string };
  /** N1*IN (1000B): the carrier and its id. */
  payer: { name: string; idQualifier: PayerIdQualifier; id: string };
}

export interface PersonName834 {
  last: string;
  first?: string | null;
  middle?: string | null;
  suffix?: string | null;
}

export interface Address834 {
  line1: string;
  line2?: string | null;
  city: string;
  /** Two-letter state or province code. */
  state?: string | null;
  postalCode?: string | null;
  /** Two- or three-letter country code; written only for an address outside the US. */
  country?: string | null;
}

/** One 2300 loop: a coverage line of the member. */
export interface Coverage834 {
  /** HD01. */
  maintenanceType: MaintenanceType;
  /** HD03 from INSURANCE_LINE_CODES, unless `insuranceLineCode` is given. */
  line: LineOfCoverage;
  /**
   * HD03 as the carrier's companion guide has it (2-3 capital letters): a plan type (PPO for a medical plan),
   * or a code for a line the guide has none for (life, AD&D, ...).
   */
  insuranceLineCode?: string | null;
  /** HD04: the carrier's plan or coverage description. */
  planDescription?: string | null;
  /** HD05 from COVERAGE_LEVEL_CODES, unless `coverageLevelCode` is given. */
  tier?: CoverageTier | null;
  /** HD05 as the carrier's companion guide has it (3 capital letters or digits, e.g. E1D). */
  coverageLevelCode?: string | null;
  /** DTP*348 and DTP*349, 'YYYY-MM-DD'. */
  benefitBegin: string;
  benefitEnd?: string | null;
}

interface Member834 {
  /** INS03. */
  maintenanceType: MaintenanceType;
  /** INS04. */
  maintenanceReason?: MaintenanceReason | null;
  /** INS05; active when not given. */
  benefitStatus?: BenefitStatus;
  /** NM103-NM107. */
  name: PersonName834;
  /** NM109 with NM108 34, nine digits. */
  ssn?: string | null;
  /** N3/N4. */
  address?: Address834 | null;
  /** DMG02, 'YYYY-MM-DD'. */
  dateOfBirth: string;
  /** DMG03: F, M, or U when not recorded. */
  sex: 'male' | 'female' | null;
  /** REF*1L: the member's group or policy number. */
  memberPolicyNumber?: string | null;
  /** DTP*356/357. */
  eligibilityBegin?: string | null;
  eligibilityEnd?: string | null;
  /** The 2300 loops, in order. */
  coverages: readonly Coverage834[];
}

/** A subscriber and the dependents whose 2000 loops follow theirs. */
export interface Subscriber834 extends Member834 {
  /** REF*0F of the subscriber and of each of their dependents. */
  subscriberId: string;
  /** INS08. */
  employmentStatus: EmploymentStatus834;
  /** DTP*336/337. */
  employmentBegin?: string | null;
  employmentEnd?: string | null;
  dependents?: readonly Dependent834[];
}

export interface Dependent834 extends Member834 {
  /** INS02. */
  relationship: DependentRelationship;
}

export interface Write834Options {
  /** A line feed after each segment terminator, for people reading the file; off by default. */
  newlineAfterSegment?: boolean;
  /**
   * Called for a subscriber whose loops cannot be written (a value the guide does not allow): that subscriber
   * (with their dependents) is left out and the file goes on. Without it, such a subscriber ends the iteration
   * with an X12ValueError.
   */
  onInvalidSubscriber?: (subscriber: Subscriber834, error: X12ValueError) => void;
}

/** A segment's text without its terminator; trailing empty elements are dropped, as X12 requires. */
function segment(id: string, ...elements: (string | undefined)[]): string {
  let length = elements.length;
  while (length > 0 && (elements[length - 1] ?? '') === '') length -= 1;
  let text = id;
  for (let index = 0; index < length; index += 1) text += X12_DELIMITERS.element + (elements[index] ?? '');
  return text;
}

function dateSegment(qualifier: DateQualifier, element: string, date: string): string {
  return segment('DTP', DATE_QUALIFIERS[qualifier], 'D8', x12Date(element, date));
}

/** The UTC calendar date and time of `instant`, refused outside years 1..9999 (CCYYMMDD cannot hold them). */
function utcDateTime(instant: Date): { date: string; time: string } {
  if (!(instant instanceof Date) || Number.isNaN(instant.getTime())) throw new X12ValueError('ISA09', 'createdAt is not a valid date');
  const year = instant.getUTCFullYear();
  if (year < 1 || year > 9999) throw new X12ValueError('ISA09', 'createdAt is outside the years 1 to 9999');
  const two = (value: number) => String(value).padStart(2, '0');
  return {
    date: `${String(year).padStart(4, '0')}${two(instant.getUTCMonth() + 1)}${two(instant.getUTCDate())}`,
    time: `${two(instant.getUTCHours())}${two(instant.getUTCMinutes())}`,
  };
}

function interchangeId(element: 'ISA06' | 'ISA08', party: { qualifier: InterchangeIdQualifier; id: string }): [qualifier: string, id: string] {
  const qualifierElement = element === 'ISA06' ? 'ISA05' : 'ISA07';
  if (!(INTERCHANGE_ID_QUALIFIERS as readonly string[]).includes(party.qualifier))
    throw new X12ValueError(qualifierElement, 'is not an interchange ID qualifier of the guide');
  return [party.qualifier, sanitizeElement(element, party.id, 'identifier').padEnd(15, ' ')];
}

interface EnvelopeSegments {
  interchangeHeader: string;
  groupHeader: string;
  /** ST through the N1 loops: the first segments of the transaction set. */
  transactionHeader: string[];
  transactionSetControlNumber: string;
  groupControlNumber: string;
  interchangeControlNumber: string;
}

/** Validates the whole envelope and header before anything is written. */
function envelopeSegments(envelope: Envelope834): EnvelopeSegments {
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

/** The 2100A member name, address and demographics (NM1, N3, N4, DMG). */
function memberNameSegments(member: Member834): string[] {
  const name = member.name;
  const ssn = member.ssn === undefined || member.ssn === null ? undefined : x12SocialSecurityNumber(member.ssn);
  const segments = [
    segment(
      'NM1',
      'IL', // NM101: Insured or Subscriber (the member the loop is about)
      '1', // NM102: Person
      sanitizeElement('NM103', name.last, 'text'),
      optionalElement('NM104', name.first, 'text'),
      optionalElement('NM105', name.middle, 'text'),
      undefined,
      optionalElement('NM107', name.suffix, 'text'),
      ssn === undefined ? undefined : '34', // NM108: Social Security Number
      ssn,
    ),
  ];
  const address = member.address;
  if (address !== undefined && address !== null) {
    segments.push(segment('N3', sanitizeElement('N301', address.line1, 'text'), optionalElement('N302', address.line2, 'text')));
    const country = optionalElement('N404', address.country, 'identifier');
    segments.push(
      segment(
        'N4',
        sanitizeElement('N401', address.city, 'text'),
        optionalElement('N402', address.state, 'identifier'),
        optionalElement('N403', address.postalCode, 'identifier'),
        // N404 is for addresses outside the United States.
        country === undefined || country.toUpperCase() === 'US' || country.toUpperCase() === 'USA' ? undefined : country,
      ),
    );
  }
  segments.push(segment('DMG', 'D8', x12Date('DMG02', member.dateOfBirth), code('DMG03', GENDER_CODES, member.sex ?? 'unknown')));
  return segments;
}

/** An HD03 or HD05 code given by a companion guide: only its shape can be checked (HD03 ID 2/3, HD05 ID 3/3). */
const COMPANION_GUIDE_CODE = { HD03: /^[A-Z]{2,3}$/, HD05: /^[A-Z0-9]{3}$/ } as const;

function companionGuideCode(element: keyof typeof COMPANION_GUIDE_CODE, value: string): string {
  if (typeof value !== 'string' || !COMPANION_GUIDE_CODE[element].test(value)) throw new X12ValueError(element, 'is not a code of the right shape');
  return value;
}

/** The 2300 loops (HD, DTP*348, DTP*349). */
function coverageSegments(coverages: readonly Coverage834[]): string[] {
  const segments: string[] = [];
  for (const coverage of coverages) {
    const lineCode =
      coverage.insuranceLineCode === undefined || coverage.insuranceLineCode === null
        ? code('HD03', INSURANCE_LINE_CODES, coverage.line)
        : companionGuideCode('HD03', coverage.insuranceLineCode);
    let levelCode: string | undefined;
    if (coverage.coverageLevelCode !== undefined && coverage.coverageLevelCode !== null) levelCode = companionGuideCode('HD05', coverage.coverageLevelCode);
    else if (coverage.tier !== undefined && coverage.tier !== null) levelCode = code('HD05', COVERAGE_LEVEL_CODES, coverage.tier);
    segments.push(
      segment(
        'HD',
        code('HD01', MAINTENANCE_TYPE_CODES, coverage.maintenanceType),
        undefined, // HD02: not used
        lineCode,
        optionalElement('HD04', coverage.planDescription, 'text'),
        levelCode,
      ),
      dateSegment('benefit_begin', 'DTP03', coverage.benefitBegin),
    );
    if (coverage.benefitEnd !== undefined && coverage.benefitEnd !== null) segments.push(dateSegment('benefit_end', 'DTP03', coverage.benefitEnd));
  }
  return segments;
}

/** INS03, INS04 and INS05, shared by subscribers and dependents. */
function maintenanceElements(member: Member834): [type: string, reason: string | undefined, status: string] {
  return [
    code('INS03', MAINTENANCE_TYPE_CODES, member.maintenanceType),
    member.maintenanceReason === undefined || member.maintenanceReason === null ? undefined : code('INS04', MAINTENANCE_REASON_CODES, member.maintenanceReason),
    code('INS05', BENEFIT_STATUS_CODES, member.benefitStatus ?? 'active'),
  ];
}

function optionalDate(segments: string[], qualifier: DateQualifier, date: string | null | undefined): void {
  if (date !== undefined && date !== null) segments.push(dateSegment(qualifier, 'DTP03', date));
}

/** The 2000 loop of a subscriber, then one per dependent (INS01 N) with the subscriber's REF*0F. */
function familySegments(subscriber: Subscriber834): string[] {
  const subscriberId = sanitizeElement('REF02', subscriber.subscriberId, 'identifier');
  const segments = [
    segment(
      'INS',
      'Y',
      INDIVIDUAL_RELATIONSHIP_CODES.self,
      ...maintenanceElements(subscriber),
      undefined, // INS06 Medicare status
      undefined, // INS07 COBRA qualifying event
      code('INS08', EMPLOYMENT_STATUS_CODES, subscriber.employmentStatus),
    ),
    segment('REF', '0F', subscriberId),
  ];
  const policyNumber = optionalElement('REF02', subscriber.memberPolicyNumber, 'identifier');
  if (policyNumber !== undefined) segments.push(segment('REF', '1L', policyNumber));
  optionalDate(segments, 'employment_begin', subscriber.employmentBegin);
  optionalDate(segments, 'employment_end', subscriber.employmentEnd);
  optionalDate(segments, 'eligibility_begin', subscriber.eligibilityBegin);
  optionalDate(segments, 'eligibility_end', subscriber.eligibilityEnd);
  segments.push(...memberNameSegments(subscriber), ...coverageSegments(subscriber.coverages));

  for (const dependent of subscriber.dependents ?? []) {
    segments.push(segment('INS', 'N', code('INS02', INDIVIDUAL_RELATIONSHIP_CODES, dependent.relationship), ...maintenanceElements(dependent)));
    segments.push(segment('REF', '0F', subscriberId));
    const dependentPolicyNumber = optionalElement('REF02', dependent.memberPolicyNumber, 'identifier');
    if (dependentPolicyNumber !== undefined) segments.push(segment('REF', '1L', dependentPolicyNumber));
    optionalDate(segments, 'eligibility_begin', dependent.eligibilityBegin);
    optionalDate(segments, 'eligibility_end', dependent.eligibilityEnd);
    segments.push(...memberNameSegments(dependent), ...coverageSegments(dependent.coverages));
  }
  return segments;
}

/**
 * The 834 file of `subscribers` (each followed by their dependents), as chunks of text of about 64 KiB. The
 * envelope is checked when this is called (a bad one throws here); a bad member throws from the iteration,
 * after earlier chunks went out, so a consumer must discard what it got on an error. SE01, GE01 and IEA01
 * are counted here.
 */
export function write834(
  envelope: Envelope834,
  subscribers: Iterable<Subscriber834> | AsyncIterable<Subscriber834>,
  options: Write834Options = {},
): AsyncIterable<string> {
  const header = envelopeSegments(envelope);
  return streamSegments(header, subscribers, X12_DELIMITERS.segment + (options.newlineAfterSegment === true ? '\n' : ''), options.onInvalidSubscriber);
}

async function* streamSegments(
  header: EnvelopeSegments,
  subscribers: Iterable<Subscriber834> | AsyncIterable<Subscriber834>,
  terminator: string,
  onInvalidSubscriber: Write834Options['onInvalidSubscriber'],
): AsyncGenerator<string, void, undefined> {
  let chunk = header.interchangeHeader + terminator + header.groupHeader + terminator;
  // SE01 counts ST through SE.
  let transactionSegments = 0;
  for (const text of header.transactionHeader) {
    chunk += text + terminator;
    transactionSegments += 1;
  }
  let subscriberIndex = 0;
  for await (const subscriber of subscribers) {
    let segments: string[];
    try {
      segments = familySegments(subscriber);
    } catch (error) {
      if (!(error instanceof X12ValueError)) throw error;
      const located = new X12ValueError(error.element, error.reason, subscriberIndex);
      if (!onInvalidSubscriber) throw located;
      onInvalidSubscriber(subscriber, located);
      subscriberIndex += 1;
      continue;
    }
    for (const text of segments) chunk += text + terminator;
    transactionSegments += segments.length;
    subscriberIndex += 1;
    if (chunk.length >= CHUNK_SIZE) {
      yield chunk;
      chunk = '';
    }
  }
  transactionSegments += 1;
  chunk += segment('SE', String(transactionSegments), header.transactionSetControlNumber) + terminator;
  // One transaction set in the group, one group in the interchange.
  chunk += segment('GE', '1', header.groupControlNumber) + terminator;
  chunk += segment('IEA', '1', header.interchangeControlNumber) + terminator;
  yield chunk;
}

/** The whole file as one string: for tests and small files. */
export async function write834ToString(
  envelope: Envelope834,
  subscribers: Iterable<Subscriber834> | AsyncIterable<Subscriber834>,
  options: Write834Options = {},
): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of write834(envelope, subscribers, options)) chunks.push(chunk);
  return chunks.join('');
}
