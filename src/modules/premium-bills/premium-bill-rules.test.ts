import { describe, expect, it } from 'vitest';
import {
  compareBill,
  owedIn,
  payrollKey,
  type CoverageEntry,
  type MatchedBillLine,
  type PayrollFacts,
  type PremiumBillDiscrepancyKind,
} from './premium-bill-rules.ts';

const entry = (overrides: Partial<CoverageEntry> = {}): CoverageEntry => ({
  enrolledPlanId: 'ep_1',
  lineOfCoverage: 'medical',
  planId: 'plan_1',
  start: '2026-01-01',
  end: '2026-12-31',
  createdAt: '2026-01-01T00:00:00.000Z',
  premiumCents: 50_000,
  tier: 'member',
  ...overrides,
});

const line = (overrides: Partial<MatchedBillLine> = {}): MatchedBillLine => ({
  line: 2,
  memberKey: 'mem_1',
  tiers: ['member'],
  period: '2026-03',
  amountCents: 50_000,
  lineOfCoverage: null,
  memberId: 'mem_1',
  unknownKey: null,
  ...overrides,
});

describe('the coverage a month owes (whole months, no proration)', () => {
  it.each([
    ['in force all month', [entry()], '2026-03', ['ep_1']],
    ['starts on the first day', [entry({ start: '2026-03-01' })], '2026-03', ['ep_1']],
    ['starts mid-month: owed that whole month', [entry({ start: '2026-03-15' })], '2026-03', ['ep_1']],
    ['starts on the first of the next month', [entry({ start: '2026-04-01' })], '2026-03', []],
    ['ends on the last day of the month before', [entry({ end: '2026-02-28' })], '2026-03', []],
    ['ends on the first day: owed that whole month', [entry({ end: '2026-03-01' })], '2026-03', ['ep_1']],
    [
      'replaced mid-month: the one in force on the first day',
      [entry({ end: '2026-03-14' }), entry({ enrolledPlanId: 'ep_2', start: '2026-03-15' })],
      '2026-03',
      ['ep_1'],
    ],
    [
      'two starting in the month: the first to start',
      [entry({ start: '2026-03-20' }), entry({ enrolledPlanId: 'ep_2', start: '2026-03-10' })],
      '2026-03',
      ['ep_2'],
    ],
    ['a cancellation (ends before it starts) owes nothing', [entry({ start: '2026-03-01', end: '2026-02-28' })], '2026-03', []],
    ['one per line', [entry(), entry({ enrolledPlanId: 'ep_2', lineOfCoverage: 'dental' })], '2026-03', ['ep_2', 'ep_1']],
  ])('%s', (_name, entries, period, expected) => {
    expect(owedIn(entries, period).map((e) => e.enrolledPlanId)).toEqual(expected);
  });
});

const kinds = (input: Partial<Parameters<typeof compareBill>[0]>): [string | null, PremiumBillDiscrepancyKind][] =>
  compareBill({
    period: '2026-03',
    windowStart: '2026-01-01',
    byLine: false,
    lines: [],
    coverage: new Map(),
    billedBefore: new Map(),
    retroChanges: [],
    ...input,
  }).members.flatMap((m) => m.discrepancies.map((d) => [m.member, d.kind] as [string | null, PremiumBillDiscrepancyKind]));

describe('comparing a bill (docs/decisions.md "Premium bills")', () => {
  it.each<[string, Partial<Parameters<typeof compareBill>[0]>, [string | null, PremiumBillDiscrepancyKind][]]>([
    ['billed as covered: clean', { lines: [line()], coverage: new Map([['mem_1', [entry()]]]) }, []],
    ['billed, covered by nothing of ours', { lines: [line()] }, [['mem_1', 'billed_not_covered']]],
    ['billed zero and not covered: clean', { lines: [line({ amountCents: 0 })] }, []],
    ['a key of nobody', { lines: [line({ memberId: null, unknownKey: 0 })] }, [[null, 'billed_not_covered']]],
    ['covered, not on the bill', { coverage: new Map([['mem_1', [entry()]]]) }, [['mem_1', 'covered_not_billed']]],
    ['covered from the next month only: nothing owed', { coverage: new Map([['mem_1', [entry({ start: '2026-04-01' })]]]) }, []],
    ['another tier, same amount', { lines: [line({ tiers: ['member_family'] })], coverage: new Map([['mem_1', [entry()]]]) }, [['mem_1', 'tier_mismatch']]],
    [
      'ECH stands for one child or several',
      { lines: [line({ tiers: ['member_child', 'member_children'] })], coverage: new Map([['mem_1', [entry({ tier: 'member_children' })]]]) },
      [],
    ],
    ['no tier stated: not compared', { lines: [line({ tiers: null })], coverage: new Map([['mem_1', [entry()]]]) }, []],
    ['another amount', { lines: [line({ amountCents: 50_001 })], coverage: new Map([['mem_1', [entry()]]]) }, [['mem_1', 'amount_mismatch']]],
    [
      'a charge and its credit net to the premium',
      { lines: [line({ amountCents: 60_000 }), line({ line: 3, amountCents: -10_000 })], coverage: new Map([['mem_1', [entry()]]]) },
      [],
    ],
    [
      'a retro credit of a month an earlier bill charged: clean',
      {
        lines: [line({ period: '2026-02', amountCents: -50_000 })],
        coverage: new Map([['mem_1', [entry({ end: '2026-01-31' })]]]),
        billedBefore: new Map([['mem_1|2026-02|', 50_000]]),
      },
      [],
    ],
    [
      'a line for a month ending the day before the window: outside it',
      { lines: [line({ period: '2025-12' })], coverage: new Map([['mem_1', [entry({ start: '2025-01-01', end: '2025-12-31' })]]]) },
      [['mem_1', 'retro_outside_window']],
    ],
    [
      'a line for the month the window starts in: inside',
      { lines: [line({ period: '2026-01' })], coverage: new Map([['mem_1', [entry({ end: '2026-01-31' })]]]) },
      [],
    ],
    [
      'our change taking effect the day before the window',
      { retroChanges: [{ benefitChangeId: 'bc_1', memberId: 'mem_2', lineOfCoverage: 'medical', effective: '2025-12-31' }] },
      [['mem_2', 'retro_outside_window']],
    ],
  ])('%s', (_name, input, expected) => {
    expect(kinds(input)).toEqual(expected);
  });

  it('by line: each line of coverage is compared on its own, and totals add up', () => {
    const result = compareBill({
      period: '2026-03',
      windowStart: '2026-01-01',
      byLine: true,
      lines: [line({ lineOfCoverage: 'medical' }), line({ line: 3, lineOfCoverage: 'dental', amountCents: 4_000, tiers: null })],
      coverage: new Map([['mem_1', [entry(), entry({ enrolledPlanId: 'ep_2', lineOfCoverage: 'dental', premiumCents: 5_000 })]]]),
      billedBefore: new Map(),
      retroChanges: [],
    });
    expect(result.members.map((m) => m.discrepancies.map((d) => [d.kind, d.lineOfCoverage, d.fileLines]))).toEqual([[['amount_mismatch', 'dental', [3]]]]);
    expect(result.totals).toEqual({
      billedCents: 54_000,
      billedBeforeCents: 0,
      expectedCents: 55_000,
      differenceCents: -1_000,
      deductedCents: 0,
      expectedMemberShareCents: 0,
    });
    expect([result.membersBilled, result.membersCovered, result.membersReconciled]).toEqual([1, 1, 0]);
    expect(result.billed).toEqual([
      ['mem_1', '2026-03', 'dental', 4_000],
      ['mem_1', '2026-03', 'medical', 50_000],
    ]);
  });
});

/** Payroll's side: the group's codes MED (medical) and DEN (dental); mem_1's March as given. */
const payroll = (month: { paid: boolean; deducted: [string, number][]; owed: [string, number][] }): PayrollFacts => ({
  codeLines: new Map([
    ['MED', 'medical'],
    ['DEN', 'dental'],
  ]),
  months: new Map([[payrollKey('mem_1', '2026-03'), { paid: month.paid, deducted: new Map(month.deducted), owed: new Map(month.owed) }]]),
});
const billedAsCovered = { lines: [line()], coverage: new Map([['mem_1', [entry()]]]) };

describe('what payroll deducted (docs/decisions.md "Premium bills", What payroll deducted)', () => {
  it.each<[string, Partial<Parameters<typeof compareBill>[0]>, [string | null, PremiumBillDiscrepancyKind][]]>([
    [
      'paid month, payroll took what is owed: clean',
      { ...billedAsCovered, payroll: payroll({ paid: true, deducted: [['MED', 12_810]], owed: [['MED', 12_810]] }) },
      [],
    ],
    [
      'paid month, payroll took less',
      { ...billedAsCovered, payroll: payroll({ paid: true, deducted: [['MED', 6_405]], owed: [['MED', 12_810]] }) },
      [['mem_1', 'deduction_mismatch']],
    ],
    [
      'paid month, payroll took nothing of a share owed',
      { ...billedAsCovered, payroll: payroll({ paid: true, deducted: [], owed: [['MED', 12_810]] }) },
      [['mem_1', 'deduction_mismatch']],
    ],
    ['a month not yet paid: no mismatch', { ...billedAsCovered, payroll: payroll({ paid: false, deducted: [], owed: [['MED', 12_810]] }) }, []],
    ["another group's code is not counted", { ...billedAsCovered, payroll: payroll({ paid: true, deducted: [['LIFE', 500]], owed: [['LIFE', 900]] }) }, []],
    [
      'payroll still taking after coverage ended (billed, not covered)',
      { lines: [line()], payroll: payroll({ paid: true, deducted: [['MED', 12_810]], owed: [] }) },
      [
        ['mem_1', 'billed_not_covered'],
        ['mem_1', 'deduction_mismatch'],
      ],
    ],
    ['no payroll facts: no mismatch', billedAsCovered, []],
  ])('%s', (_name, input, expected) => {
    expect(kinds(input)).toEqual(expected);
  });

  it('by line: each line counts its own codes; the month shows what payroll took beside what is owed, totals add up', () => {
    const result = compareBill({
      period: '2026-03',
      windowStart: '2026-01-01',
      byLine: true,
      lines: [line({ lineOfCoverage: 'medical' }), line({ line: 3, lineOfCoverage: 'dental', amountCents: 5_000, tiers: null })],
      coverage: new Map([['mem_1', [entry(), entry({ enrolledPlanId: 'ep_2', lineOfCoverage: 'dental', premiumCents: 5_000 })]]]),
      billedBefore: new Map(),
      retroChanges: [],
      payroll: payroll({
        paid: true,
        deducted: [
          ['MED', 12_810],
          ['DEN', 1_000],
        ],
        owed: [
          ['MED', 12_810],
          ['DEN', 1_250],
        ],
      }),
    });
    expect(result.members.map((m) => m.discrepancies.map((d) => [d.kind, d.lineOfCoverage]))).toEqual([[['deduction_mismatch', 'dental']]]);
    expect(result.members[0]!.periods).toMatchObject([{ lineOfCoverage: 'dental', deductedCents: 1_000, expectedMemberShareCents: 1_250, payrollPaid: true }]);
    expect(result.members[0]).toMatchObject({ deductedCents: 1_000, expectedMemberShareCents: 1_250, differenceCents: 0 });
    expect(result.totals).toMatchObject({ deductedCents: 13_810, expectedMemberShareCents: 14_060, differenceCents: 0 });
  });
});
