import type { Selectable } from 'kysely';

/** OpenEnrollmentWindow.status: the contract's values (docs/api.md "OpenEnrollmentWindow"). */
export const WINDOW_STATUSES = ['setup_required', 'build_in_progress', 'active', 'closed', 'completed'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

/** OpenEnrollmentWindow.enrollment_type: the contract's values (docs/api.md "OpenEnrollmentWindow"). */
export const ENROLLMENT_TYPES = ['active', 'passive'] as const;
export type EnrollmentType = (typeof ENROLLMENT_TYPES)[number];

export interface OpenEnrollmentWindowTable {
  id: string;
  provider_id: string;
  employer_id: string;
  start_date: string | null;
  end_date: string | null;
  renewal_date: string | null;
  status: WindowStatus;
  enrollment_type: EnrollmentType;
  completed_member_count: number | null;
  incomplete_member_count: number | null;
  completed_at: string | null;
  activated_at: string | null;
  closed_at: string | null;
  metadata: string;
  created_at: string;
}

export interface OpenEnrollmentWindowPlanTable {
  window_id: string;
  plan_id: string;
  position: number;
}

export type OpenEnrollmentWindowRow = Selectable<OpenEnrollmentWindowTable>;
