import type { Selectable } from 'kysely';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/**
 * Where a ledger row comes from: a benefit change (told when it reaches the carrier), a `carrier_sync`
 * enrollment (coverage the carrier already holds), or the migration that started the ledger.
 */
export type LedgerSource = 'benefit_change' | 'carrier_sync' | 'migration';

/**
 * What a carrier group has been told about one member's line of coverage (carrier-ledger.ts). Written with
 * the benefit change that tells it; `told_at` says it reached the carrier.
 */
export interface CarrierLedgerTable {
  id: string;
  provider_id: string;
  employer_id: string;
  group_id: string;
  member_id: string;
  line_of_coverage: LineOfCoverage;
  benefit_change_id: string | null;
  source: LedgerSource;
  enrolled_plan_id: string | null;
  plan_id: string;
  /** The first day told; null only when the enrolled plan has no dates. */
  coverage_start: string | null;
  /** The last day told: null for an add or a change (open-ended: a plan year's end is not a termination); a removal's last day. Before coverage_start: cancelled. */
  coverage_end: string | null;
  /** JSON text: the coverage as the change describes it (LedgerItem). */
  item: string;
  /** When it reached the carrier; null while waiting (or sent back by a 999/TA1 rejection). */
  told_at: string | null;
  /** When the carrier refused it (a business refusal): it counts for nothing. */
  refused_at: string | null;
  created_at: string;
}

export type CarrierLedgerRow = Selectable<CarrierLedgerTable>;
