import type { Selectable } from 'kysely';

export const EMPLOYMENT_STATUSES = ['full_time', 'part_time', 'seasonal', 'temporary'] as const;
export type EmploymentStatus = (typeof EMPLOYMENT_STATUSES)[number];
export const PAY_FREQUENCIES = ['weekly', 'biweekly', 'semimonthly', 'monthly'] as const;
export const BIOLOGICAL_SEXES = ['male', 'female'] as const;

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
  hire_date: string;
  termination_date: string | null;
  biological_sex: (typeof BIOLOGICAL_SEXES)[number] | null;
  employment_status: (typeof EMPLOYMENT_STATUSES)[number] | null;
  hours_worked: number | null;
  pay_frequency: (typeof PAY_FREQUENCIES)[number] | null;
  payroll_provider_external_id: string | null;
  job_title: string | null;
  business_unit_id: string | null;
  metadata: string;
  created_at: string;
}

export interface MemberSubclassTable {
  member_id: string;
  subclass_id: string;
  position: number;
}

export type MemberRow = Selectable<MemberTable>;
