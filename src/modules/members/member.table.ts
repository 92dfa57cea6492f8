import type { Selectable } from 'kysely';

export const EMPLOYMENT_STATUSES = ['full_time', 'part_time', 'seasonal', 'temporary'] as const;
export type EmploymentStatus = (typeof EMPLOYMENT_STATUSES)[number];
export const PAY_FREQUENCIES = ['weekly', 'biweekly', 'semimonthly', 'monthly'] as const;
export const BIOLOGICAL_SEXES = ['male', 'female'] as const;
/** Why the employment ended (docs/decisions.md "Employment history"): what COBRA and the 834 make of it. */
export const TERMINATION_REASONS = [
  'voluntary',
  'involuntary',
  'gross_misconduct',
  'layoff',
  'retirement',
  'death',
  'reduction_in_hours',
  'leave',
  'other',
] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

export interface MemberTable {
  id: string;
  provider_id: string;
  employer_id: string;
  first_name: string;
  last_name: string;
  dob: string;
  /** AES-256-GCM ciphertext (shared/crypto.ts); never returned. */
  ssn_encrypted: string | null;
  ssn_last_four: string | null;
  /** Keyed digest of the SSN (shared/ssn.ts SsnDigester): unique per employer; null without one. */
  ssn_digest: string | null;
  email: string | null;
  phone_number: string | null;
  /** Address as JSON text. */
  address: string;
  /** The latest hire date: the rehire's, after a rehire. */
  hire_date: string;
  /** The first hire date, kept through rehires (null only in a row not yet written: the migration backfilled it). */
  original_hire_date: string | null;
  termination_date: string | null;
  /** Why the employment ended; null without a termination_date, or when HR did not say. */
  termination_reason: TerminationReason | null;
  date_of_death: string | null;
  /** The rule of the latest rehire (members/rehire-rules.ts RehireRule), null for a member never rehired. */
  rehire_rule: string | null;
  biological_sex: (typeof BIOLOGICAL_SEXES)[number] | null;
  employment_status: (typeof EMPLOYMENT_STATUSES)[number] | null;
  hours_worked: number | null;
  pay_frequency: (typeof PAY_FREQUENCIES)[number] | null;
  payroll_provider_external_id: string | null;
  job_title: string | null;
  business_unit_id: string | null;
  /** The member's pay schedule (pay_schedules), null for the employer's default schedule. */
  pay_schedule_id: string | null;
  metadata: string;
  created_at: string;
}

export interface MemberSubclassTable {
  member_id: string;
  subclass_id: string;
  position: number;
}

export type MemberRow = Selectable<MemberTable>;

/** The kinds of employment history entries (docs/decisions.md "Employment history"). */
export const EMPLOYMENT_EVENT_TYPES = [
  'hire',
  'termination',
  'rehire',
  'leave_of_absence',
  'return_from_leave',
  'change_of_hours',
  'change_of_status',
] as const;
export type EmploymentEventType = (typeof EMPLOYMENT_EVENT_TYPES)[number];
export const LEAVE_TYPES = ['fmla', 'military', 'medical', 'personal', 'other'] as const;
export type LeaveType = (typeof LEAVE_TYPES)[number];

/** One entry of a member's employment history, in the order it was recorded (`position`). */
export interface MemberEmploymentEventTable {
  id: string;
  provider_id: string;
  member_id: string;
  event_type: EmploymentEventType;
  effective_date: string;
  /** JSON text: the entry's own values (EmploymentEventDetails). */
  details: string;
  position: number;
  recorded_at: string;
}

export type MemberEmploymentEventRow = Selectable<MemberEmploymentEventTable>;
