/**
 * A carrier's premium bill against the premium in force by our coverage (docs/decisions.md "Premium bills").
 * Pure: the service reads the bill's lines (matched to members), our coverage of the months they name and the
 * bill's own month, what earlier bills of the group billed for those months, our retroactive changes and what
 * payroll deducted and owes per member and month (premium-bill-payroll.ts); this decides per member and month what
 * was billed, what is owed, what payroll took, and the discrepancies.
 */
import { addDays, endOfMonth } from '../../shared/dates.ts';
import type { CoverageTier } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { BillLine } from './premium-bill-csv.ts';

export const PREMIUM_BILL_DISCREPANCY_KINDS = [
  'billed_not_covered',
  'covered_not_billed',
  'tier_mismatch',
  'amount_mismatch',
  'retro_outside_window',
  'deduction_mismatch',
] as const;
export type PremiumBillDiscrepancyKind = (typeof PREMIUM_BILL_DISCREPANCY_KINDS)[number];

/** One coverage of ours on the group's plans (an enrolled plan that is coverage), priced. */
export interface CoverageEntry {
  enrolledPlanId: string;
  lineOfCoverage: LineOfCoverage;
  planId: string;
  start: string;
  /** Its last day: its own end, else the plan year's. */
  end: string;
  createdAt: string;
  /** The monthly premium, member and employer together (0 when the plan has no rates and none was given). */
  premiumCents: number;
  tier: CoverageTier;
}

/** A bill line and the member it names: null for a key no member of the employer has (`unknownKey` groups those). */
export interface MatchedBillLine extends BillLine {
  memberId: string | null;
  unknownKey: number | null;
}

/** A benefit change of ours on the group (what the carrier was told), with the day it takes effect. */
export interface RetroChange {
  benefitChangeId: string;
  memberId: string;
  lineOfCoverage: LineOfCoverage;
  effective: string;
}

/** A member's month as payroll sees it: member shares (pre- and after-tax together) in cents, per deduction code. */
export interface PayrollMonth {
  /** Every pay date of the member's schedule in the month was paid by a run (false without a schedule or pay date). */
  paid: boolean;
  /** What the runs took for the month's pay periods, adjustments of them taken later included. */
  deducted: ReadonlyMap<string, number>;
  /** What our coverage owes for the month's pay dates (the feed's per-period amounts of the coverage in force on each). */
  owed: ReadonlyMap<string, number>;
}

/** Payroll's side of a bill: the group's deduction codes (each with its line of coverage) and the members' months. */
export interface PayrollFacts {
  codeLines: ReadonlyMap<string, LineOfCoverage>;
  /** By payrollKey(member, period). */
  months: ReadonlyMap<string, PayrollMonth>;
}

export const NO_PAYROLL: PayrollFacts = { codeLines: new Map(), months: new Map() };

export function payrollKey(member: string, period: string): string {
  return `${member}|${period}`;
}

export interface BillComparisonInput {
  /** The bill's own month, YYYY-MM: everyone covered in it should be on it. */
  period: string;
  /** The first day the carrier still corrects: the bill's date less its correction window. */
  windowStart: string;
  /** Whether the bill names lines of coverage (then each line is compared on its own). */
  byLine: boolean;
  lines: readonly MatchedBillLine[];
  /** Each member's coverage on the group's plans overlapping the months compared. */
  coverage: ReadonlyMap<string, readonly CoverageEntry[]>;
  /** What earlier bills of the group billed, by unitKey (member, month, line). */
  billedBefore: ReadonlyMap<string, number>;
  /** Our changes recorded within the window that take effect before it. */
  retroChanges: readonly RetroChange[];
  /** What payroll deducted and owes (none: every month unpaid). */
  payroll?: PayrollFacts;
}

/** One member's month (and line, when the bill names lines) compared. */
export interface PeriodResult {
  period: string;
  lineOfCoverage: LineOfCoverage | null;
  billedCents: number;
  billedBeforeCents: number;
  expectedCents: number;
  /** billed + billed before - expected: positive, the carrier bills more than our coverage owes. */
  differenceCents: number;
  /** The member's share payroll took for the month under the group's deduction codes (of the line, when by line). */
  deductedCents: number;
  /** The member's share our coverage owes payroll for the month's pay dates, under the same codes. */
  expectedMemberShareCents: number;
  /** Every pay date of the month was paid by a run: only then is a difference a deduction_mismatch. */
  payrollPaid: boolean;
  /** The tiers the bill's lines state (null: none stated). */
  billedTiers: CoverageTier[] | null;
  /** Our tiers owed that month (one per line). */
  ourTiers: CoverageTier[];
  fileLines: number[];
}

export interface PremiumBillDiscrepancy {
  kind: PremiumBillDiscrepancyKind;
  period: string;
  lineOfCoverage: LineOfCoverage | null;
  fileLines: number[];
  /** retro_outside_window of our change: the benefit changes. */
  benefitChanges: string[];
  message: string;
}

export interface MemberResult {
  /** null: a member key no member of the employer has (never shown: it may be an SSN). */
  member: string | null;
  billedCents: number;
  billedBeforeCents: number;
  expectedCents: number;
  differenceCents: number;
  deductedCents: number;
  expectedMemberShareCents: number;
  periods: PeriodResult[];
  discrepancies: PremiumBillDiscrepancy[];
}

export interface BillTotals {
  billedCents: number;
  billedBeforeCents: number;
  expectedCents: number;
  differenceCents: number;
  deductedCents: number;
  expectedMemberShareCents: number;
}

export interface BillComparison {
  /** Members with a discrepancy (any difference is one), in member id order, unknown keys last in file order. */
  members: MemberResult[];
  totals: BillTotals;
  membersBilled: number;
  membersCovered: number;
  membersReconciled: number;
  /** What this bill billed per member, month and line (kept, so that later bills add their adjustments to it). */
  billed: [member: string, period: string, line: LineOfCoverage | null, cents: number][];
}

export function unitKey(member: string, period: string, line: LineOfCoverage | null): string {
  return `${member}|${period}|${line ?? ''}`;
}

/**
 * The coverage owed for a month, one per line: whole months, no proration. The coverage in force on the month's
 * first day (the latest starting, then latest recorded, as coverage-in-force.ts latestPerLine takes it), else the
 * first to start within the month; a coverage ending within the month is owed that whole month.
 */
export function owedIn(entries: readonly CoverageEntry[], period: string): CoverageEntry[] {
  const first = `${period}-01`;
  const last = endOfMonth(first);
  const owed = new Map<LineOfCoverage, CoverageEntry>();
  const better = (a: CoverageEntry, b: CoverageEntry): boolean => {
    const aOnFirst = a.start <= first;
    const bOnFirst = b.start <= first;
    if (aOnFirst !== bOnFirst) return aOnFirst;
    if (aOnFirst) return a.start > b.start || (a.start === b.start && a.createdAt > b.createdAt);
    return a.start < b.start || (a.start === b.start && a.createdAt > b.createdAt);
  };
  for (const entry of entries) {
    if (entry.start > last || entry.end < first || entry.end < entry.start) continue;
    const held = owed.get(entry.lineOfCoverage);
    if (held === undefined || better(entry, held)) owed.set(entry.lineOfCoverage, entry);
  }
  return [...owed.values()].sort((a, b) => (a.lineOfCoverage < b.lineOfCoverage ? -1 : 1));
}

const dollars = (cents: number) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

/** Compares a bill (docs/decisions.md "Premium bills": the discrepancy kinds' table). */
export function compareBill(input: BillComparisonInput): BillComparison {
  const units = new Map<string, { member: string; period: string; line: LineOfCoverage | null; lines: MatchedBillLine[] }>();
  const unit = (member: string, period: string, line: LineOfCoverage | null) => {
    const key = unitKey(member, period, line);
    let found = units.get(key);
    if (!found) units.set(key, (found = { member, period, line, lines: [] }));
    return found;
  };
  const unknown = new Map<number, MatchedBillLine[]>();
  for (const line of input.lines) {
    if (line.memberId === null) unknown.set(line.unknownKey!, [...(unknown.get(line.unknownKey!) ?? []), line]);
    else unit(line.memberId, line.period, line.lineOfCoverage).lines.push(line);
  }
  const billedMembers = new Set(input.lines.filter((line) => line.memberId !== null).map((line) => line.memberId!));
  let membersCovered = 0;
  for (const [member, entries] of input.coverage) {
    const owed = owedIn(entries, input.period);
    if (owed.length === 0) continue;
    membersCovered += 1;
    if (input.byLine) for (const entry of owed) unit(member, input.period, entry.lineOfCoverage);
    else unit(member, input.period, null);
  }

  const results = new Map<string, MemberResult>();
  const resultOf = (member: string) => {
    let found = results.get(member);
    if (!found) results.set(member, (found = emptyResult(member)));
    return found;
  };
  const totals: BillTotals = { billedCents: 0, billedBeforeCents: 0, expectedCents: 0, differenceCents: 0, deductedCents: 0, expectedMemberShareCents: 0 };
  const payroll = input.payroll ?? NO_PAYROLL;
  const billed: BillComparison['billed'] = [];
  for (const [key, { member, period, line, lines }] of [...units].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const owed = owedIn(input.coverage.get(member) ?? [], period).filter((entry) => line === null || entry.lineOfCoverage === line);
    const compared = periodResult(period, line, lines, owed, input.billedBefore.get(key) ?? 0, payrollOf(payroll, member, period, line));
    if (lines.length > 0) billed.push([member, period, line, compared.billedCents]);
    addTo(totals, compared);
    const found = periodDiscrepancies(compared, lines, owed, input.windowStart);
    if (found.length === 0) continue;
    const result = resultOf(member);
    result.periods.push(compared);
    result.discrepancies.push(...found);
    addTo(result, compared);
  }
  for (const change of input.retroChanges) {
    const result = resultOf(change.memberId);
    const found = result.discrepancies.find(
      (d) =>
        d.kind === 'retro_outside_window' &&
        d.benefitChanges.length > 0 &&
        d.period === change.effective.slice(0, 7) &&
        d.lineOfCoverage === change.lineOfCoverage,
    );
    if (found) found.benefitChanges.push(change.benefitChangeId);
    else
      result.discrepancies.push({
        kind: 'retro_outside_window',
        period: change.effective.slice(0, 7),
        lineOfCoverage: change.lineOfCoverage,
        fileLines: [],
        benefitChanges: [change.benefitChangeId],
        message: `Our change of ${change.lineOfCoverage} takes effect on ${change.effective}, before the carrier's correction window (from ${input.windowStart}): the carrier may not correct the months before it.`,
      });
  }
  const members = [...results.values()].sort((a, b) => (a.member! < b.member! ? -1 : 1));
  for (const lines of unknown.values()) {
    const result = emptyResult(null);
    for (const [period, ofPeriod] of Map.groupBy(lines, (line) => `${line.period}|${line.lineOfCoverage ?? ''}`)) {
      const compared = periodResult(period.slice(0, 7), ofPeriod[0]!.lineOfCoverage, ofPeriod, [], 0, UNPAID);
      addTo(totals, compared);
      addTo(result, compared);
      result.periods.push(compared);
      result.discrepancies.push(...periodDiscrepancies(compared, ofPeriod, [], input.windowStart));
    }
    members.push(result);
  }
  const compared = new Set([...billedMembers, ...[...units.values()].map((u) => u.member)]);
  return {
    members,
    totals,
    membersBilled: billedMembers.size + unknown.size,
    membersCovered,
    membersReconciled: [...compared].filter((member) => !results.has(member)).length,
    billed,
  };
}

function emptyResult(member: string | null): MemberResult {
  return {
    member,
    billedCents: 0,
    billedBeforeCents: 0,
    expectedCents: 0,
    differenceCents: 0,
    deductedCents: 0,
    expectedMemberShareCents: 0,
    periods: [],
    discrepancies: [],
  };
}

function addTo(sum: BillTotals, part: BillTotals): void {
  sum.billedCents += part.billedCents;
  sum.billedBeforeCents += part.billedBeforeCents;
  sum.expectedCents += part.expectedCents;
  sum.differenceCents += part.differenceCents;
  sum.deductedCents += part.deductedCents;
  sum.expectedMemberShareCents += part.expectedMemberShareCents;
}

interface UnitPayroll {
  deductedCents: number;
  expectedMemberShareCents: number;
  paid: boolean;
}
const UNPAID: UnitPayroll = { deductedCents: 0, expectedMemberShareCents: 0, paid: false };

/**
 * Payroll's side of one member's month (and line): the member shares under the group's deduction codes (a bill by
 * line counts the codes of that line only).
 */
export function payrollOf(payroll: PayrollFacts, member: string, period: string, line: LineOfCoverage | null): UnitPayroll {
  const month = payroll.months.get(payrollKey(member, period));
  if (month === undefined) return UNPAID;
  const counted = (code: string) => {
    const codeLine = payroll.codeLines.get(code);
    return codeLine !== undefined && (line === null || codeLine === line);
  };
  const sum = (amounts: ReadonlyMap<string, number>) => [...amounts].reduce((total, [code, cents]) => (counted(code) ? total + cents : total), 0);
  return { deductedCents: sum(month.deducted), expectedMemberShareCents: sum(month.owed), paid: month.paid };
}

function periodResult(
  period: string,
  line: LineOfCoverage | null,
  lines: readonly MatchedBillLine[],
  owed: readonly CoverageEntry[],
  billedBeforeCents: number,
  payroll: UnitPayroll,
): PeriodResult {
  const billedCents = lines.reduce((sum, l) => sum + l.amountCents, 0);
  const expectedCents = owed.reduce((sum, entry) => sum + entry.premiumCents, 0);
  const stated = lines.filter((l) => l.tiers !== null).flatMap((l) => l.tiers!);
  return {
    period,
    lineOfCoverage: line,
    billedCents,
    billedBeforeCents,
    expectedCents,
    differenceCents: billedCents + billedBeforeCents - expectedCents,
    deductedCents: payroll.deductedCents,
    expectedMemberShareCents: payroll.expectedMemberShareCents,
    payrollPaid: payroll.paid,
    billedTiers: stated.length === 0 ? null : [...new Set(stated)],
    ourTiers: owed.map((entry) => entry.tier),
    fileLines: lines.map((l) => l.line),
  };
}

/** The discrepancies of one member's month (and line), in the order of PREMIUM_BILL_DISCREPANCY_KINDS. */
export function periodDiscrepancies(
  compared: PeriodResult,
  lines: readonly MatchedBillLine[],
  owed: readonly CoverageEntry[],
  windowStart: string,
): PremiumBillDiscrepancy[] {
  const found: PremiumBillDiscrepancy[] = [];
  const at = { period: compared.period, lineOfCoverage: compared.lineOfCoverage, fileLines: compared.fileLines, benefitChanges: [] };
  const billedInAll = compared.billedCents + compared.billedBeforeCents;
  const what = `${compared.period}${compared.lineOfCoverage ? ` (${compared.lineOfCoverage})` : ''}`;
  if (owed.length === 0 && billedInAll !== 0) {
    found.push({ kind: 'billed_not_covered', ...at, message: `Billed ${dollars(billedInAll)} for ${what}; we cover no one then.` });
  } else if (owed.length > 0 && lines.length === 0 && compared.billedBeforeCents === 0) {
    found.push({ kind: 'covered_not_billed', ...at, message: `Covered in ${what} (premium ${dollars(compared.expectedCents)}); not on the bill.` });
  } else if (owed.length > 0) {
    const mismatched = lines.filter((l) => l.tiers !== null && !owed.some((entry) => l.tiers!.includes(entry.tier)));
    if (mismatched.length > 0) {
      found.push({
        kind: 'tier_mismatch',
        ...at,
        fileLines: mismatched.map((l) => l.line),
        message: `Billed at ${[...new Set(mismatched.flatMap((l) => l.tiers!))].join(' or ')}; our tier in ${what} is ${owed.map((e) => e.tier).join(', ')}.`,
      });
    }
    if (compared.differenceCents !== 0) {
      const before = compared.billedBeforeCents === 0 ? '' : ` (${dollars(compared.billedBeforeCents)} of it on earlier bills)`;
      found.push({
        kind: 'amount_mismatch',
        ...at,
        message: `Billed ${dollars(billedInAll)}${before} for ${what}; our premium is ${dollars(compared.expectedCents)}.`,
      });
    }
  }
  const monthEnd = endOfMonth(`${compared.period}-01`);
  if (lines.length > 0 && monthEnd < windowStart) {
    found.push({
      kind: 'retro_outside_window',
      ...at,
      message: `A line for ${what}, which ended before the carrier's correction window (from ${windowStart}).`,
    });
  }
  if (compared.payrollPaid && compared.deductedCents !== compared.expectedMemberShareCents) {
    found.push({
      kind: 'deduction_mismatch',
      ...at,
      fileLines: [],
      message: `Payroll took ${dollars(compared.deductedCents)} of the member's share for ${what}; our coverage owes ${dollars(compared.expectedMemberShareCents)} for its pay dates.`,
    });
  }
  return found;
}

/** The first day the carrier still corrects: `days` before the bill's date. */
export function windowStartOf(billDate: string, days: number): string {
  return addDays(billDate, -days);
}
