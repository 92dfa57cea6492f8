import { describe, expect, it } from 'vitest';
import { reachForward, type LaterElection, type OwnElection, type ReachForward } from './later-elections-rules.ts';

// A birth on 2026-11-24 (the approved enrollment's election from then, to the plan year's end) adds the baby.
const BIRTH: OwnElection = { enrolledPlanId: 'ep_birth', start: '2026-11-24', end: '2026-12-31' };
const NEXT_YEAR: OwnElection = { enrolledPlanId: 'ep_birth_2027', start: '2027-01-01', end: '2027-12-31' };

const later = (start: string, stage: LaterElection['stage'] = 'coverage', dependentIds: string[] = []): LaterElection => ({
  enrolledPlanId: `ep_${start}`,
  enrollmentId: `enr_${start}`,
  stage,
  start,
  dependentIds,
});

describe('reachForward: a birth on 2026-11-24 adding the baby', () => {
  const cases: [string, OwnElection[], LaterElection[], (id: string) => boolean, Omit<ReachForward, 'actions'> & { actions: [string, string, string[]?][] }][] =
    [
      ['no later election', [BIRTH], [], () => true, { actions: [], yields: [] }],
      [
        'an approved election starting the day after the birth (first day after): amended, and the birth yields to it',
        [BIRTH],
        [later('2026-11-25')],
        () => true,
        { actions: [['amend', '2026-11-25', ['dep_baby']]], yields: [{ own: BIRTH, laterStart: '2026-11-25' }] },
      ],
      ['an election starting on the birth itself (not later): left alone', [BIRTH], [later('2026-11-24')], () => true, { actions: [], yields: [] }],
      [
        'a pending election from 12-01: amended; the birth keeps its end (the approval of the pending one ends it)',
        [BIRTH],
        [later('2026-12-01', 'pending')],
        () => true,
        { actions: [['amend', '2026-12-01', ['dep_baby']]], yields: [] },
      ],
      [
        'an approved election from 12-01 that covers the baby already: nothing to add, the birth still yields to it',
        [BIRTH],
        [later('2026-12-01', 'coverage', ['dep_baby'])],
        () => true,
        { actions: [], yields: [{ own: BIRTH, laterStart: '2026-12-01' }] },
      ],
      [
        'two approved elections (12-01 and 12-15): both amended; the birth yields to the first',
        [BIRTH],
        [later('2026-12-15'), later('2026-12-01')],
        () => true,
        {
          actions: [
            ['amend', '2026-12-01', ['dep_baby']],
            ['amend', '2026-12-15', ['dep_baby']],
          ],
          yields: [{ own: BIRTH, laterStart: '2026-12-01' }],
        },
      ],
      [
        "next plan year's election (2027-01-01) after a birth running to 2026-12-31: amended, nothing to yield",
        [BIRTH],
        [later('2027-01-01')],
        () => true,
        { actions: [['amend', '2027-01-01', ['dep_baby']]], yields: [] },
      ],
      [
        "the birth names 2027's plan too: next plan year's approved election is replaced by it",
        [NEXT_YEAR, BIRTH],
        [later('2027-01-01')],
        () => true,
        { actions: [['replaced', '2027-01-01']], yields: [] },
      ],
      [
        "the birth names 2027's plan too, and next plan year's election is pending: amended (its approval replaces the birth's then)",
        [BIRTH, NEXT_YEAR],
        [later('2027-01-01', 'pending')],
        () => true,
        { actions: [['amend', '2027-01-01', ['dep_baby']]], yields: [] },
      ],
      [
        "an approved election from 2027-03-01 after the birth's 2027 plan: amended, and the 2027 election yields to it",
        [BIRTH, NEXT_YEAR],
        [later('2027-03-01')],
        () => true,
        { actions: [['amend', '2027-03-01', ['dep_baby']]], yields: [{ own: NEXT_YEAR, laterStart: '2027-03-01' }] },
      ],
      [
        'a later election on which the baby is not eligible: nothing to add',
        [BIRTH],
        [later('2026-12-01', 'pending')],
        () => false,
        { actions: [], yields: [] },
      ],
    ];

  it.each(cases)('when there is %s, then the later elections are handled as the rule says', (_name, own, elections, eligible, expected) => {
    const decided = reachForward({ own, adds: ['dep_baby'], later: elections, eligible });
    expect(decided.yields).toEqual(expected.yields);
    expect(
      decided.actions.map((action) =>
        action.kind === 'amend' ? [action.kind, action.election.start, [...action.adding]] : [action.kind, action.election.start],
      ),
    ).toEqual(expected.actions);
  });

  it('when the later election covers some of the people added, then it gets only the others', () => {
    const decided = reachForward({ own: [BIRTH], adds: ['dep_baby', 'dep_twin'], later: [later('2026-12-01', 'pending', ['dep_twin'])], eligible: () => true });
    expect(decided.actions).toMatchObject([{ kind: 'amend', adding: ['dep_baby'] }]);
  });
});
