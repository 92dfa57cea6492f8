import { describe, expect, it } from 'vitest';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import type { LedgerEntry } from '../carrier-ledger/carrier-ledger-rules.ts';
import { retoldChange, type Retelling } from './retell-rules.ts';

const item = (overrides: Partial<CoverageItem> = {}): CoverageItem => ({
  enrolledPlanId: 'ep_1',
  planId: 'plan_gold',
  groupId: 'grp_1',
  previousPlanId: null,
  lineOfCoverage: 'medical',
  effectiveStart: '2026-01-01',
  effectiveEnd: '2026-12-31',
  dependentIds: ['dep_1'],
  volumeCents: null,
  employerContributionCents: 100,
  memberContributionCents: 50,
  ...overrides,
});
const told = (overrides: Partial<LedgerEntry> = {}, itemOverrides: Partial<CoverageItem> = {}): LedgerEntry => ({
  groupId: 'grp_1',
  lineOfCoverage: 'medical',
  start: '2026-01-01',
  end: null,
  item: item(itemOverrides),
  ...overrides,
});
const retell = (overrides: Partial<Retelling>) =>
  retoldChange({ kind: 'correct', told: [told()], ours: item(), day: '2026-03-01', ourEnd: null, differs: [], ...overrides });
const summary = (overrides: Partial<Retelling>) => {
  const change = retell(overrides);
  return change && [change.status, change.changes, change.previous?.enrolledPlanId ?? null, change.next?.enrolledPlanId ?? null, change.coverageStart, change.coverageEnd];
};

describe('the change a resend records', () => {
  it.each([
    ['add: our coverage as new, whatever was told', { kind: 'add' as const }, ['new', [], null, 'ep_1', '2026-01-01', '2026-12-31']],
    ['add without coverage of ours: nothing to tell', { kind: 'add' as const, ours: undefined }, undefined],
    ['correct, the ledger equal to ours: still a change, naming what the file got wrong', { differs: ['plan_change' as const] }, ['change', ['plan_change'], 'ep_1', 'ep_1', '2026-01-01', '2026-12-31']],
    [
      'correct, the ledger behind ours: what differs and what the file got wrong',
      { told: [told({}, { dependentIds: [] })], differs: ['date_change' as const] },
      ['change', ['date_change', 'dependent_change'], 'ep_1', 'ep_1', '2026-01-01', '2026-12-31'],
    ],
    ['correct, nothing told that holds on the day: new', { told: [told({ end: '2026-02-28' })] }, ['new', [], null, 'ep_1', '2026-01-01', '2026-12-31']],
    ['correct, nothing told at all: new', { told: [] }, ['new', [], null, 'ep_1', '2026-01-01', '2026-12-31']],
    ['end, a removal told: told again with its last day', { kind: 'end' as const, ours: undefined, told: [told(), told({ end: '2026-02-28' })] }, ['removed', [], 'ep_1', null, '2026-01-01', '2026-02-28']],
    ['end, open-ended told: ended where ours ended', { kind: 'end' as const, ours: undefined, ourEnd: '2026-01-31' }, ['removed', [], 'ep_1', null, '2026-01-01', '2026-01-31']],
    ['end, open-ended told and ours open: the day before the file', { kind: 'end' as const, ours: undefined }, ['removed', [], 'ep_1', null, '2026-01-01', '2026-02-28']],
    ['end, nothing told: nothing to end', { kind: 'end' as const, ours: undefined, told: [] }, undefined],
  ] as [string, Partial<Retelling>, unknown][])('%s', (_name, overrides, expected) => {
    expect(summary(overrides)).toEqual(expected);
  });

  it('tells the removal with the told coverage ended on its last day', () => {
    expect(retell({ kind: 'end', ours: undefined, ourEnd: '2026-01-31' })?.previous?.effectiveEnd).toBe('2026-01-31');
  });
});
