import type { Selectable } from 'kysely';

/** What a bill's member column holds (docs/decisions.md "Premium bills", Who is who). */
export const BILL_MEMBER_KEYS = ['subscriber_id', 'member_id', 'payroll_provider_external_id', 'ssn'] as const;
export type BillMemberKey = (typeof BILL_MEMBER_KEYS)[number];

/** A carrier's premium bill compared with our coverage (the file itself is not kept: it may hold SSNs). */
export interface PremiumBillTable {
  id: string;
  provider_id: string;
  employer_id: string;
  group_id: string;
  /** The bill's own month, YYYY-MM. */
  period: string;
  /** The bill's date, YYYY-MM-DD: the correction window counts back from it. */
  bill_date: string;
  correction_window_days: number;
  member_key: BillMemberKey;
  /** JSON text: the column mapping as given ({} for our column names). */
  column_mapping: string;
  line_count: number;
  /** JSON text: BillLineError[] (premium-bill-csv.ts). */
  line_errors: string;
  billed_cents: number;
  billed_before_cents: number;
  expected_cents: number;
  difference_cents: number;
  /** The member's share payroll took for the group's deduction codes in the months compared (0 for bills kept before). */
  deducted_cents: number;
  /** What our coverage owes payroll for those months' pay dates, member share (0 for bills kept before). */
  expected_member_share_cents: number;
  members_billed: number;
  members_covered: number;
  members_reconciled: number;
  /** JSON text: MemberResult[] (premium-bill-rules.ts), members with a discrepancy (the payroll fields absent from bills kept before). */
  members: string;
  /** JSON text: [member, period, line, cents][]: what this bill billed, read by later bills of the group. */
  billed: string;
  /** The API key that posted it. */
  created_by: string;
  created_at: string;
}
export type PremiumBillRow = Selectable<PremiumBillTable>;
