import { describe, expect, it } from 'vitest';
import { ENROLLMENT_REASONS } from '../enrollments/enrollment-rules.ts';
import { TERMINATION_REASONS } from '../members/member.table.ts';
import { LINES_OF_COVERAGE, type LineOfCoverage } from '../plans/plan.table.ts';
import {
  COBRA_LINES,
  EMPLOYEE_IS_QUALIFIED_BENEFICIARY,
  GROUP_HEALTH_LINES,
  QUALIFYING_EVENTS,
  TERMINATION_QUALIFYING_EVENTS,
  groupHealthLost,
  qualifyingEventDate,
  qualifyingEventOf,
  terminationRuleOf,
  type LineLoss,
} from './cobra-rules.ts';

const held = (lineOfCoverage: LineOfCoverage, ...dependentIds: string[]) => ({ lineOfCoverage, dependentIds });
const memberLoss = (lineOfCoverage: LineOfCoverage, ...dependentIds: string[]): LineLoss => ({ lineOfCoverage, memberLost: true, dependentIds });
const dependentLoss = (lineOfCoverage: LineOfCoverage, ...dependentIds: string[]): LineLoss => ({ lineOfCoverage, memberLost: false, dependentIds });

describe('QUALIFYING_EVENTS', () => {
  it.each([
    ['death', 'death', '1163(1)', 'dependents', true],
    ['terminated', 'termination', '1163(2)', 'member_and_dependents', false],
    ['employment_change', 'reduction_of_hours', '1163(2)', 'member_and_dependents', false],
    ['leave_of_absence', 'reduction_of_hours', '1163(2)', 'member_and_dependents', false],
    ['divorce', 'divorce_or_legal_separation', '1163(3)', 'dependents', false],
    ['medicare_eligible', 'medicare_entitlement', '1163(4)', 'dependents', false],
    ['dependent_aged_out', 'dependent_ceased_to_be_dependent', '1163(5)', 'dependents', false],
  ] as const)('when the reason is %s, then the event is %s under 29 U.S.C. %s', (reason, eventType, paragraph, qualifiedBeneficiaries, requiresMemberLoss) => {
    const row = QUALIFYING_EVENTS[reason];
    expect({ eventType: row?.eventType, qualifiedBeneficiaries: row?.qualifiedBeneficiaries, requiresMemberLoss: row?.requiresMemberLoss }).toEqual({
      eventType,
      qualifiedBeneficiaries,
      requiresMemberLoss,
    });
    expect(row?.citation).toContain(`29 U.S.C. ${paragraph}`);
  });

  it('when any other reason is given, then it is no qualifying event, and no row cites bankruptcy (1163(6), out of scope)', () => {
    const qualifying = ENROLLMENT_REASONS.filter((reason) => QUALIFYING_EVENTS[reason] !== null);
    expect(qualifying.sort()).toEqual(['death', 'dependent_aged_out', 'divorce', 'employment_change', 'leave_of_absence', 'medicare_eligible', 'terminated']);
    for (const reason of ENROLLMENT_REASONS) expect(QUALIFYING_EVENTS[reason]?.citation ?? '').not.toContain('1163(6)');
  });
});

describe('GROUP_HEALTH_LINES', () => {
  it('when the lines are listed, then medical, dental and vision are recorded, in that order, and no other line', () => {
    expect(COBRA_LINES).toEqual(['medical', 'dental', 'vision']);
    for (const line of LINES_OF_COVERAGE) expect(GROUP_HEALTH_LINES[line].citation.length, line).toBeGreaterThan(0);
  });

  it.each(['life', 'accidental_death', 'short_term_disability', 'long_term_disability', 'healthcare_fsa', 'hsa'] as const)(
    'when %s is lost, then no loss is counted',
    (line) => {
      expect(groupHealthLost([held(line, 'dep_spouse')], [])).toEqual([]);
    },
  );
});

describe('groupHealthLost', () => {
  it('when every line is waived, then the member and every dependent lose each group health line, life aside', () => {
    expect(groupHealthLost([held('medical', 'dep_spouse', 'dep_child'), held('dental', 'dep_spouse'), held('vision'), held('life')], [])).toEqual([
      memberLoss('medical', 'dep_spouse', 'dep_child'),
      memberLoss('dental', 'dep_spouse'),
      memberLoss('vision'),
    ]);
  });

  it('when the spouse is dropped and the member keeps the line, then only the spouse loses it', () => {
    expect(groupHealthLost([held('medical', 'dep_spouse', 'dep_child')], [held('medical', 'dep_child')])).toEqual([dependentLoss('medical', 'dep_spouse')]);
  });

  it('when the line moves to another plan or carrier covering the same persons, then nothing is lost', () => {
    expect(groupHealthLost([held('medical', 'dep_spouse')], [held('medical', 'dep_spouse')])).toEqual([]);
  });

  it('when a line has several entries before and after (a move between groups), then persons are compared across all of them', () => {
    const before = [held('medical', 'dep_spouse'), held('medical', 'dep_child')];
    expect(groupHealthLost(before, [held('medical'), held('medical', 'dep_child', 'dep_spouse')])).toEqual([]);
    expect(groupHealthLost(before, [held('medical', 'dep_child'), held('medical')])).toEqual([dependentLoss('medical', 'dep_spouse')]);
  });

  it('when coverage would only have begun on the first day without it (cancelled by the change), then it was never held, so nothing is lost; begun the day before, it is', () => {
    const spouseFrom = (effectiveStart: string | null) => ({ ...held('medical', 'dep_spouse'), effectiveStart });
    expect(groupHealthLost([spouseFrom('2026-01-01')], [held('medical')], '2026-01-01')).toEqual([]);
    expect(groupHealthLost([spouseFrom('2026-02-01')], [held('medical')], '2026-01-01')).toEqual([]);
    expect(groupHealthLost([spouseFrom('2025-12-31')], [held('medical')], '2026-01-01')).toEqual([dependentLoss('medical', 'dep_spouse')]);
    expect(groupHealthLost([spouseFrom(null)], [held('medical')], '2026-01-01')).toEqual([dependentLoss('medical', 'dep_spouse')]);
  });

  it('when a line was not covered before, then electing or waiving it loses nothing', () => {
    expect(groupHealthLost([], [held('medical', 'dep_spouse')])).toEqual([]);
    expect(groupHealthLost([held('dental')], [held('dental'), held('medical')])).toEqual([]);
  });
});

describe('qualifyingEventOf', () => {
  it.each([
    // reason, losses, event type or undefined
    ['terminated', [memberLoss('medical')], 'termination'],
    ['terminated', [], undefined],
    ['employment_change', [memberLoss('dental', 'dep_child')], 'reduction_of_hours'],
    ['employment_change', [], undefined],
    ['death', [memberLoss('medical', 'dep_spouse')], 'death'],
    // A spouse's death (the member keeps coverage) is not 1163(1).
    ['death', [dependentLoss('medical', 'dep_spouse')], undefined],
    // The employee's death with nobody else covered leaves no qualified beneficiary.
    ['death', [memberLoss('medical')], undefined],
    ['divorce', [dependentLoss('medical', 'dep_spouse')], 'divorce_or_legal_separation'],
    ['divorce', [memberLoss('medical')], undefined],
    ['medicare_eligible', [memberLoss('medical', 'dep_spouse')], 'medicare_entitlement'],
    ['medicare_eligible', [memberLoss('medical')], undefined],
    ['dependent_aged_out', [dependentLoss('vision', 'dep_child')], 'dependent_ceased_to_be_dependent'],
    ['dependent_aged_out', [], undefined],
    ['marriage', [memberLoss('medical', 'dep_spouse')], undefined],
    ['open_enrollment', [memberLoss('medical')], undefined],
    ['not_a_reason', [memberLoss('medical')], undefined],
    [null, [memberLoss('medical')], undefined],
  ] as const)('when the reason is %s and the losses are %j, then the event is %s', (reason, losses, eventType) => {
    expect(qualifyingEventOf(reason, losses)?.eventType).toBe(eventType);
  });

  // 29 U.S.C. 1163(4): the covered employee's entitlement only. A spouse's own entitlement is none.
  it.each([
    ['the employee (none named)', null, [dependentLoss('medical', 'dep_spouse')], 'medicare_entitlement'],
    ['the spouse, dropped', 'dep_spouse', [dependentLoss('medical', 'dep_spouse')], undefined],
    ['the spouse, the member leaving too', 'dep_spouse', [memberLoss('medical', 'dep_spouse')], undefined],
  ] as const)('when a medicare_eligible enrollment records the entitlement of %s, then the event is %s', (_whose, dependentId, losses, eventType) => {
    expect(qualifyingEventOf('medicare_eligible', losses, { medicareEntitledDependentId: dependentId })?.eventType).toBe(eventType);
  });
});

describe('qualifyingEventDate', () => {
  it.each([
    ['2026-03-10', '2026-04-01', '2026-03-10'],
    [null, '2026-04-01', '2026-04-01'],
    [null, null, '2026-03-11'],
  ] as const)('when change_date is %s and effective_start %s, then the event date is %s', (changeDate, effectiveStart, date) => {
    expect(qualifyingEventDate({ changeDate, effectiveStart }, '2026-03-11')).toBe(date);
  });
});

describe('TERMINATION_QUALIFYING_EVENTS', () => {
  it.each([
    // termination_reason, event type (null: none), qualified beneficiaries, enrollment reason, 29 U.S.C. paragraph
    ['voluntary', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['involuntary', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['layoff', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['retirement', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['leave', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['other', 'termination', 'member_and_dependents', 'terminated', '1163(2)'],
    ['reduction_in_hours', 'reduction_of_hours', 'member_and_dependents', 'terminated', '1163(2)'],
    ['death', 'death', 'dependents', 'death', '1163(1)'],
    ['gross_misconduct', null, null, 'terminated', null],
  ] as const)('when the termination_reason is %s, then the event is %s', (reason, eventType, qualifiedBeneficiaries, enrollmentReason, paragraph) => {
    const row = TERMINATION_QUALIFYING_EVENTS[reason];
    expect({
      eventType: row.event?.eventType ?? null,
      qualifiedBeneficiaries: row.event?.qualifiedBeneficiaries ?? null,
      enrollmentReason: row.enrollmentReason,
    }).toEqual({
      eventType,
      qualifiedBeneficiaries,
      enrollmentReason,
    });
    if (paragraph !== null) expect(row.event?.citation).toContain(`29 U.S.C. ${paragraph}`);
  });

  it('when every termination reason is listed, then each has a row, and none but gross misconduct is without an event', () => {
    expect(Object.keys(TERMINATION_QUALIFYING_EVENTS).sort()).toEqual([...TERMINATION_REASONS].sort());
    expect(TERMINATION_REASONS.filter((reason) => TERMINATION_QUALIFYING_EVENTS[reason].event === null)).toEqual(['gross_misconduct']);
  });

  it('when no termination_reason was given, then the termination is a termination (the exception must be recorded to apply)', () => {
    const rule = terminationRuleOf(null);
    expect([rule.event?.eventType, rule.enrollmentReason]).toEqual(['termination', 'terminated']);
  });

  it.each([
    // enrollment reason, termination reason, losses, event type
    ['terminated', 'voluntary', [memberLoss('medical', 'dep_spouse')], 'termination'],
    ['terminated', null, [memberLoss('medical')], 'termination'],
    ['terminated', 'gross_misconduct', [memberLoss('medical', 'dep_spouse')], undefined],
    ['terminated', 'reduction_in_hours', [memberLoss('medical')], 'reduction_of_hours'],
    ['death', 'death', [memberLoss('medical', 'dep_spouse', 'dep_child')], 'death'],
    // The member alone covered: nobody the death makes a qualified beneficiary.
    ['death', 'death', [memberLoss('medical')], undefined],
  ] as const)('when a %s enrollment of a termination for %s loses %j, then the event is %s', (reason, terminationReason, losses, eventType) => {
    expect(qualifyingEventOf(reason, losses, { medicareEntitledDependentId: null, terminationReason })?.eventType).toBe(eventType);
  });
});

describe('EMPLOYEE_IS_QUALIFIED_BENEFICIARY', () => {
  it('when the event is a termination or reduction of hours, then the employee is a qualified beneficiary (1167(3)(B)); of no other event', () => {
    expect(
      Object.entries(EMPLOYEE_IS_QUALIFIED_BENEFICIARY)
        .filter(([, qualified]) => qualified)
        .map(([eventType]) => eventType),
    ).toEqual(['termination', 'reduction_of_hours']);
  });
});
