import { describe, expect, it } from 'vitest';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { diffCoverage, type CoverageItem } from './benefit-change-diff.ts';
import type { BenefitChangeStatus, ChangeKind } from './benefit-change.table.ts';

function item(overrides: Partial<CoverageItem> = {}): CoverageItem {
  return {
    enrolledPlanId: 'ep_before',
    planId: 'plan_gold',
    groupId: 'grp_carrier_a',
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
/** The day the enrollment's coverage starts: what it replaces ends the day before. */
const START = '2026-06-01';

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
      after({
        planId: 'plan_silver',
        effectiveEnd: '2027-12-31',
        dependentIds: [],
        volumeCents: 100,
        employerContributionCents: 1,
        memberContributionCents: 2,
      }),
      'change',
      ['date_change', 'plan_change', 'dependent_change', 'volume_change', 'contribution_change'],
    ],
    ['the plan is renewed by its successor on the same terms', before, after({ planId: 'plan_gold_2027', previousPlanId: 'plan_gold' }), 'no_change', []],
    [
      'the plan is renewed by its successor for a new year at new rates',
      before,
      after({
        planId: 'plan_gold_2027',
        previousPlanId: 'plan_gold',
        effectiveStart: '2027-01-01',
        effectiveEnd: '2027-12-31',
        memberContributionCents: 12_000,
      }),
      'change',
      ['date_change', 'contribution_change'],
    ],
    ['the new plan renews another plan, not this one', before, after({ planId: 'plan_silver_2027', previousPlanId: 'plan_silver' }), 'change', ['plan_change']],
    [
      'the member goes back from the successor to the plan it renews',
      item({ planId: 'plan_gold_2027', previousPlanId: 'plan_gold' }),
      after({ planId: 'plan_gold' }),
      'change',
      ['plan_change'],
    ],
    ['plan and dependents differ', before, after({ planId: 'plan_silver', dependentIds: [] }), 'change', ['plan_change', 'dependent_change']],
    ['plan and contributions differ', before, after({ planId: 'plan_silver', employerContributionCents: 1 }), 'change', ['plan_change', 'contribution_change']],
  ];

  it.each(cases)('when %s, then it is as expected, dated by the new coverage', (_name, previous, next, status, changes) => {
    const result = diffCoverage(previous ? [previous] : [], [next], [], START);
    expect(result).toEqual([
      { lineOfCoverage: 'medical', status, changes, previous, next, coverageStart: next.effectiveStart, coverageEnd: next.effectiveEnd },
    ]);
  });
});

describe('diffCoverage of a line whose plan moves to another carrier group', () => {
  type Entry = [BenefitChangeStatus, ChangeKind[], string | null, string | null];
  const cases: [string, CoverageItem, Entry[]][] = [
    ['the plan stays in its group', after({ planId: 'plan_silver' }), [['change', ['plan_change'], 'ep_before', 'ep_after']]],
    [
      "the plan is another carrier's",
      after({ planId: 'plan_b', groupId: 'grp_carrier_b' }),
      [
        ['removed', [], 'ep_before', null],
        ['new', [], null, 'ep_after'],
      ],
    ],
    [
      'the plan is in another group of the same carrier',
      after({ planId: 'plan_a2', groupId: 'grp_carrier_a_2' }),
      [
        ['removed', [], 'ep_before', null],
        ['new', [], null, 'ep_after'],
      ],
    ],
    [
      'everything else differs too, then nothing is listed as changed: each carrier gets a whole coverage',
      after({ planId: 'plan_b', groupId: 'grp_carrier_b', effectiveEnd: '2027-05-31', dependentIds: [], volumeCents: 1, employerContributionCents: 1 }),
      [
        ['removed', [], 'ep_before', null],
        ['new', [], null, 'ep_after'],
      ],
    ],
  ];

  it.each(cases)('when %s, then the changes are as expected', (_name, next, expected) => {
    const result = diffCoverage([before], [next], [], START);
    expect(
      result.map((change): Entry => [change.status, change.changes, change.previous?.enrolledPlanId ?? null, change.next?.enrolledPlanId ?? null]),
    ).toEqual(expected);
    expect(result.every((change) => change.lineOfCoverage === 'medical')).toBe(true);
  });

  it("when it moves, then the old group's removed change ends the day before the new coverage starts, and the new one carries the new coverage", () => {
    const next = after({ planId: 'plan_b', groupId: 'grp_carrier_b', effectiveStart: START, effectiveEnd: '2027-05-31' });
    expect(diffCoverage([before], [next], [], START)).toEqual([
      { lineOfCoverage: 'medical', status: 'removed', changes: [], previous: before, next: null, coverageStart: '2026-01-01', coverageEnd: '2026-05-31' },
      { lineOfCoverage: 'medical', status: 'new', changes: [], previous: null, next, coverageStart: START, coverageEnd: '2027-05-31' },
    ]);
  });
});

describe('diffCoverage coverage dates of every status', () => {
  const cases: [string, CoverageItem[], CoverageItem[], LineOfCoverage[], string, BenefitChangeStatus, string | null, string | null][] = [
    ['a new line: the new coverage', [], [after({ effectiveStart: START })], [], START, 'new', START, '2026-12-31'],
    ['an unchanged line: the new coverage', [before], [after({ effectiveStart: START })], [], START, 'no_change', START, '2026-12-31'],
    ['a changed line: the new coverage', [before], [after({ effectiveStart: START, planId: 'plan_silver' })], [], START, 'change', START, '2026-12-31'],
    ['a new coverage without dates: none', [], [after({ effectiveStart: null, effectiveEnd: null })], [], START, 'new', null, null],
    ['a waived line: the old coverage up to the day before', [before], [], ['medical'], START, 'removed', '2026-01-01', '2026-05-31'],
    ['a waived open-ended coverage: up to the day before', [item({ effectiveEnd: null })], [], ['medical'], START, 'removed', '2026-01-01', '2026-05-31'],
    ['a waived coverage ending sooner: its own end', [item({ effectiveEnd: '2026-03-31' })], [], ['medical'], START, 'removed', '2026-01-01', '2026-03-31'],
    [
      'a waived coverage ending that very day: its own end',
      [item({ effectiveEnd: '2026-05-31' })],
      [],
      ['medical'],
      START,
      'removed',
      '2026-01-01',
      '2026-05-31',
    ],
    [
      'a termination (coverage ends 2026-03-10, the enrollment starts the day after)',
      [before],
      [],
      ['medical'],
      '2026-03-11',
      'removed',
      '2026-01-01',
      '2026-03-10',
    ],
    [
      'a change on January 1: the old coverage ends on December 31',
      [item({ effectiveStart: '2025-01-01', effectiveEnd: null })],
      [],
      ['medical'],
      '2026-01-01',
      'removed',
      '2025-01-01',
      '2025-12-31',
    ],
    [
      'a change on March 1 of a leap year: the old coverage ends on February 29',
      [item({ effectiveStart: '2028-01-01', effectiveEnd: null })],
      [],
      ['medical'],
      '2028-03-01',
      'removed',
      '2028-01-01',
      '2028-02-29',
    ],
  ];

  it.each(cases)('when %s', (_name, previous, next, waived, start, status, coverageStart, coverageEnd) => {
    const [change] = diffCoverage(previous, next, waived, start);
    expect(change).toMatchObject({ status, coverageStart, coverageEnd });
  });
});

describe('diffCoverage of waived lines', () => {
  it('when a line the member had is waived, then it is removed, dated up to the day before the enrollment starts', () => {
    expect(diffCoverage([before], [], ['medical'], START)).toEqual([
      { lineOfCoverage: 'medical', status: 'removed', changes: [], previous: before, next: null, coverageStart: '2026-01-01', coverageEnd: '2026-05-31' },
    ]);
  });

  it('when a line the member never had is waived, then nothing is recorded for it', () => {
    expect(diffCoverage([], [], ['medical'], START)).toEqual([]);
    expect(diffCoverage([item({ lineOfCoverage: 'dental' })], [], ['vision'], START)).toEqual([]);
  });

  it('when a line is waived twice, then it is removed once', () => {
    expect(diffCoverage([before], [], ['medical', 'medical'], START)).toHaveLength(1);
  });
});

describe('diffCoverage of a whole enrollment', () => {
  const line = (lineOfCoverage: LineOfCoverage, id: string) => item({ lineOfCoverage, enrolledPlanId: `ep_${id}`, planId: `plan_${lineOfCoverage}` });

  it('when lines are elected, kept, moved, waived and left out, then elected ones come first in their order (a move as removed then new), then waived ones, and untouched lines are absent', () => {
    const previous = [line('medical', 'm0'), line('dental', 'd0'), line('vision', 'v0'), line('life', 'l0'), line('accident', 'a0')];
    const next = [
      item({ ...line('dental', 'd1'), dependentIds: [] }),
      line('hsa', 'h1'),
      item({ ...line('accident', 'a1'), groupId: 'grp_carrier_b' }),
      line('medical', 'm1'),
    ];
    const result = diffCoverage(previous, next, ['vision', 'critical_illness'], START);
    expect(result.map((change) => [change.lineOfCoverage, change.status, change.changes])).toEqual([
      ['dental', 'change', ['dependent_change']],
      ['hsa', 'new', []],
      ['accident', 'removed', []],
      ['accident', 'new', []],
      ['medical', 'no_change', []],
      ['vision', 'removed', []],
    ]);
    expect(result.map((change) => [change.previous?.enrolledPlanId ?? null, change.next?.enrolledPlanId ?? null])).toEqual([
      ['ep_d0', 'ep_d1'],
      [null, 'ep_h1'],
      ['ep_a0', null],
      [null, 'ep_a1'],
      ['ep_m0', 'ep_m1'],
      ['ep_v0', null],
    ]);
  });

  it('when nothing is elected or waived, then there are no changes', () => {
    expect(diffCoverage([line('medical', 'm0')], [], [], START)).toEqual([]);
  });
});
