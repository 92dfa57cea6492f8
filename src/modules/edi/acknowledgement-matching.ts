/**
 * Whether a carrier's 999 or TA1 is about one of our 834 files, element by element (docs/decisions.md, "Carrier
 * EDI", acknowledgements). Pure: the caller gives the acknowledgement as read (x12-acknowledgement.ts) and what
 * the file was sent with (its control numbers and its group's profile). Everything the envelope says must be
 * what the carrier would answer to that file:
 *
 * - ISA05/ISA06, the acknowledgement's sender, is the file's receiver (the profile's interchange_receiver), and
 *   ISA07/ISA08, its receiver, is the file's sender (the profile's interchange_sender);
 * - a 999's GS02/GS03 are the file's GS03/GS02 (GS01 FA is the reader's check); AK101 is BE (an 834's group),
 *   AK102 is the file's GS06 written as digits; the group had one transaction set (AK902); every AK2 is about the
 *   file's transaction set (AK201 834, AK202 its ST02 exactly), and there is one when the group was partially
 *   accepted (AK901 P: the set's IK501 decides);
 * - a TA1's TA101 is the file's ISA13.
 *
 * Control numbers are compared as digits, never through Number(): GS06 and AK102 are N0 of 1 to 9 digits, so
 * `000000001` is a rendering of 1 (leading zeros are accepted), while `+1`, `1.0`, `0x1`, `1e0` or ` 1` are not
 * numbers in X12 and name no group of ours.
 */
import type { Acknowledgement, FunctionalGroupAcknowledgement, InterchangeAcknowledgement } from './x12-acknowledgement.ts';

/** The functional identifier of an 834's group (GS01), which AK101 echoes. */
const BENEFIT_ENROLLMENT_GROUP = 'BE';
const BENEFIT_ENROLLMENT_SET = '834';
/** The most of a value from the acknowledgement shown in a reason: it is hostile input. */
const SHOWN_CHARACTERS = 35;

export type AcknowledgementResult = 'accepted' | 'accepted_with_errors' | 'rejected';

/** What an acknowledgement says of one file: its result and the codes behind it. */
export interface Verdict {
  kind: '999' | 'TA1';
  /** undefined: a TA1 that accepts the envelope only (the 999 tells about the content). */
  result: AcknowledgementResult | undefined;
  codes: string[];
}

/** What one of our files was sent with: its control numbers and its trading-partner ids (from its group's profile). */
export interface SentEnvelope {
  /** ISA05/ISA06 of the file: us. */
  senderQualifier: string;
  senderId: string;
  /** ISA07/ISA08 of the file: the carrier. */
  receiverQualifier: string;
  receiverId: string;
  /** GS02 and GS03 of the file. */
  applicationSenderCode: string;
  applicationReceiverCode: string;
  interchangeControlNumber: number;
  groupControlNumber: number;
  transactionSetControlNumber: string;
}

/** One element of the acknowledgement that is not what the file's carrier would have sent. */
export interface Mismatch {
  /** The X12 element, e.g. ISA08, AK101. */
  element: string;
  expected: string;
  /** As the acknowledgement has it (shortened, on one line). */
  found: string;
}

export type AcknowledgementMatch =
  | { kind: 'matched'; verdict: Verdict }
  /** It names the file's control number, but some element says it is not about the file. */
  | { kind: 'mismatched'; mismatches: Mismatch[] }
  /** It names neither the file's functional group (AK102) nor its interchange (TA101). */
  | { kind: 'unrelated' };

/**
 * The canonical digits of an X12 N0 control number (GS06, AK102: 1 to 9 digits; ISA13, TA101: 9), without
 * leading zeros; undefined when the text is not digits alone (a sign, a point, an exponent, hex, spaces).
 */
export function controlNumberDigits(text: string, maxDigits = 9): string | undefined {
  if (text.length === 0 || text.length > maxDigits) return undefined;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 48 || code > 57) return undefined;
  }
  const trimmed = text.replace(/^0+/, '');
  return trimmed === '' ? '0' : trimmed;
}

/** A value from the acknowledgement as a reason shows it: control characters out, at most SHOWN_CHARACTERS. */
export function shown(value: string | undefined): string {
  if (value === undefined || value === '') return '(empty)';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
  const line = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return line.length > SHOWN_CHARACTERS ? `${line.slice(0, SHOWN_CHARACTERS)}…` : line;
}

function compare(mismatches: Mismatch[], element: string, expected: string, found: string | undefined): void {
  if (found !== expected) mismatches.push({ element, expected, found: shown(found) });
}

/** ISA05-ISA08 of the acknowledgement against the file's ISA07/ISA08 and ISA05/ISA06, swapped. */
function interchangeMismatches(acknowledgement: Acknowledgement, sent: SentEnvelope): Mismatch[] {
  const { interchange } = acknowledgement;
  const mismatches: Mismatch[] = [];
  compare(mismatches, 'ISA05', sent.receiverQualifier, interchange.senderQualifier);
  compare(mismatches, 'ISA06', sent.receiverId, interchange.senderId);
  compare(mismatches, 'ISA07', sent.senderQualifier, interchange.receiverQualifier);
  compare(mismatches, 'ISA08', sent.senderId, interchange.receiverId);
  return mismatches;
}

/** Whether a 999's AK102 is the file's GS06 (as digits). */
export function namesGroup(group: FunctionalGroupAcknowledgement, sent: Pick<SentEnvelope, 'groupControlNumber'>): boolean {
  return controlNumberDigits(group.groupControlNumber) === String(sent.groupControlNumber);
}

/** Whether a TA1's TA101 is the file's ISA13 (nine digits, the reader's check). */
export function namesInterchange(ta1: InterchangeAcknowledgement, sent: Pick<SentEnvelope, 'interchangeControlNumber'>): boolean {
  return controlNumberDigits(ta1.interchangeControlNumber) === String(sent.interchangeControlNumber);
}

/** What of a 999 naming the file's group is not about the file (its functional group and transaction set). */
function groupMismatches(group: FunctionalGroupAcknowledgement, sent: SentEnvelope): Mismatch[] {
  const mismatches: Mismatch[] = [];
  compare(mismatches, 'GS02', sent.applicationReceiverCode, group.envelope.applicationSenderCode);
  compare(mismatches, 'GS03', sent.applicationSenderCode, group.envelope.applicationReceiverCode);
  compare(mismatches, 'AK101', BENEFIT_ENROLLMENT_GROUP, group.functionalIdentifier);
  // Our group carries one transaction set (GE01 1).
  compare(mismatches, 'AK902', '1', String(group.transactionSetsIncluded));
  if (group.transactionSets.length > 1) {
    mismatches.push({ element: 'AK2', expected: 'one transaction set', found: `${group.transactionSets.length} AK2 loops` });
  }
  for (const set of group.transactionSets) {
    compare(mismatches, 'AK201', BENEFIT_ENROLLMENT_SET, set.transactionSetId);
    compare(mismatches, 'AK202', sent.transactionSetControlNumber, set.controlNumber);
  }
  // P: the transaction set's IK501 decides, so the set must be reported.
  if (group.result === 'P' && group.transactionSets.length === 0) {
    mismatches.push({ element: 'AK2', expected: `${BENEFIT_ENROLLMENT_SET} ${sent.transactionSetControlNumber}`, found: '(none, with AK901 P)' });
  }
  return mismatches;
}

/**
 * The result of a 999's group (AK901) for our one transaction set: A accepted, E accepted with errors, P
 * (partially accepted) as the set's IK501 says, M/R/W/X rejected (005010X231A1 AK901 715, IK501 717).
 */
function verdictOf999(group: FunctionalGroupAcknowledgement): Verdict {
  const set = group.transactionSets[0];
  const codes = [
    `AK9:${group.result}`,
    ...group.errors.map((error) => `AK9:${error.code}`),
    ...(set
      ? [
          `IK5:${set.result}`,
          ...set.errors.map((error) => `IK5:${error.code}`),
          ...set.segmentErrors.flatMap((segment) => [
            ...(segment.error ? [`IK3:${segment.segmentId}@${segment.position}:${segment.error.code}`] : []),
            ...segment.elementErrors.map((element) => `IK4:${segment.segmentId}${String(element.position).padStart(2, '0')}:${element.error.code}`),
          ]),
        ]
      : []),
  ];
  const effective = group.result === 'P' ? (set?.result ?? 'R') : group.result;
  const result: AcknowledgementResult = effective === 'A' ? 'accepted' : effective === 'E' ? 'accepted_with_errors' : 'rejected';
  return { kind: '999', result, codes };
}

/** TA104 (X12.5 I17): R rejects the whole interchange; A and E accept the envelope and leave the content to the 999. */
function verdictOfTa1(ta1: InterchangeAcknowledgement): Verdict {
  return { kind: 'TA1', result: ta1.result === 'R' ? 'rejected' : undefined, codes: [`TA1:${ta1.result}`, `TA105:${ta1.note.code}`] };
}

/**
 * Whether `acknowledgement` is about the file sent with `sent`: a 999 naming its group is looked at first (it
 * tells about the content), then a TA1 naming its interchange. Of several naming it, the first that matches in
 * every element decides; when none does, the first one's mismatches are the answer.
 */
export function matchAcknowledgement(acknowledgement: Acknowledgement, sent: SentEnvelope): AcknowledgementMatch {
  const envelope = interchangeMismatches(acknowledgement, sent);
  let firstMismatches: Mismatch[] | undefined;
  for (const group of acknowledgement.groupAcknowledgements) {
    if (!namesGroup(group, sent)) continue;
    const mismatches = [...envelope, ...groupMismatches(group, sent)];
    if (mismatches.length === 0) return { kind: 'matched', verdict: verdictOf999(group) };
    firstMismatches ??= mismatches;
  }
  for (const ta1 of acknowledgement.interchangeAcknowledgements) {
    if (!namesInterchange(ta1, sent)) continue;
    if (envelope.length === 0) return { kind: 'matched', verdict: verdictOfTa1(ta1) };
    firstMismatches ??= envelope;
  }
  return firstMismatches ? { kind: 'mismatched', mismatches: firstMismatches } : { kind: 'unrelated' };
}

/** Mismatches as one sentence: "ISA08 is OTHER (expected BENEFITSCO); AK101 is HC (expected BE)". */
export function describeMismatches(mismatches: readonly Mismatch[]): string {
  return mismatches.map((mismatch) => `${mismatch.element} is ${mismatch.found} (expected ${mismatch.expected})`).join('; ');
}
