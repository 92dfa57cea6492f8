import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { mapPage } from '../../db/keyset.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays, endOfMonth, toDateString } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { fromCents } from '../../shared/money.ts';
import type { SsnDigester } from '../../shared/ssn.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { levelsOf } from '../carrier-files/carrier-834.ts';
import { matchSubscribers, type SubscriberIdSource } from '../carrier-files/subscriber-matching.ts';
import { findPricedGroupCoverageBetween } from '../coverage/group-coverage.repository.ts';
import { findProfile } from '../edi/edi-profile.repository.ts';
import { companionGuideOf, type CompanionGuide } from '../edi/edi-profile.ts';
import { findGroupById } from '../groups/group.repository.ts';
import { COVERAGE_TIERS, coverageTier, type CoverageTier, type DependentRelationship } from '../plans/coverage-tier.ts';
import { loadBillPayroll } from './premium-bill-payroll.ts';
import { parseBill, type BillColumn, type BillLine, type BillLineError } from './premium-bill-csv.ts';
import {
  compareBill,
  unitKey,
  windowStartOf,
  type BillComparison,
  type CoverageEntry,
  type MatchedBillLine,
  type MemberResult,
  type PeriodResult,
  type RetroChange,
} from './premium-bill-rules.ts';
import * as repository from './premium-bill.repository.ts';
import type { CreatePremiumBillBody, PremiumBillResponse } from './premium-bill.schemas.ts';
import type { BillMemberKey, PremiumBillRow } from './premium-bill.table.ts';

const money = (cents: number) => fromCents(cents);

/** The payroll fields of a member and month: absent from bills kept before the payroll column. */
type PayrollFields = 'deductedCents' | 'expectedMemberShareCents' | 'payrollPaid';
type Stored<T> = Omit<T, PayrollFields> & Partial<Pick<T, Extract<keyof T, PayrollFields>>>;
type StoredMemberResult = Stored<Omit<MemberResult, 'periods'>> & { periods: Stored<PeriodResult>[] };

function memberResponse(result: StoredMemberResult): PremiumBillResponse['members'][number] {
  return {
    member: result.member,
    billed: money(result.billedCents),
    billed_before: money(result.billedBeforeCents),
    expected: money(result.expectedCents),
    difference: money(result.differenceCents),
    // Bills kept before the payroll column have none: zero, never paid.
    deducted: money(result.deductedCents ?? 0),
    expected_member_share: money(result.expectedMemberShareCents ?? 0),
    periods: result.periods.map((p) => ({
      period: p.period,
      line_of_coverage: p.lineOfCoverage,
      billed: money(p.billedCents),
      billed_before: money(p.billedBeforeCents),
      expected: money(p.expectedCents),
      difference: money(p.differenceCents),
      deducted: money(p.deductedCents ?? 0),
      expected_member_share: money(p.expectedMemberShareCents ?? 0),
      payroll_paid: p.payrollPaid ?? false,
      billed_tiers: p.billedTiers,
      our_tiers: p.ourTiers,
      file_lines: p.fileLines,
    })),
    discrepancies: result.discrepancies.map((d) => ({
      kind: d.kind,
      period: d.period,
      line_of_coverage: d.lineOfCoverage,
      file_lines: d.fileLines,
      benefit_changes: d.benefitChanges,
      message: d.message,
    })),
  };
}

export function toPremiumBillResponse(row: PremiumBillRow): PremiumBillResponse {
  return {
    id: row.id,
    object: 'premium_bill',
    group: row.group_id,
    employer: row.employer_id,
    period: row.period,
    bill_date: row.bill_date,
    correction_window_days: row.correction_window_days,
    member_key: row.member_key,
    column_mapping: JSON.parse(row.column_mapping) as PremiumBillResponse['column_mapping'],
    line_count: row.line_count,
    line_errors: JSON.parse(row.line_errors) as BillLineError[],
    totals: {
      billed: money(row.billed_cents),
      billed_before: money(row.billed_before_cents),
      expected: money(row.expected_cents),
      difference: money(row.difference_cents),
      deducted: money(row.deducted_cents),
      expected_member_share: money(row.expected_member_share_cents),
    },
    members_billed: row.members_billed,
    members_covered: row.members_covered,
    members_reconciled: row.members_reconciled,
    members: (JSON.parse(row.members) as StoredMemberResult[]).map(memberResponse),
    created_by: row.created_by,
    created_at: row.created_at,
  };
}

/** Tier text -> tiers: one of our tier names, else a coverage level code (the group's EDI profile's, then the 834 guide's). */
function tierReader(guide: CompanionGuide | undefined): (text: string) => readonly CoverageTier[] {
  return (text) => {
    const lower = text.toLowerCase();
    if ((COVERAGE_TIERS as readonly string[]).includes(lower)) return [lower as CoverageTier];
    return levelsOf(text.toUpperCase(), guide);
  };
}

/** Lines and the months they name: the earliest and latest, with the bill's own month. */
function monthsOf(lines: readonly BillLine[], period: string): { first: string; last: string } {
  let first = period;
  let last = period;
  for (const line of lines) {
    if (line.period < first) first = line.period;
    if (line.period > last) last = line.period;
  }
  return { first, last };
}

/**
 * POST /groups/{id}/premium_bills (docs/decisions.md "Premium bills"): a carrier's monthly bill compared with the
 * premium in force by our coverage on the group's plans. The comparison is stored without the file, with who
 * posted it.
 */
export class PremiumBillService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #ssnDigester: SsnDigester;

  constructor(options: { db: Kysely<Database>; clock: Clock; ssnDigester: SsnDigester }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#ssnDigester = options.ssnDigester;
  }

  async getPremiumBill(scope: Scope, groupId: string, id: string): Promise<PremiumBillResponse> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    const row = await repository.findPremiumBill(this.#db, scope, group.id, id);
    if (!row) throw new NotFound('premium bill');
    return toPremiumBillResponse(row);
  }

  async listPremiumBills(scope: Scope, groupId: string, page: PageRequest): Promise<Page<PremiumBillResponse>> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    return mapPage(await repository.listPremiumBills(this.#db, scope, group.id, page), toPremiumBillResponse);
  }

  async receivePremiumBill(scope: Scope, apiKeyId: string, groupId: string, input: CreatePremiumBillBody): Promise<PremiumBillResponse> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    const now = this.#clock.now();
    const profile = await findProfile(this.#db, group.id);
    const guide = profile ? companionGuideOf(profile) : undefined;
    const mapping: Partial<Record<BillColumn, string>> = input.column_mapping ?? {};
    const { lines, errors } = parseBill(input.content, mapping, tierReader(guide));
    const billDate = input.bill_date ?? toDateString(now);
    const windowDays = input.correction_window_days ?? 60;
    const windowStart = windowStartOf(billDate, windowDays);
    const latest = lines.reduce((found, line) => (line.period > found ? line.period : found), '');
    const billPeriod = input.period ?? (latest === '' ? billDate.slice(0, 7) : latest);
    const memberKey: BillMemberKey = input.member_key ?? 'subscriber_id';

    const matched = await this.#matchLines(group.employer_id, memberKey === 'subscriber_id' ? (guide?.subscriber_id_source ?? 'member_id') : memberKey, lines);
    const months = monthsOf(lines, billPeriod);
    const coverage = await this.#coverageBetween(group.provider_id, group.id, `${months.first}-01`, endOfMonth(`${months.last}-01`));
    const memberIds = [...new Set([...matched.flatMap((line) => (line.memberId === null ? [] : [line.memberId])), ...coverage.keys()])].sort();
    const payroll = await loadBillPayroll(this.#db, {
      providerId: group.provider_id,
      employerId: group.employer_id,
      groupId: group.id,
      memberIds,
      firstMonth: months.first,
      lastMonth: months.last,
    });
    const comparison = compareBill({
      period: billPeriod,
      windowStart,
      byLine: lines.some((line) => line.lineOfCoverage !== null),
      lines: matched,
      coverage,
      billedBefore: await this.#billedBefore(group.id, months.first, billPeriod),
      retroChanges: await this.#retroChanges(group.provider_id, group.id, windowStart, billDate),
      payroll,
    });
    const row = this.#rowOf({ group, apiKeyId, billPeriod, billDate, windowDays, memberKey, mapping, lines, errors, comparison, createdAt: now.toISOString() });
    await this.#db.transaction().execute(async (trx) => repository.insertPremiumBill(trx, row));
    return toPremiumBillResponse(row);
  }

  #rowOf(input: {
    group: { id: string; provider_id: string; employer_id: string };
    apiKeyId: string;
    billPeriod: string;
    billDate: string;
    windowDays: number;
    memberKey: BillMemberKey;
    mapping: Partial<Record<BillColumn, string>>;
    lines: readonly BillLine[];
    errors: readonly BillLineError[];
    comparison: BillComparison;
    createdAt: string;
  }): PremiumBillRow {
    const { comparison } = input;
    return {
      id: newId('premium_bill'),
      provider_id: input.group.provider_id,
      employer_id: input.group.employer_id,
      group_id: input.group.id,
      period: input.billPeriod,
      bill_date: input.billDate,
      correction_window_days: input.windowDays,
      member_key: input.memberKey,
      column_mapping: JSON.stringify(input.mapping),
      line_count: input.lines.length + input.errors.length,
      line_errors: JSON.stringify(input.errors),
      billed_cents: comparison.totals.billedCents,
      billed_before_cents: comparison.totals.billedBeforeCents,
      expected_cents: comparison.totals.expectedCents,
      difference_cents: comparison.totals.differenceCents,
      deducted_cents: comparison.totals.deductedCents,
      expected_member_share_cents: comparison.totals.expectedMemberShareCents,
      members_billed: comparison.membersBilled,
      members_covered: comparison.membersCovered,
      members_reconciled: comparison.membersReconciled,
      members: JSON.stringify(comparison.members),
      billed: JSON.stringify(comparison.billed),
      created_by: input.apiKeyId,
      created_at: input.createdAt,
    };
  }

  /** Each line with its member (carrier-files' matching); keys of nobody numbered in file order. */
  async #matchLines(employerId: string, source: SubscriberIdSource, lines: readonly BillLine[]): Promise<MatchedBillLine[]> {
    const members = await matchSubscribers(
      this.#db,
      this.#ssnDigester,
      employerId,
      source,
      lines.map((line) => line.memberKey),
    );
    const unknownKeys = new Map<string, number>();
    return lines.map((line) => {
      const memberId = members.get(line.memberKey) ?? null;
      let unknownKey: number | null = null;
      if (memberId === null) {
        unknownKey = unknownKeys.get(line.memberKey) ?? unknownKeys.size;
        unknownKeys.set(line.memberKey, unknownKey);
      }
      return { ...line, memberId, unknownKey };
    });
  }

  async #coverageBetween(providerId: string, groupId: string, from: string, to: string): Promise<Map<string, CoverageEntry[]>> {
    const rows = await findPricedGroupCoverageBetween(this.#db, providerId, groupId, from, to);
    const coverage = new Map<string, CoverageEntry[]>();
    for (const row of rows) {
      if (row.effective_start === null) continue;
      const entry: CoverageEntry = {
        enrolledPlanId: row.id,
        lineOfCoverage: row.line_of_coverage,
        planId: row.plan_id,
        start: row.effective_start,
        end: row.effective_end ?? row.plan_end,
        createdAt: row.created_at,
        premiumCents: row.premium_cents ?? 0,
        tier: coverageTier(row.relationships as DependentRelationship[]),
      };
      const list = coverage.get(row.member_id);
      if (list) list.push(entry);
      else coverage.set(row.member_id, [entry]);
    }
    return coverage;
  }

  /** What the group's earlier bills billed per member, month and line (premium-bill.repository.ts findBilledBefore). */
  async #billedBefore(groupId: string, fromPeriod: string, billPeriod: string): Promise<Map<string, number>> {
    const billed = new Map<string, number>();
    for (const text of await repository.findBilledBefore(this.#db, groupId, fromPeriod, billPeriod)) {
      for (const [member, period, line, cents] of JSON.parse(text) as BillComparison['billed']) {
        const key = unitKey(member, period, line);
        billed.set(key, (billed.get(key) ?? 0) + cents);
      }
    }
    return billed;
  }

  /** Our changes recorded from the window's start to the bill date that take effect before the window. */
  async #retroChanges(providerId: string, groupId: string, windowStart: string, billDate: string): Promise<RetroChange[]> {
    const recordedBy = `${addDays(billDate, 1)}T00:00:00.000Z`;
    const changes = await repository.findChangesRecordedSince(this.#db, providerId, groupId, `${windowStart}T00:00:00.000Z`, recordedBy);
    const retro: RetroChange[] = [];
    for (const change of changes) {
      const effective = change.status === 'removed' ? (change.coverage_end === null ? null : addDays(change.coverage_end, 1)) : change.coverage_start;
      if (effective === null || effective >= windowStart) continue;
      retro.push({ benefitChangeId: change.id, memberId: change.member_id, lineOfCoverage: change.line_of_coverage, effective });
    }
    return retro;
  }
}
