import { describe, expect, it } from 'vitest';
import { employmentStatusOf, endedByTermination, memberMaintenance, restoresEndedCoverage } from './edi-loops.ts';
import { EMPLOYMENT_STATUS_CODES } from './x12-codes.ts';
import { priorNameOf, subscriberIdOf, type MemberFacts } from './edi-people.ts';
import type { CompanionGuide } from './edi-profile.ts';
import type { Coverage834 } from './x12-834-records.ts';

const loop = (maintenanceType: Coverage834['maintenanceType']): Coverage834 => ({ maintenanceType, line: 'vision', benefitBegin: '2026-03-01' });
const nothingElse = { continuing: false, preexisting: false };

describe('memberMaintenance (005010X220A1 INS03, 875)', () => {
  it.each([
    ['all additions of someone new', ['addition'], nothingElse, 'addition'],
    ['an addition for someone the carrier already holds', ['addition'], { continuing: false, preexisting: true }, 'change'],
    ['all terminations, nothing left', ['cancellation_or_termination'], nothingElse, 'cancellation_or_termination'],
    ['a termination while other coverage goes on', ['cancellation_or_termination'], { continuing: true, preexisting: false }, 'change'],
    ['all reinstatements', ['reinstatement'], nothingElse, 'reinstatement'],
    ['an addition and a termination', ['addition', 'cancellation_or_termination'], nothingElse, 'change'],
    ['no coverage loop (demographics only)', [], nothingElse, 'change'],
  ] as const)('when %s, then INS03 is %s', (_label, types, continuity, expected) => {
    expect(memberMaintenance(types.map(loop), continuity)).toBe(expected);
  });
});

describe('endedByTermination (INS04 08 against 07)', () => {
  it.each([
    ['the day before the termination date: an election ended it (07)', '2026-06-29', false],
    ['on the termination date: the last day in (08)', '2026-06-30', true],
    ['after it (a policy running to the end of the month)', '2026-07-31', true],
  ] as const)('when coverage ends %s', (_label, end, expected) => {
    expect(endedByTermination({ termination_date: '2026-06-30' }, end)).toBe(expected);
    expect(endedByTermination({ termination_date: null }, end)).toBe(false);
  });
});

describe('employmentStatusOf (005010X220A1 INS08, 584)', () => {
  const member = (termination_date: string | null, termination_reason: string | null, employment_status: string | null = 'full_time') =>
    ({ termination_date, termination_reason, employment_status }) as Parameters<typeof employmentStatusOf>[0];
  it.each([
    ['a full-time employee', member(null, null), false, 'FT'],
    ['a part-time employee on leave', member(null, null, 'part_time'), true, 'L1'],
    ['an employee with no status', member(null, null, null), false, 'AC'],
    ['terminated on the build day (the last day employed)', member('2026-06-30', 'voluntary'), false, 'FT'],
    ['terminated the day before the build', member('2026-06-29', 'voluntary'), false, 'TE'],
    ['terminated without a reason, while on leave', member('2026-06-29', null), true, 'TE'],
    ['retired the day before the build', member('2026-06-29', 'retirement'), false, 'RT'],
    ['dead the day before the build', member('2026-06-29', 'death'), false, 'TE'],
  ] as const)('when %s, then INS08 is %s', (_label, row, onLeave, code) => {
    expect(EMPLOYMENT_STATUS_CODES[employmentStatusOf(row, '2026-06-30', onLeave)]).toBe(code);
  });
});

describe('restoresEndedCoverage (INS03/HD01 025 Reinstatement)', () => {
  const ended = { status: 'removed', coverage_end: '2026-03-31' } as const;
  it.each([
    ['a new coverage from the ended coverage first day out (the last day that counts)', 'new', '2026-04-01', ended, true],
    ['a new coverage a day later (a gap: an addition)', 'new', '2026-04-02', ended, false],
    ['the change an undone termination records, from the coverage start', 'change', '2026-03-01', ended, true],
    ['a new coverage when the last change sent was not a termination', 'new', '2026-04-01', { status: 'new', coverage_end: '2026-12-31' }, false],
    ['a new coverage the carrier was never sent anything about', 'new', '2026-04-01', undefined, false],
    ['a removed change', 'removed', '2026-04-01', ended, false],
  ] as const)('when %s', (_label, status, coverage_start, lastSent, expected) => {
    expect(restoresEndedCoverage({ status, coverage_start }, lastSent)).toBe(expected);
  });
});

describe('priorNameOf (2100B NM1*70: the name the carrier was last sent)', () => {
  const now = { last_name: 'Stone-Park', first_name: 'Avery', middle_name: null };
  it.each([
    ['the last name changed', { last_name: 'Stone', first_name: 'Avery', middle_name: null }, { last: 'Stone', first: 'Avery', middle: null }],
    ['a middle name was added', { last_name: 'Stone-Park', first_name: 'Avery', middle_name: 'Lee' }, { last: 'Stone-Park', first: 'Avery', middle: 'Lee' }],
    ['nothing of the name changed (another demographic did)', now, null],
    ['the name last sent is not known (sent before names were kept)', undefined, null],
  ] as const)('when %s', (_label, sent, expected) => {
    expect(priorNameOf(sent, now)).toEqual(expected);
  });
});

describe('subscriberIdOf (REF*0F)', () => {
  const member = (ssn: string | null, payroll: string | null = null) =>
    ({ row: { id: 'mem_1', payroll_provider_external_id: payroll }, ssn }) as unknown as MemberFacts;
  const guide = (source: CompanionGuide['subscriber_id_source']) => ({ subscriber_id_source: source }) as CompanionGuide;
  it.each([
    ['the SSN source and an SSN', guide('ssn'), member('123456789'), '123456789'],
    ['the SSN source and no SSN: the member id', guide('ssn'), member(null), 'mem_1'],
    ['the member id source', guide('member_id'), member('123456789'), 'mem_1'],
    ['the payroll id source and a payroll id', guide('payroll_provider_external_id'), member(null, 'E1001'), 'E1001'],
    ['the payroll id source and none: no id (left out)', guide('payroll_provider_external_id'), member('123456789'), undefined],
  ] as const)('when %s', (_label, companionGuide, facts, expected) => {
    expect(subscriberIdOf(companionGuide, facts)).toBe(expected);
  });
});
