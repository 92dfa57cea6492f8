import { createHmac, hkdfSync } from 'node:crypto';

/**
 * What makes nine digits an SSN the Social Security Administration issues: the one check, used by the API
 * (members' and dependents' `ssn`) and by the 834 writer (NM109, edi/x12-834.ts), so that nothing the API
 * accepts is refused when the carrier's file is built (docs/decisions.md "SSNs"). Rules are rows, each with its
 * source; a message names the part of the number, never the number.
 *
 * The structure (area-group-serial, 3-2-4 digits) and what is never issued: SSA, "Social Security Number
 * Randomization" (https://www.ssa.gov/employer/randomization.html, 2011: areas 000, 666 and 900-999 remain
 * unassigned) and SSA Program Operations Manual System RM 10201.035 ("no SSN with 000 in the first three
 * positions, 00 in the fourth and fifth, or 0000 in the last four is issued"), also Social Security Bulletin
 * Vol. 69 No. 2 (2009), "The SSN and its history".
 */
interface SsnRule {
  /** Which digits (0-based, end excluded) the rule reads. */
  digits: readonly [number, number];
  refuses: (part: string) => boolean;
  message: string;
}

export const SSN_RULES: readonly SsnRule[] = [
  // SSA randomization (2011) and POMS RM 10201.035: area number 000 is never issued.
  { digits: [0, 3], refuses: (area) => area === '000', message: 'The area number (the first three digits) 000 is never issued.' },
  // SSA randomization (2011): area number 666 is never issued.
  { digits: [0, 3], refuses: (area) => area === '666', message: 'The area number (the first three digits) 666 is never issued.' },
  // SSA randomization (2011): area numbers 900-999 are never issued (reserved, e.g. for ITINs, which are not SSNs).
  { digits: [0, 3], refuses: (area) => area >= '900', message: 'Area numbers (the first three digits) 900-999 are never issued.' },
  // POMS RM 10201.035: group number 00 is never issued.
  { digits: [3, 5], refuses: (group) => group === '00', message: 'The group number (the fourth and fifth digits) 00 is never issued.' },
  // POMS RM 10201.035: serial number 0000 is never issued.
  { digits: [5, 9], refuses: (serial) => serial === '0000', message: 'The serial number (the last four digits) 0000 is never issued.' },
];

/**
 * The shapes an SSN is accepted in: 9 digits, or written with dashes as 123-45-6789 (docs/decisions.md "SSNs").
 * Anything else is refused by the schema, whose message never repeats the value.
 */
export const SSN_INPUT_PATTERN = '^(?:[0-9]{9}|[0-9]{3}-[0-9]{2}-[0-9]{4})$';

/** The SSN of a request as it is stored, checked and sent: 9 digits (dashes dropped); null and undefined as they are. */
export function normalizeSsn<T extends string | null | undefined>(ssn: T): T {
  return (typeof ssn === 'string' ? ssn.replaceAll('-', '') : ssn) as T;
}

/** A request body with its `ssn` (when it has one) normalized (normalizeSsn). */
export function withNormalizedSsn<T extends { ssn?: string | null | undefined }>(input: T): T {
  return typeof input.ssn === 'string' ? { ...input, ssn: normalizeSsn(input.ssn) } : input;
}

/** Why `value` is not an SSN the SSA issues, or undefined when it is one. Never repeats the value. */
export function ssnProblem(value: string): string | undefined {
  if (typeof value !== 'string' || !/^[0-9]{9}$/.test(value)) return 'An SSN is exactly 9 digits.';
  for (const rule of SSN_RULES) {
    if (rule.refuses(value.slice(rule.digits[0], rule.digits[1]))) return `Not an SSN the SSA issues: ${rule.message}`;
  }
  return undefined;
}

/**
 * A keyed digest of an SSN (HMAC-SHA256 with a key of its own derived from the service key), stored beside the
 * ciphertext so that one employer's members can be held to distinct SSNs by a unique index. Keyed, never a plain
 * hash: there are only a billion SSNs, and a plain hash of each is a lookup table away.
 */
export class SsnDigester {
  readonly #key: Buffer;
  constructor(encryptionKey: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'benefits member ssn digest', 32));
  }

  digest(ssn: string): string {
    return createHmac('sha256', this.#key).update(ssn, 'utf8').digest('base64url');
  }
}
