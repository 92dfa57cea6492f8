import type { Selectable } from 'kysely';
import type { DependentRelationship } from '../plans/coverage-tier.ts';

export interface DependentTable {
  id: string;
  provider_id: string;
  /** The member's employer, kept here so employer-scoped keys are confined without a join. */
  employer_id: string;
  member_id: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  member_relationship: DependentRelationship;
  ssn_last_four: string | null;
  /** AES-256-GCM ciphertext of the whole SSN (shared/crypto.ts); write-only, never returned. */
  ssn_encrypted: string | null;
  dob: string;
  biological_sex: 'male' | 'female' | null;
  /** Address as JSON text. */
  address: string | null;
  has_disability: boolean | number;
  /** The day the disability was last certified (see coverage-rules.ts disabilityCertificationExpiresOn). */
  disability_certified_on: string | null;
  /** A spouse-like dependent's divorce or dissolution date: the last day of the relationship (spouse-rules.ts). */
  relationship_end_date: string | null;
  metadata: string;
  created_at: string;
}

export type DependentRow = Selectable<DependentTable>;
