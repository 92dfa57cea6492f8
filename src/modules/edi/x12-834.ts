/**
 * The X12 834 writer (ASC X12N 005010X220A1, Benefit Enrollment and Maintenance): one interchange (ISA/IEA)
 * holding one functional group (GS/GE) holding one transaction set (ST/SE), streamed as text chunks so that a
 * full file of 50,000 members never sits in memory whole. Pure: no database, no clock (the caller passes
 * `createdAt`), no I/O.
 *
 * Every element value goes through `sanitizeElement` (or one of the typed formatters beside it in x12-elements.ts: dates, SSN,
 * FEIN, control numbers); a value that cannot be written as it is meant throws an X12ValueError naming the
 * element, so a bad record stops the file rather than reaching a carrier changed or misread.
 */
import {
  BENEFIT_STATUS_CODES,
  COVERAGE_LEVEL_CODES,
  EMPLOYMENT_STATUS_CODES,
  GENDER_CODES,
  INDIVIDUAL_RELATIONSHIP_CODES,
  INSURANCE_LINE_CODES,
  MAINTENANCE_REASON_CODES,
  MAINTENANCE_TYPE_CODES,
  type DateQualifier,
} from './x12-codes.ts';
import { envelopeSegments, type EnvelopeSegments } from './x12-834-envelope.ts';
import type { Coverage834, DemographicChange834, Envelope834, Member834, PersonName834, Subscriber834, Write834Options } from './x12-834-records.ts';
import {
  addressLineElements,
  code,
  dateSegment,
  optionalElement,
  sanitizeElement,
  segment,
  X12_DELIMITERS,
  X12ValueError,
  x12Date,
  x12SocialSecurityNumber,
} from './x12-elements.ts';

/** A chunk is handed on once it holds this much text: bounded memory whatever the file's size. */
const CHUNK_SIZE = 64 * 1024;

/** NM103-NM107 of a person's name. */
function nameElements(name: PersonName834): (string | undefined)[] {
  return [
    sanitizeElement('NM103', name.last, 'text'),
    optionalElement('NM104', name.first, 'text'),
    optionalElement('NM105', name.middle, 'text'),
    undefined, // NM106: not used
    optionalElement('NM107', name.suffix, 'text'),
  ];
}

/**
 * The 2100A member name, address and demographics (NM1, N3, N4, DMG), then, when the loop corrects the
 * person's name, 2100B with the name the carrier holds (NM1*70).
 */
function memberNameSegments(member: Member834, correction?: DemographicChange834): string[] {
  const ssn = member.ssn === undefined || member.ssn === null ? undefined : x12SocialSecurityNumber(member.ssn);
  const priorName = correction?.priorName ?? undefined;
  const segments = [
    segment(
      'NM1',
      // NM101 (98): 74 Corrected Insured when the loop corrects the identifying data (2100B names what it was),
      // IL Insured or Subscriber otherwise (005010X220A1 2100A NM101).
      priorName === undefined ? 'IL' : '74',
      '1', // NM102: Person
      ...nameElements(member.name),
      ssn === undefined ? undefined : '34', // NM108: Social Security Number
      ssn,
    ),
  ];
  const address = member.address;
  if (address !== undefined && address !== null) {
    segments.push(segment('N3', ...addressLineElements(address.line1, address.line2)));
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
  // 2100B Incorrect Member Name (005010X220A1): NM101 70 Prior Incorrect Insured, the name as last sent. Its DMG
  // is sent only when the birth date or gender is corrected, which the service cannot tell apart: none.
  if (priorName !== undefined) segments.push(segment('NM1', '70', '1', ...nameElements(priorName)));
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
    if (coverage.benefitEnd !== undefined && coverage.benefitEnd !== null) {
      // A benefit never ends before it begins: cancelling coverage that never started ends it on its first day.
      if (coverage.benefitEnd < coverage.benefitBegin) throw new X12ValueError('DTP03', 'DTP*349 is before DTP*348');
      segments.push(dateSegment('benefit_end', 'DTP03', coverage.benefitEnd));
    }
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

/**
 * The 2000 loops of one person: a demographic change (INS03 001, INS04 25 Change in Identifying Data Elements,
 * DTP*303, 2100B) is a loop of its own, never merged into the loop of another change of the person, so that it
 * comes first when the person has coverage loops too; then the person's own loop.
 */
function personSegments(
  member: Member834,
  insElements: (loop: Member834) => (string | undefined)[],
  dates: (loop: Member834, segments: string[]) => void,
  subscriberId: string,
): string[] {
  const segments: string[] = [];
  const loops: { loop: Member834; correction?: DemographicChange834 }[] = [];
  const change = member.demographicChange ?? undefined;
  if (change !== undefined && member.coverages.length > 0) {
    loops.push({
      loop: {
        ...member,
        maintenanceType: 'change',
        maintenanceReason: 'change_in_identifying_data',
        eligibilityBegin: null,
        eligibilityEnd: null,
        coverages: [],
      },
      correction: change,
    });
    loops.push({ loop: member });
  } else loops.push(change === undefined ? { loop: member } : { loop: member, correction: change });
  for (const { loop, correction } of loops) {
    segments.push(segment('INS', ...insElements(loop)));
    segments.push(segment('REF', '0F', subscriberId));
    const policyNumber = optionalElement('REF02', loop.memberPolicyNumber, 'identifier');
    if (policyNumber !== undefined) segments.push(segment('REF', '1L', policyNumber));
    // DTP*303 Maintenance Effective (005010X220A1 2000 DTP01): when the demographic change takes effect.
    if (correction !== undefined) optionalDate(segments, 'maintenance_effective', correction.effective);
    dates(loop, segments);
    segments.push(...memberNameSegments(loop, correction), ...coverageSegments(loop.coverages));
  }
  return segments;
}

/** The 2000 loop of a subscriber, then one per dependent (INS01 N) with the subscriber's REF*0F. */
function familySegments(subscriber: Subscriber834): string[] {
  const subscriberId = sanitizeElement('REF02', subscriber.subscriberId, 'identifier');
  const segments = personSegments(
    subscriber,
    (loop) => [
      'Y',
      INDIVIDUAL_RELATIONSHIP_CODES.self,
      ...maintenanceElements(loop),
      '', // INS06 Medicare status
      '', // INS07 COBRA qualifying event
      code('INS08', EMPLOYMENT_STATUS_CODES, subscriber.employmentStatus),
    ],
    (loop, dates) => {
      optionalDate(dates, 'employment_begin', subscriber.employmentBegin);
      optionalDate(dates, 'employment_end', subscriber.employmentEnd);
      optionalDate(dates, 'eligibility_begin', loop.eligibilityBegin);
      optionalDate(dates, 'eligibility_end', loop.eligibilityEnd);
    },
    subscriberId,
  );
  for (const dependent of subscriber.dependents ?? []) {
    segments.push(
      ...personSegments(
        dependent,
        (loop) => ['N', code('INS02', INDIVIDUAL_RELATIONSHIP_CODES, dependent.relationship), ...maintenanceElements(loop)],
        (loop, dates) => {
          optionalDate(dates, 'eligibility_begin', loop.eligibilityBegin);
          optionalDate(dates, 'eligibility_end', loop.eligibilityEnd);
        },
        subscriberId,
      ),
    );
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
