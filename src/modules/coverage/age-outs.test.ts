import { describe, expect, it } from 'vitest';
import { addDays } from '../../shared/dates.ts';
import { ageOutCandidatesBornBy, ageOutChange, ageOutOf, dueAgeOuts, type AgeOut, type CoveredChild } from './age-outs.ts';

const child = (overrides: Partial<CoveredChild> = {}): CoveredChild => ({
  dependent_id: 'dependent_a',
  member_id: 'member_a',
  provider_id: 'provider_a',
  plan_id: 'plan_medical',
  dob: '2000-05-09',
  has_disability: false,
  disability_certified_on: null,
  effective_start: '2026-01-01',
  effective_end: '2026-12-31',
  ...overrides,
});

describe('ageOutOf (age limit 26)', () => {
  const cases: [string, Partial<CoveredChild>, 'date_of_birth' | 'end_of_month' | 'end_of_year', string, boolean][] = [
    ['date_of_birth: the day before the 26th birthday', {}, 'date_of_birth', '2026-05-08', false],
    ['end_of_month: the last day of the birthday month', {}, 'end_of_month', '2026-05-31', false],
    ['end_of_year: the last day of the birthday year', {}, 'end_of_year', '2026-12-31', false],
    ['a Feb 29 child in a common year', { dob: '2000-02-29' }, 'date_of_birth', '2026-02-27', false],
    ['disabled, certified past the age-out', { has_disability: true, disability_certified_on: '2026-03-01' }, 'date_of_birth', '2027-02-28', true],
    ['disabled, certification lapsing before the age-out', { has_disability: true, disability_certified_on: '2025-01-01' }, 'date_of_birth', '2026-05-08', false],
    ['a certification without a recorded disability', { has_disability: false, disability_certified_on: '2026-03-01' }, 'date_of_birth', '2026-05-08', false],
    ['disabled without a certification', { has_disability: 1, disability_certified_on: null }, 'date_of_birth', '2026-05-08', false],
  ];

  it.each(cases)('when %s, then the last covered day is right', (_name, overrides, rule, lastDay, certified) => {
    expect(ageOutOf(child(overrides), { dependent_age_limit: 26, dependent_age_out_rule: rule })).toEqual({ row: child(overrides), lastDay, certified });
  });
});

describe('ageOutCandidatesBornBy (the sweep reads children born by it)', () => {
  const rules = ['date_of_birth', 'end_of_month', 'end_of_year'] as const;

  it('when a child is born a day after the bound, then no rule gives a last day before the notice period ends', () => {
    // Every day of 2026 and 2028 (a leap year), every rule, limits 19 and 26: the first child left out ages out too late to matter.
    for (const start of ['2026-01-01', '2028-01-01']) {
      for (let offset = 0; offset < 366; offset++) {
        const day = addDays(start, offset);
        for (const limit of [19, 26]) {
          const bound = ageOutCandidatesBornBy(day, 30, limit);
          for (const rule of rules) {
            const { lastDay } = ageOutOf(child({ dob: addDays(bound, 1) }), { dependent_age_limit: limit, dependent_age_out_rule: rule });
            expect(lastDay >= addDays(day, 30), `${day} ${limit} ${rule}`).toBe(true);
          }
        }
      }
    }
  });

  it("when a child's notice is due on the day, then the child is born by the bound (last day in)", () => {
    // Notice on 2026-05-08: last day 2026-06-06, the day before the 26th birthday 2026-06-07.
    const bound = ageOutCandidatesBornBy('2026-05-08', 30, 26);
    expect(bound >= '2000-06-07').toBe(true);
    expect(bound).toBe('2000-06-09');
  });
});

describe('dueAgeOuts (swept on 2026-05-08)', () => {
  const DAY = '2026-05-08';
  const ageOut = (lastDay: string, overrides: Partial<CoveredChild> = {}): AgeOut => ({ row: child(overrides), lastDay, certified: false });
  const cases: [string, AgeOut, { firstDayOut: string } | undefined][] = [
    ['the last covered day is the sweep day (last day in)', ageOut(DAY), { firstDayOut: '2026-05-09' }],
    ['the last covered day is tomorrow', ageOut('2026-05-09'), undefined],
    ['the last covered day was missed (caught up)', ageOut('2026-04-30'), { firstDayOut: '2026-05-01' }],
    ['the coverage ends on the last covered day', ageOut(DAY, { effective_end: DAY }), undefined],
    ['the coverage ends before the last covered day', ageOut(DAY, { effective_end: '2026-03-31' }), undefined],
    ['the coverage ends the day after (first day out)', ageOut(DAY, { effective_end: '2026-05-09' }), { firstDayOut: '2026-05-09' }],
    ['the coverage runs without an end', ageOut(DAY, { effective_end: null }), { firstDayOut: '2026-05-09' }],
    ['the coverage starts after the last covered day', ageOut('2026-04-30', { effective_start: '2026-05-01' }), { firstDayOut: '2026-05-01' }],
    ['the coverage starts on the last covered day', ageOut('2026-04-30', { effective_start: '2026-04-30' }), { firstDayOut: '2026-05-01' }],
  ];

  it.each(cases)('when %s, then it is due as it should be', (_name, entry, expected) => {
    const due = dueAgeOuts(DAY, [entry]);
    if (expected === undefined) return expect(due).toEqual([]);
    expect(due).toEqual([
      [{ providerId: 'provider_a', memberId: 'member_a', firstDayOut: expected.firstDayOut, leaving: new Map([['plan_medical', new Set(['dependent_a'])]]) }],
    ]);
  });

  it('when a member has children leaving several plans on two days, then each day is one change, earliest first, and members go in id order', () => {
    const due = dueAgeOuts(DAY, [
      ageOut(DAY, { member_id: 'member_b' }),
      ageOut(DAY, { plan_id: 'plan_dental' }),
      ageOut(DAY, { dependent_id: 'dependent_b' }),
      ageOut('2026-04-30'),
    ]);
    expect(due.map((entries) => entries.map((entry) => [entry.memberId, entry.firstDayOut, [...entry.leaving].map(([plan, ids]) => [plan, [...ids]])]))).toEqual([
      [
        ['member_a', '2026-05-01', [['plan_medical', ['dependent_a']]]],
        [
          'member_a',
          '2026-05-09',
          [
            ['plan_dental', ['dependent_a']],
            ['plan_medical', ['dependent_b']],
          ],
        ],
      ],
      [['member_b', '2026-05-09', [['plan_medical', ['dependent_a']]]]],
    ]);
  });
});

describe('ageOutChange', () => {
  const medical = { id: 'ep_medical', plan_id: 'plan_medical' };
  const dental = { id: 'ep_dental', plan_id: 'plan_dental' };
  const covered = [
    { enrolled_plan_id: 'ep_medical', dependent_id: 'spouse' },
    { enrolled_plan_id: 'ep_medical', dependent_id: 'child' },
    { enrolled_plan_id: 'ep_dental', dependent_id: 'child' },
    { enrolled_plan_id: 'ep_dental', dependent_id: 'sibling' },
  ];

  const cases: [string, Map<string, Set<string>>, string[], string[]][] = [
    ['the child leaves medical only', new Map([['plan_medical', new Set(['child'])]]), ['ep_medical'], ['ep_medical:spouse']],
    [
      'the child leaves both lines',
      new Map([
        ['plan_medical', new Set(['child'])],
        ['plan_dental', new Set(['child'])],
      ]),
      ['ep_medical', 'ep_dental'],
      ['ep_medical:spouse', 'ep_dental:sibling'],
    ],
    ['the child is no longer on the plan (a rerun)', new Map([['plan_medical', new Set(['someone_else'])]]), [], []],
    ['the plan is not in force any more', new Map([['plan_vision', new Set(['child'])]]), [], []],
  ];

  it.each(cases)('when %s, then what changes and who stays are right', (_name, leaving, affected, staying) => {
    const change = ageOutChange([medical, dental], covered, leaving);
    expect(change.affected.map((plan) => plan.id)).toEqual(affected);
    expect(change.staying.map((d) => `${d.enrolled_plan_id}:${d.dependent_id}`)).toEqual(staying);
  });
});
