import { describe, expect, it } from 'vitest';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { diffCoverage, type CoverageItem } from './benefit-change-diff.ts';
import type { BenefitChangeStatus, ChangeKind } from './benefit-change.table.ts';

function item(overrides: Partial<CoverageItem> = {}): CoverageItem {
  return {
    enrolledPlanId: 'ep_before',
    planId: 'plan_gold',
    previousPlanId: null,
    lineOfCoverage: 'medical',
    effectiveStart: '2026-01-01',
    effectiveEnd: '2026-12-31',
    dependentIds: ['dep_a', 'dep_b'],
    volumeCents: null,
    employerContributionCents: 40_000,
    memberContributionCents: 10_000,
    ...overrides,
  };
}

const before = item();
const after = (overrides: Partial<CoverageItem> = {}) => item({ enrolledPlanId: 'ep_after', ...overrides });

describe('diffCoverage of one elected line against the coverage before it', () => {
  const cases: [string, CoverageItem | null, CoverageItem, BenefitChangeStatus, ChangeKind[]][] = [
    ['the member had no coverage on the line', null, after(), 'new', []],
    ['the same plan comes back identical', before, after(), 'no_change', []],
    ['only the start moves (a mid-year change keeps the plan year end)', before, after({ effectiveStart: '2026-06-01' }), 'no_change', []],
    ['the dependents are the same in another order', before, after({ dependentIds: ['dep_b', 'dep_a'] }), 'no_change', []],
    ['the plan differs', before, after({ planId: 'plan_silver' }), 'change', ['plan_change']],
    ['the end differs (a renewal)', before, after({ effectiveStart: '2027-01-01', effectiveEnd: '2027-12-31' }), 'change', ['date_change']],
    ['a dependent is added', before, after({ dependentIds: ['dep_a', 'dep_b', 'dep_c'] }), 'change', ['dependent_change']],
    ['a dependent is dropped', before, after({ dependentIds: ['dep_a'] }), 'change', ['dependent_change']],
    ['a dependent is swapped for another', before, after({ dependentIds: ['dep_a', 'dep_c'] }), 'change', ['dependent_change']],
    ['the volume differs', item({ volumeCents: 5_000_000 }), after({ volumeCents: 10_000_000 }), 'change', ['volume_change']],
    ['a volume appears', before, after({ volumeCents: 5_000_000 }), 'change', ['volume_change']],
    ['the employer contribution differs', before, after({ employerContributionCents: 45_000 }), 'change', ['contribution_change']],
    ['the member contribution differs', before, after({ memberContributionCents: 5_000 }), 'change', ['contribution_change']],
    ['a contribution becomes unknown', before, after({ memberContributionCents: null }), 'change', ['contribution_change']],
    [
      'everything differs, then every kind is listed in CHANGE_KINDS order',
      before,
      after({ planId: 'plan_silver', effectiveEnd: '2027-12-31', dependentIds: [], volumeCents: 100, employerContributionCents: 1, memberContributionCents: 2 }),
      'change',
      ['date_change', 'plan_change', 'dependent_change', 'volume_change', 'contribution_change'],
    ],
    ['the plan is renewed by its successor on the same terms', before, after({ planId: 'plan_gold_2027', previousPlanId: 'plan_gold' }), 'no_change', []],
    [
      'the plan is renewed by its successor for a new year at new rates',
      before,
      after({ planId: 'plan_gold_2027', previousPlanId: 'plan_gold', effectiveStart: '2027-01-01', effectiveEnd: '2027-12-31', memberContributionCents: 12_000 }),
      'change',
      ['date_change', 'contribution_change'],
    ],
    ['the new plan renews another plan, not this one', before, after({ planId: 'plan_silver_2027', previousPlanId: 'plan_silver' }), 'change', ['plan_change']],
    ['the member goes back from the successor to the plan it renews', item({ planId: 'plan_gold_2027', previousPlanId: 'plan_gold' }), after({ planId: 'plan_gold' }), 'change', ['plan_change']],
    ['plan and dependents differ', before, after({ planId: 'plan_silver', dependentIds: [] }), 'change', ['plan_change', 'dependent_change']],
    ['plan and contributions differ', before, after({ planId: 'plan_silver', employerContributionCents: 1 }), 'change', ['plan_change', 'contribution_change']],
  ];

  it.each(cases)('when %s, then it is as expected', (_name, previous, next, status, changes) => {
    const result = diffCoverage(previous ? [previous] : [], [next], []);
    expect(result).toEqual([{ lineOfCoverage: 'medical', status, changes, previous, next }]);
  });
});

describe('diffCoverage of waived lines', () => {
  it('when a line the member had is waived, then it is removed', () => {
    expect(diffCoverage([before], [], ['medical'])).toEqual([
      { lineOfCoverage: 'medical', status: 'removed', changes: [], previous: before, next: null },
    ]);
  });

  it('when a line the member never had is waived, then nothing is recorded for it', () => {
    expect(diffCoverage([], [], ['medical'])).toEqual([]);
    expect(diffCoverage([item({ lineOfCoverage: 'dental' })], [], ['vision'])).toEqual([]);
  });

  it('when a line is waived twice, then it is removed once', () => {
    expect(diffCoverage([before], [], ['medical', 'medical'])).toHaveLength(1);
  });
});

describe('diffCoverage of a whole enrollment', () => {
  const line = (lineOfCoverage: LineOfCoverage, id: string) => item({ lineOfCoverage, enrolledPlanId: `ep_${id}`, planId: `plan_${lineOfCoverage}` });

  it('when lines are elected, kept, waived and left out, then elected ones come first in their order, then waived ones, and untouched lines are absent', () => {
    const previous = [line('medical', 'm0'), line('dental', 'd0'), line('vision', 'v0'), line('life', 'l0')];
    const next = [item({ ...line('dental', 'd1'), dependentIds: [] }), line('hsa', 'h1'), line('medical', 'm1')];
    const result = diffCoverage(previous, next, ['vision', 'accident']);
    expect(result.map((change) => [change.lineOfCoverage, change.status, change.changes])).toEqual([
      ['dental', 'change', ['dependent_change']],
      ['hsa', 'new', []],
      ['medical', 'no_change', []],
      ['vision', 'removed', []],
    ]);
    expect(result.map((change) => [change.previous?.enrolledPlanId ?? null, change.next?.enrolledPlanId ?? null])).toEqual([
      ['ep_d0', 'ep_d1'],
      [null, 'ep_h1'],
      ['ep_m0', 'ep_m1'],
      ['ep_v0', null],
    ]);
  });

  it('when nothing is elected or waived, then there are no changes', () => {
    expect(diffCoverage([line('medical', 'm0')], [], [])).toEqual([]);
  });
});
