import { describe, expect, it } from 'vitest';
import { linkedDatesErrors, renewalLinkErrors, renewalStart, type RenewalSide } from './plan-renewal.ts';

function plan(overrides: Partial<RenewalSide> = {}): RenewalSide {
  return {
    id: 'plan_2026',
    group_id: 'grp_1',
    line_of_coverage: 'medical',
    effective_start: '2026-01-01',
    effective_end: '2026-12-31',
    previous_plan_id: null,
    next_plan_id: null,
    ...overrides,
  };
}

const predecessor = plan();
const successor = (overrides: Partial<RenewalSide> = {}) => plan({ id: 'plan_2027', effective_start: '2027-01-01', effective_end: '2027-12-31', ...overrides });

describe('renewalLinkErrors', () => {
  const cases: [string, RenewalSide, RenewalSide, RegExp[]][] = [
    ["next year's plan of the same group and line starts the day after", predecessor, successor(), []],
    ['the link already exists on both sides (asked again)', plan({ next_plan_id: 'plan_2027' }), successor({ previous_plan_id: 'plan_2026' }), []],
    ['a short plan year is renewed mid-year', plan({ effective_end: '2026-06-30' }), successor({ effective_start: '2026-07-01' }), []],
    ['a leap day ends the plan year', plan({ effective_start: '2023-03-01', effective_end: '2024-02-29' }), successor({ effective_start: '2024-03-01' }), []],
    ['the plan names itself', predecessor, plan(), [/cannot renew itself/]],
    ['the successor is in another group (another carrier)', predecessor, successor({ group_id: 'grp_2' }), [/same group/]],
    ['the successor covers another line', predecessor, successor({ line_of_coverage: 'dental' }), [/line of coverage/]],
    ['the successor starts a day late (a gap)', predecessor, successor({ effective_start: '2027-01-02' }), [/starts the day after it ends: 2027-01-01/]],
    ['the successor starts before the predecessor ends (an overlap)', predecessor, successor({ effective_start: '2026-12-31' }), [/2027-01-01/]],
    [
      'the successor comes before the predecessor (a cycle)',
      plan({ id: 'plan_2027', effective_start: '2027-01-01', effective_end: '2027-12-31' }),
      plan(),
      [/2028-01-01/],
    ],
    ['the predecessor is already renewed by another plan', plan({ next_plan_id: 'plan_other' }), successor(), [/already renewed by plan plan_other/]],
    ['the successor already renews another plan', predecessor, successor({ previous_plan_id: 'plan_other' }), [/already renews plan plan_other/]],
    [
      'everything is wrong, then every rule is named in order',
      plan({ next_plan_id: 'plan_x' }),
      successor({ group_id: 'grp_2', line_of_coverage: 'dental', effective_start: '2027-02-01', previous_plan_id: 'plan_y' }),
      [/same group/, /line of coverage/, /starts the day after/, /successor/, /predecessor/],
    ],
  ];

  it.each(cases)('when %s, then the errors are as expected', (_name, before, after, messages) => {
    const errors = renewalLinkErrors(before, after, ['next_plan']);
    expect(errors.map((error) => error.field_path)).toEqual(messages.map(() => ['next_plan']));
    messages.forEach((message, index) => expect(errors[index]?.message).toMatch(message));
  });
});

describe('linkedDatesErrors', () => {
  const cases: [string, Partial<RenewalSide>, boolean, boolean, string[]][] = [
    ['an unlinked plan moves', { effective_start: '2026-02-01' }, false, false, []],
    ['a linked plan keeps its dates', {}, true, true, []],
    ['a successor keeps its start and moves its end (no successor of its own)', { effective_end: '2026-10-31' }, true, false, []],
    ['a successor moves its start', { effective_start: '2026-01-02' }, true, false, ['effective_start']],
    ['a predecessor moves its end', { effective_end: '2026-11-30' }, false, true, ['effective_end']],
    [
      'a plan in the middle of a chain moves both ends',
      { effective_start: '2025-12-01', effective_end: '2027-01-31' },
      true,
      true,
      ['effective_start', 'effective_end'],
    ],
  ];

  it.each(cases)('when %s, then the errors are at %j', (_name, dates, hasPredecessor, hasSuccessor, fields) => {
    const neighbours = {
      predecessor: hasPredecessor ? { id: 'plan_2025', effective_end: '2025-12-31' } : undefined,
      successor: hasSuccessor ? { id: 'plan_2027', effective_start: '2027-01-01' } : undefined,
    };
    expect(linkedDatesErrors(plan(dates), neighbours).map((error) => error.field)).toEqual(fields);
  });

  it('when a date must stay, then the message names the date it must keep', () => {
    const [error] = linkedDatesErrors(plan({ effective_end: '2026-11-30' }), { successor: { id: 'plan_2027', effective_start: '2027-01-01' } });
    expect(error?.message).toContain('must end on 2026-12-31');
  });
});

describe('renewalStart', () => {
  it.each([
    ['2026-12-31', '2027-01-01'],
    ['2024-02-28', '2024-02-29'],
    ['2026-06-30', '2026-07-01'],
  ])('when a plan year ends on %s, then its renewal starts on %s', (end, start) => {
    expect(renewalStart({ effective_end: end })).toBe(start);
  });
});
