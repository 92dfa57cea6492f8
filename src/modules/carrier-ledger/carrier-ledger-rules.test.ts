import { describe, expect, it } from 'vitest';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import { believedOn, holdsAfter, isCancelled, ledgerKey, toldCoverageAt, type LedgerByKey, type LedgerEntry } from './carrier-ledger-rules.ts';

function item(overrides: Partial<CoverageItem> = {}): CoverageItem {
  return {
    enrolledPlanId: 'ep_2026',
    planId: 'plan_aetna_2026',
    groupId: 'grp_aetna',
    previousPlanId: null,
    lineOfCoverage: 'medical',
    effectiveStart: '2026-01-01',
    effectiveEnd: '2026-12-31',
    dependentIds: [],
    volumeCents: null,
    employerContributionCents: 40_000,
    memberContributionCents: 10_000,
    ...overrides,
  };
}

function entry(start: string | null, end: string | null, overrides: Partial<CoverageItem> = {}): LedgerEntry {
  const covered = item(overrides);
  return { groupId: covered.groupId, lineOfCoverage: covered.lineOfCoverage, start, end, item: covered };
}

describe('believedOn: what the carrier believes on a day, from what it was told in order', () => {
  const planA = entry('2026-01-01', null, { planId: 'plan_a', enrolledPlanId: 'ep_a' });
  const planB = entry('2026-07-01', null, { planId: 'plan_b', enrolledPlanId: 'ep_b' });
  const endedJune = entry('2026-01-01', '2026-06-30', { planId: 'plan_a', enrolledPlanId: 'ep_a' });
  const cases: [string, LedgerEntry[], string, string | undefined][] = [
    ['nothing told', [], '2026-03-01', undefined],
    ['an add, the day before it starts', [planA], '2025-12-31', undefined],
    ['an add, its first day', [planA], '2026-01-01', 'plan_a'],
    ['an add is open-ended: a plan year later it still holds', [planA], '2027-06-01', 'plan_a'],
    ['a mid-year change: before it, the plan told first', [planA, planB], '2026-06-30', 'plan_a'],
    ['a mid-year change: from its start, the new plan', [planA, planB], '2026-07-01', 'plan_b'],
    ['a termination: its last day covered', [planA, endedJune], '2026-06-30', 'plan_a'],
    ['a termination: the day after, nothing', [planA, endedJune], '2026-07-01', undefined],
    ['a cancellation covers no day', [entry('2027-01-01', '2026-12-31')], '2027-01-01', undefined],
    [
      'a retroactive change speaks from its earlier start',
      [planB, entry('2026-05-20', null, { planId: 'plan_b', dependentIds: ['dep_baby'] })],
      '2026-08-01',
      'plan_b',
    ],
  ];
  it.each(cases)('%s', (_name, told, day, plan) => {
    expect(believedOn(told, day)?.item.planId).toBe(plan);
  });

  it('a retroactive change carries who it covers from its start', () => {
    const told = [entry('2026-12-01', null), entry('2026-11-24', null, { dependentIds: ['dep_baby'] })];
    expect(believedOn(told, '2026-11-24')?.item.dependentIds).toEqual(['dep_baby']);
    expect(believedOn(told, '2026-12-05')?.item.dependentIds).toEqual(['dep_baby']);
    expect(believedOn(told, '2026-11-23')).toBeUndefined();
  });
});

describe('isCancelled', () => {
  it.each([
    ['2027-01-01', '2026-12-31', true],
    ['2027-01-01', '2027-01-01', false],
    ['2027-01-01', null, false],
    [null, '2026-12-31', false],
  ] as const)('start %s end %s: %s', (start, end, cancelled) => {
    expect(isCancelled({ start, end })).toBe(cancelled);
  });
});

/** Entries grouped per group and line, in the order given. */
function byKey(...entries: LedgerEntry[]): LedgerByKey {
  const grouped = new Map<string, LedgerEntry[]>();
  for (const told of entries)
    grouped.set(ledgerKey(told.groupId, told.lineOfCoverage), [...(grouped.get(ledgerKey(told.groupId, told.lineOfCoverage)) ?? []), told]);
  return grouped;
}

describe('toldCoverageAt: the told coverage a new coverage is measured against', () => {
  const aetna = entry('2026-01-01', null);
  const kaiser2027 = item({
    groupId: 'grp_kaiser',
    planId: 'plan_kaiser_2027',
    enrolledPlanId: 'ep_k',
    effectiveStart: '2027-01-01',
    effectiveEnd: '2027-12-31',
  });
  const plans = (told: ReturnType<typeof toldCoverageAt>) => told.map((entry) => entry.item.planId);

  it('coverage carried across the plan year (open-ended) is held on the renewal day: a switch must end it', () => {
    expect(plans(toldCoverageAt(byKey(aetna), '2027-01-01', [kaiser2027]))).toEqual(['plan_aetna_2026']);
  });
  it('a waiver of the line on the renewal day is measured against it too', () => {
    expect(plans(toldCoverageAt(byKey(aetna), '2027-01-01', []))).toEqual(['plan_aetna_2026']);
  });
  it('coverage told to end the day before (a termination: last day in) is nothing to measure against', () => {
    expect(plans(toldCoverageAt(byKey(aetna, entry('2026-01-01', '2026-12-31')), '2027-01-01', [kaiser2027]))).toEqual([]);
    expect(plans(toldCoverageAt(byKey(aetna, entry('2026-01-01', '2026-12-31')), '2026-12-31', [kaiser2027]))).toEqual(['plan_aetna_2026']);
  });
  it('a cancellation is nothing to measure against', () => {
    expect(plans(toldCoverageAt(byKey(entry('2027-01-01', '2026-12-31')), '2027-01-01', [kaiser2027]))).toEqual([]);
  });
  it("a mid-year change is measured against the plan held on its start, not next year's renewal told already", () => {
    const renewal = entry('2027-01-01', null, { planId: 'plan_aetna_2027', previousPlanId: 'plan_aetna_2026' });
    const midYear = item({ planId: 'plan_aetna_b', effectiveStart: '2026-07-01' });
    expect(plans(toldCoverageAt(byKey(aetna, renewal), '2026-07-01', [midYear]))).toEqual(['plan_aetna_2026']);
  });
  it("a retroactive start: the same group's later coverage that the new one runs into (last day in: the day before it starts)", () => {
    const later = entry('2026-12-01', null);
    const newborn = item({ effectiveStart: '2026-11-24', effectiveEnd: '2026-11-30', enrolledPlanId: 'ep_newborn' });
    expect(plans(toldCoverageAt(byKey(later), '2026-11-24', [newborn]))).toEqual(['plan_aetna_2026']);
    // First day out: new coverage ending two days before the later one starts does not reach it.
    expect(plans(toldCoverageAt(byKey(later), '2026-11-24', [{ ...newborn, effectiveEnd: '2026-11-29' }]))).toEqual([]);
  });
  it("another group's later coverage is not replaced by an earlier start", () => {
    const kaiserLater = entry('2027-01-01', null, { groupId: 'grp_kaiser', planId: 'plan_kaiser_2027' });
    const midYear = item({ planId: 'plan_aetna_b', effectiveStart: '2026-07-01' });
    expect(plans(toldCoverageAt(byKey(aetna, kaiserLater), '2026-07-01', [midYear]))).toEqual(['plan_aetna_2026']);
  });
});

describe('holdsAfter: whether the carrier holds the line after a last day', () => {
  it.each([
    ['open coverage', [entry('2026-01-01', null)], '2026-06-30', true],
    ['told to end that day (last day in)', [entry('2026-01-01', null), entry('2026-01-01', '2026-06-30')], '2026-06-30', false],
    ['told to end the day after (first day out)', [entry('2026-01-01', null), entry('2026-01-01', '2026-07-01')], '2026-06-30', true],
    ['ended, but next year told to start', [entry('2026-01-01', '2026-06-30'), entry('2027-01-01', null)], '2026-06-30', true],
    ['next year told, then cancelled', [entry('2026-01-01', '2026-06-30'), entry('2027-01-01', null), entry('2027-01-01', '2026-12-31')], '2026-06-30', false],
  ] as const)('%s', (_name, entries, lastDay, holds) => {
    expect(holdsAfter(entries, lastDay)).toBe(holds);
  });
});
