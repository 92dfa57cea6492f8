import type { Selectable } from 'kysely';

/** Beneficiary.member_relationship: a value set the contract leaves open (docs/decisions.md "Records and fields"). */
export const BENEFICIARY_RELATIONSHIPS = [
  'spouse',
  'domestic_partner',
  'child',
  'parent',
  'sibling',
  'grandchild',
  'other_relative',
  'friend',
  'estate',
  'trust',
  'charity',
  'other',
] as const;
export type BeneficiaryRelationship = (typeof BENEFICIARY_RELATIONSHIPS)[number];

export interface BeneficiaryTable {
  id: string;
  provider_id: string;
  employer_id: string;
  member_id: string;
  full_name: string;
  member_relationship: BeneficiaryRelationship;
  tin_last_four: string | null;
  /** Address as JSON text. */
  address: string | null;
  phone_number: string | null;
  dob: string | null;
  created_at: string;
}

export type BeneficiaryRow = Selectable<BeneficiaryTable>;
