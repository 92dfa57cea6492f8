import type { Selectable } from 'kysely';
import type { ConnectionMethod } from '../groups/group.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/** BenefitChange.status: the contract's values (docs/api.md "BenefitChange"). */
export const BENEFIT_CHANGE_STATUSES = ['new', 'removed', 'no_change', 'change'] as const;
export type BenefitChangeStatus = (typeof BENEFIT_CHANGE_STATUSES)[number];

/** BenefitChange.changes: the contract's values (docs/api.md "BenefitChange"). */
export const CHANGE_KINDS = ['date_change', 'plan_change', 'dependent_change', 'volume_change', 'contribution_change'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * Where the hand-off to the carrier stands. manual: waiting for a person; queued/sent: with the carrier
 * adapter (api); awaiting_file: waiting for the 834 file (edi); completed; rejected (the carrier refused it).
 */
export const DELIVERY_STATES = ['manual', 'queued', 'sent', 'awaiting_file', 'completed', 'rejected'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface BenefitChangeTable {
  id: string;
  provider_id: string;
  employer_id: string;
  enrollment_id: string;
  member_id: string;
  line_of_coverage: LineOfCoverage;
  status: BenefitChangeStatus;
  /** JSON text: ChangeKind[]. */
  changes: string;
  previous_enrollment_plan_id: string | null;
  next_enrollment_plan_id: string | null;
  /** The new coverage's start and end; for removed, the removed coverage's start and last day. */
  coverage_start: string | null;
  coverage_end: string | null;
  group_id: string;
  connection_method: ConnectionMethod;
  delivery_state: DeliveryState;
  memo: string | null;
  assignee: string | null;
  completed_at: string | null;
  needs_manual_completion: boolean | number;
  position: number;
  created_at: string;
}

export type BenefitChangeRow = Selectable<BenefitChangeTable>;
