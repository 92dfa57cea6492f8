/**
 * Who a person is to the carrier (docs/decisions.md "Carrier EDI (X12 834)"): the subscriber id a file sends
 * (REF*0F), the name as sent (for 2100B of a later name change) and the keyed digest of the demographics sent
 * (demographic maintenance). Pure: the file service loads the rows.
 */
import { hash } from 'node:crypto';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberFileRow } from './edi-file-content.repository.ts';
import type { CompanionGuide } from './edi-profile.ts';
import type { PersonName834 } from './x12-834-records.ts';

/** A member's personal data as the file needs it: the SSN decrypted only for the build. */
export interface MemberFacts {
  row: MemberFileRow;
  ssn: string | null;
  /** On a leave of absence as of the build (the employment history's latest leave entry is a leave without a return): INS08 L1. */
  onLeave?: boolean;
}

/**
 * REF*0F: where the profile says the subscriber id comes from. A member without an SSN under the `ssn` source
 * is identified by the member id (docs/decisions.md "Carrier EDI (X12 834)", Subscriber ids), NM108/NM109 left
 * out, rather than left out of every file.
 */
export function subscriberIdOf(guide: CompanionGuide, member: MemberFacts): string | undefined {
  switch (guide.subscriber_id_source) {
    case 'ssn':
      return member.ssn ?? member.row.id;
    case 'member_id':
      return member.row.id;
    case 'payroll_provider_external_id':
      return member.row.payroll_provider_external_id ?? undefined;
  }
}

/** A person's name as the carrier holds it: kept beside the digest, to send the prior name in 2100B. */
export interface SentName {
  last_name: string;
  first_name: string | null;
  middle_name: string | null;
}

/** The name of a member or dependent as the file sends it (members have no middle name). */
export function sentNameOf(person: { kind: 'member'; facts: MemberFacts } | { kind: 'dependent'; row: DependentRow }): SentName {
  return person.kind === 'member'
    ? { last_name: person.facts.row.last_name, first_name: person.facts.row.first_name, middle_name: null }
    : { last_name: person.row.last_name, first_name: person.row.first_name, middle_name: person.row.middle_name };
}

/** The prior name for 2100B: the name last sent when it differs from the name now, else null (nothing to correct, or not known). */
export function priorNameOf(sent: SentName | undefined, now: SentName): PersonName834 | null {
  if (sent === undefined) return null;
  if (sent.last_name === now.last_name && (sent.first_name ?? null) === (now.first_name ?? null) && (sent.middle_name ?? null) === (now.middle_name ?? null))
    return null;
  return { last: sent.last_name, first: sent.first_name, middle: sent.middle_name };
}

/**
 * A keyed digest of what the carrier holds about a person (name, address, birth date, SSN, sex): stored after
 * each file, so that the next change file sends maintenance when it differs. Keyed, so the stored digest of
 * an SSN cannot be reversed by trying every SSN.
 */
export function demographicsDigest(key: string, person: { kind: 'member'; facts: MemberFacts } | { kind: 'dependent'; row: DependentRow }): string {
  const fields =
    person.kind === 'member'
      ? [
          person.facts.row.first_name,
          null,
          person.facts.row.last_name,
          person.facts.row.address,
          person.facts.row.dob,
          person.facts.ssn,
          person.facts.row.biological_sex,
        ]
      : [
          person.row.first_name,
          person.row.middle_name,
          person.row.last_name,
          person.row.address,
          person.row.dob,
          person.row.ssn_last_four,
          person.row.biological_sex,
        ];
  // SHA-256 over a 256-bit secret and the fields, in one call: a keyed digest like an HMAC for this use (an
  // equality check of values the holder of the key wrote), at a fraction of an HMAC object's cost per person.
  return hash('sha256', key + JSON.stringify(fields), 'base64url');
}
