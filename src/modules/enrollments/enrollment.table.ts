import type { OtherCoverageType } from './life-events.ts';
import type { Selectable } from 'kysely';

/** Enrollment.status: the contract's values (docs/api.md "Enrollment"). */
export const ENROLLMENT_STATUSES = ['not_started', 'pending', 'approved', 'synced', 'cancelled', 'failed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/**
 * Statuses of enrollments whose changes went to carriers: approved ones, those the carriers completed
 * (synced), and those a carrier rejected after approval (failed: other changes of it may have gone through).
 */
export const SENT_ENROLLMENT_STATUSES: readonly EnrollmentStatus[] = ['approved', 'synced', 'failed'];

/** Why the service itself cancelled an enrollment: the member's termination ended coverage before it would start. */
export const ENROLLMENT_CANCELLATION_REASONS = ['member_terminated'] as const;
export type EnrollmentCancellationReason = (typeof ENROLLMENT_CANCELLATION_REASONS)[number];

export const ENROLLMENT_CATEGORIES = ['qle', 'open_enrollment', 'carrier_sync'] as const;
export type EnrollmentCategory = (typeof ENROLLMENT_CATEGORIES)[number];

/** eoi_status (docs/api.md "EnrolledPlan"; docs/decisions.md "Enrollments", Guaranteed issue and EOI). */
export const EOI_STATUSES = ['not_required', 'pending', 'approved', 'denied'] as const;
export type EoiStatus = (typeof EOI_STATUSES)[number];

export interface EnrollmentTable {
  id: string;
  provider_id: string;
  employer_id: string;
  member_id: string;
  category: EnrollmentCategory;
  status: EnrollmentStatus;
  effective_start: string | null;
  effective_end: string | null;
  reason: string | null;
  change_date: string | null;
  /** JSON text: array of document ids. */
  qualifying_life_event_documents: string;
  metadata: string;
  submitted_at: string | null;
  approved_at: string | null;
  /** The open enrollment window the enrollment was submitted in (open_enrollment enrollments only). */
  open_enrollment_window_id: string | null;
  /** Why the service cancelled it (ENROLLMENT_CANCELLATION_REASONS); null when a client cancelled it, or it is not cancelled. */
  cancellation_reason: EnrollmentCancellationReason | null;
  /** OTHER_COVERAGE_TYPES (life-events.ts): the other coverage a lost/gained-coverage event is about. */
  other_coverage: OtherCoverageType | null;
  /** medicare_eligible only: the dependent whose own Medicare entitlement it records; null for the employee's. */
  medicare_entitled_dependent_id: string | null;
  /** An admin's rules_override: why, by which API key, when (all null without one). */
  rules_override_reason: string | null;
  rules_override_api_key_id: string | null;
  rules_override_at: string | null;
  created_at: string;
}

interface CoverageColumns {
  volume_cents: number | null;
  requested_volume_cents: number | null;
  volume_approved_at: string | null;
  eoi_dismissed_at: string | null;
  eoi_status: EoiStatus;
  /** JSON text of the PrimaryCareProvider, with its own id. */
  primary_care_provider: string | null;
  member_id_card_id: string | null;
  created_at: string;
}

export interface EnrolledPlanTable extends CoverageColumns {
  id: string;
  provider_id: string;
  enrollment_id: string;
  member_id: string;
  plan_id: string;
  position: number;
  effective_start: string | null;
  effective_end: string | null;
  premium_cents: number | null;
  employer_contribution_cents: number | null;
  member_contribution_cents: number | null;
  payroll_provider_external_id: string | null;
}

export interface EnrolledDependentTable extends CoverageColumns {
  id: string;
  provider_id: string;
  enrolled_plan_id: string;
  dependent_id: string;
  position: number;
}

/** Life and AD&D elections only: who receives the benefit, primary or contingent, and what share. */
export const BENEFICIARY_DESIGNATIONS = ['primary', 'contingent'] as const;
export type BeneficiaryDesignation = (typeof BENEFICIARY_DESIGNATIONS)[number];
/** Lines whose elections name beneficiaries: life and AD&D (accidental_death). */
export const DESIGNATION_LINES: ReadonlySet<string> = new Set(['life', 'accidental_death']);

export interface BeneficiaryDesignationTable {
  id: string;
  provider_id: string;
  enrolled_plan_id: string;
  beneficiary_id: string;
  designation: BeneficiaryDesignation;
  /** The share in basis points: 10000 is 100.00%. */
  percentage_basis_points: number;
  position: number;
}
export type BeneficiaryDesignationRow = Selectable<BeneficiaryDesignationTable>;

export interface CoverageWaiverTable {
  id: string;
  enrollment_id: string;
  position: number;
  line_of_coverage: string;
  reason: string;
  member_id: string | null;
  dependent_id: string | null;
}

export type EnrollmentRow = Selectable<EnrollmentTable>;
export type EnrolledPlanRow = Selectable<EnrolledPlanTable>;
export type EnrolledDependentRow = Selectable<EnrolledDependentTable>;
