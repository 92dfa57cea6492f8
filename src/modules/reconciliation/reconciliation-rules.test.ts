import { describe, expect, it } from 'vitest';
import { discrepanciesOf, toldEnd, type LineCoverage } from './reconciliation-rules.ts';

const ours: LineCoverage = {
  lineOfCoverage: 'medical',
  planId: 'plan_a',
  enrolledPlanId: 'ep_1',
  start: '2026-01-01',
  end: null,
  dependentIds: ['dep_1', 'dep_2'],
  volumeCents: null,
};

describe('discrepancies between our coverage and the carrier picture', () => {
  it.each([
    ['the same (dependents in another order)', ours, { ...ours, dependentIds: ['dep_2', 'dep_1'] }, []],
    ['nothing on either side', undefined, undefined, []],
    ['ours only', ours, undefined, ['missing']],
    ['the carrier only', undefined, ours, ['extra']],
    ['another plan', ours, { ...ours, planId: 'plan_b' }, ['plan']],
    ['another start', ours, { ...ours, start: '2026-02-01' }, ['dates']],
    ['an end of ours alone (a replacement the carrier hears as a change)', { ...ours, end: '2026-03-31' }, ours, []],
    ['another end on both sides', { ...ours, end: '2026-03-31' }, { ...ours, end: '2026-04-30' }, ['dates']],
    ['a dependent fewer', ours, { ...ours, dependentIds: ['dep_1'] }, ['dependents']],
    ['another volume', { ...ours, volumeCents: 5_000_000 }, { ...ours, volumeCents: 2_500_000 }, ['volume']],
    ['several at once', ours, { ...ours, planId: 'plan_b', dependentIds: [] }, ['plan', 'dependents']],
  ] as [string, LineCoverage | undefined, LineCoverage | undefined, string[]][])('%s', (_name, a, b, kinds) => {
    expect(discrepanciesOf(a, b)).toEqual(kinds);
  });

  it('compares coverage running to its plan year end as open-ended, as an add tells it', () => {
    expect(toldEnd('2026-12-31', '2026-12-31')).toBeNull();
    expect(toldEnd(null, '2026-12-31')).toBeNull();
    expect(toldEnd('2026-12-30', '2026-12-31')).toBe('2026-12-30');
  });
});
