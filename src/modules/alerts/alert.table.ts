import type { Selectable } from 'kysely';

/**
 * Who an alert is for. The contract's notifications have a fixed set of types and owners (member, employer,
 * broker) that this service does not extend, so what a provider's admins, an employer's HR or a member must
 * act on beyond them is an alert (docs/decisions.md "Alerts").
 */
export const ALERT_AUDIENCES = ['admin', 'employer', 'member'] as const;
export type AlertAudience = (typeof ALERT_AUDIENCES)[number];

/**
 * What happened. edi_unmapped_line: a benefit change waits for an 834 code mapping of its line;
 * edi_left_out: an 834 build could not carry a member; benefit_change_refused: a carrier refused a benefit change;
 * enrollment_amended: an approved enrollment that starts earlier amended (or replaced) a later election of the
 * member (enrollments/later-elections.ts); eligibility_lost: a member's hours or employment status no longer meet a
 * plan configuration and their coverage on it ends (coverage/eligibility-loss.service.ts).
 */
export const ALERT_KINDS = ['edi_unmapped_line', 'edi_left_out', 'benefit_change_refused', 'enrollment_amended', 'eligibility_lost'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertTable {
  id: string;
  provider_id: string;
  employer_id: string | null;
  audience: AlertAudience;
  kind: AlertKind;
  /** The record to act on, e.g. `benefit_change`, `edi_file`, `member`. */
  related_object_type: string;
  related_object_id: string;
  member_id: string | null;
  /** For a person: what happened and what to do, never an SSN, a birth date or other personal data. */
  message: string;
  /** JSON text: ids and statuses only. */
  payload: string;
  /** Each alert is recorded once per provider and key, however often its cause is seen. */
  alert_key: string;
  created_at: string;
}

export type AlertRow = Selectable<AlertTable>;
