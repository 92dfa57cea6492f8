import { describe, expect, it } from 'vitest';
import type { CensusRow } from './carrier-census.ts';
import { memberDiscrepancies, unknownSubscriberDiscrepancy, type OurMember } from './carrier-file-rules.ts';

const member: OurMember = {
  id: 'mem_1',
  firstName: 'José',
  lastName: 'Núñez',
  dob: '1980-01-01',
  dependents: [
    { id: 'dep_s', firstName: 'Ana', lastName: 'Núñez', dob: '1981-01-01', relationship: 'spouse' },
    { id: 'dep_c', firstName: 'Kim', lastName: 'Núñez', dob: '2015-01-01', relationship: 'child' },
  ],
  lines: [
    {
      lineOfCoverage: 'medical',
      planId: 'plan_m',
      planName: 'Gold PPO',
      start: '2026-01-01',
      end: null,
      planEnd: '2026-12-31',
      dependentIds: ['dep_s', 'dep_c'],
    },
  ],
};

const row = (overrides: Partial<CensusRow>): CensusRow => ({
  line: 2,
  subscriberId: 'mem_1',
  relationship: 'employee',
  lineOfCoverage: 'medical',
  plan: 'gold ppo',
  firstName: 'JOSE',
  lastName: 'NUNEZ',
  dob: '1980-01-01',
  coverageLevels: ['member_family'],
  coverageStart: '2026-01-01',
  coverageEnd: '2026-12-31',
  ...overrides,
});
const family = [
  row({}),
  row({ line: 3, relationship: 'spouse', firstName: 'Ana', dob: '1981-01-01' }),
  row({ line: 4, relationship: 'child', firstName: 'kim', dob: '2015-01-01' }),
];
const kinds = (rows: CensusRow[], ours: OurMember = member) => memberDiscrepancies(ours, rows).map((d) => [d.kind, d.fields, d.fileLines]);

describe('a carrier file against our member', () => {
  it.each([
    ['the same (names folded as an 834 carries them, the plan by name, the plan year end as no end)', family, []],
    ['nothing in the file', [], [['missing', [], []]]],
    ['dependents only', family.slice(1), [['missing', [], [3, 4]]]],
    ['another plan', [row({ plan: 'plan_other' }), ...family.slice(1)], [['plan', [], [2]]]],
    ['our plan id', [row({ plan: 'plan_m' }), ...family.slice(1)], []],
    [
      'another start and an end',
      [row({ coverageStart: '2026-02-01', coverageEnd: '2026-06-30' }), ...family.slice(1)],
      [['dates', ['coverage_start', 'coverage_end'], [2]]],
    ],
    [
      'a child missing and the tier it makes',
      [row({ coverageLevels: ['member_spouse'] }), family[1]!],
      [
        ['dependents', [], []],
        ['tier', [], [2]],
      ],
    ],
    ['a child we do not know', [...family, row({ line: 5, relationship: 'child', firstName: 'Lee', dob: '2018-01-01' })], [['dependents', [], [5]]]],
    ['another birth date of the member', [row({ dob: '1980-01-02' }), ...family.slice(1)], [['demographics', ['dob'], [2]]]],
    [
      'another last name of the spouse',
      [family[0]!, row({ line: 3, relationship: 'spouse', firstName: 'Ana', lastName: 'Stone', dob: '1981-01-01' }), family[2]!],
      [['demographics', ['last_name'], [3]]],
    ],
    ['a line we do not cover', [...family, row({ line: 5, lineOfCoverage: 'dental', plan: 'Dental Plus' })], [['extra', [], [5]]]],
  ] as [string, CensusRow[], unknown[]][])('%s', (_name, rows, expected) => {
    expect(kinds(rows)).toEqual(expected);
  });
});

describe('what the carrier said, kept with each discrepancy', () => {
  it('keeps the demographics of the person for demographics, and the line as the file gave it for coverage kinds', () => {
    const found = memberDiscrepancies(member, [row({ plan: 'Silver', dob: '1980-01-02', coverageLevels: ['member_spouse'] }), family[1]!]);
    expect(found.map((d) => [d.kind, d.carrier])).toEqual([
      [
        'plan',
        {
          plan: 'Silver',
          coverageStart: '2026-01-01',
          coverageEnd: '2026-12-31',
          coverageLevels: ['member_spouse'],
          dependents: [{ relationship: 'spouse', firstName: 'Ana', lastName: 'NUNEZ', dob: '1981-01-01' }],
        },
      ],
      ['dependents', expect.objectContaining({ plan: 'Silver' })],
      ['tier', expect.objectContaining({ coverageLevels: ['member_spouse'] })],
      ['demographics', { firstName: 'JOSE', lastName: 'NUNEZ', dob: '1980-01-02' }],
    ]);
    expect(memberDiscrepancies(member, [])[0]!.carrier).toEqual({ plan: null, coverageStart: null, coverageEnd: null, coverageLevels: null, dependents: [] });
  });

  it('keeps no person of a subscriber id of nobody, only the coverage', () => {
    expect(unknownSubscriberDiscrepancy([row({ subscriberId: 'x' }), row({ line: 3, relationship: 'child', firstName: 'Lee' })]).carrier).toEqual({
      plan: 'gold ppo',
      coverageStart: '2026-01-01',
      coverageEnd: '2026-12-31',
      coverageLevels: ['member_family'],
      dependents: [],
    });
  });
});
