import { describe, expect, it } from 'vitest';
import { COBRA_EVENT_TYPES } from './cobra-event.table.ts';
import { addMonths } from '../../shared/dates.ts';
import { MAXIMUM_COVERAGE_PERIODS, coveragePeriodOf, disabilityDeterminationProblems } from './cobra-periods.ts';

describe('MAXIMUM_COVERAGE_PERIODS', () => {
  it.each([
    ['termination', 18, '1162(2)(A)(i)'],
    ['reduction_of_hours', 18, '1162(2)(A)(i)'],
    ['death', 36, '1162(2)(A)(iv)'],
    ['divorce_or_legal_separation', 36, '1162(2)(A)(iv)'],
    ['medicare_entitlement', 36, '1162(2)(A)(iv)'],
    ['dependent_ceased_to_be_dependent', 36, '1162(2)(A)(iv)'],
  ] as const)('when the event is %s, then coverage lasts %i months (29 U.S.C. %s)', (eventType, months, clause) => {
    expect(MAXIMUM_COVERAGE_PERIODS[eventType].months).toBe(months);
    expect(MAXIMUM_COVERAGE_PERIODS[eventType].citation).toContain(`29 U.S.C. ${clause}`);
  });

  it('when every event type is listed, then each has a period', () => {
    for (const eventType of COBRA_EVENT_TYPES) expect(MAXIMUM_COVERAGE_PERIODS[eventType].months).toBeGreaterThan(0);
  });
});

describe('addMonths and coveragePeriodOf', () => {
  it.each([
    // A loss on Jan 31: the day the target month lacks is its last day.
    ['2026-01-31', 1, '2026-02-28'],
    ['2027-01-31', 1, '2027-02-28'],
    ['2028-01-31', 1, '2028-02-29'],
    ['2026-01-31', 18, '2027-07-31'],
    ['2026-08-31', 18, '2028-02-29'],
    ['2026-08-31', 6, '2027-02-28'],
    ['2026-03-31', 18, '2027-09-30'],
    ['2026-03-10', 18, '2027-09-10'],
    ['2026-12-15', 36, '2029-12-15'],
    ['2026-02-28', 12, '2027-02-28'],
    ['9999-01-01', 36, '9999-12-31'],
  ] as const)('when %s moves %i months, then it is %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });

  it('when a termination is on 2026-01-31, then its 18 months end on 2027-07-31, the last day of continuation coverage', () => {
    const period = coveragePeriodOf('termination', '2026-01-31');
    expect(period).toEqual({ months: 18, end: '2027-07-31' });
  });

  it.each([
    ['termination', false, 18, '2027-09-10'],
    ['termination', true, 29, '2028-08-10'],
    ['reduction_of_hours', true, 29, '2028-08-10'],
    // 36 months are not extended.
    ['death', true, 36, '2029-03-10'],
    ['divorce_or_legal_separation', false, 36, '2029-03-10'],
  ] as const)('when a %s on 2026-03-10 is extended: %s, then it lasts %i months, to %s', (eventType, extended, months, end) => {
    expect(coveragePeriodOf(eventType, '2026-03-10', extended)).toEqual({ months, end });
  });
});

describe('disabilityDeterminationProblems', () => {
  // A termination on 2026-03-10, coverage lost from 2026-04-01: continuation coverage's first 60 days run to 2026-05-30.
  const event = { eventType: 'termination', eventDate: '2026-03-10', coverageLostDate: '2026-04-01' } as const;
  const fields = (disabledOn: string, determinedOn: string, today: string) =>
    disabilityDeterminationProblems(event, { disabledOn, determinedOn }, today).map((error) => error.field);

  it.each([
    // 1162(2)(A)(viii): disabled at any time during the first 60 days of continuation coverage.
    ['2025-06-01', '2026-04-15', '2026-04-20', []],
    ['2026-05-30', '2026-06-10', '2026-06-20', []],
    ['2026-05-31', '2026-06-10', '2026-06-20', ['disabled_on']],
    // 1166(a)(3): notice within 60 days of the determination (the 60th day is in).
    ['2026-04-10', '2026-06-10', '2026-08-09', []],
    ['2026-04-10', '2026-06-10', '2026-08-10', ['determined_on']],
    // 29 CFR 2590.606-3: a determination before the loss runs the 60 days from the loss of coverage.
    ['2025-06-01', '2025-09-01', '2026-05-31', []],
    ['2025-06-01', '2025-09-01', '2026-06-01', ['determined_on']],
    // 1162(2)(A)(viii): before the end of the 18 months (2027-09-10 is the last day).
    ['2026-04-10', '2027-08-01', '2027-09-10', []],
    ['2026-04-10', '2027-08-01', '2027-09-11', ['determined_on']],
    // A determination not yet made, or a disability beginning after it.
    ['2026-04-10', '2026-04-21', '2026-04-20', ['determined_on']],
    ['2026-04-15', '2026-04-14', '2026-04-20', ['disabled_on']],
    // Both late and after the determination: one error on the field.
    ['2026-05-31', '2026-04-14', '2026-04-20', ['disabled_on']],
    ['2026-05-31', '2026-06-10', '2026-04-20', ['disabled_on', 'determined_on']],
  ] as const)('when disabled on %s, determined on %s and notified on %s, then the fields refused are %j', (disabledOn, determinedOn, today, refused) => {
    expect(fields(disabledOn, determinedOn, today)).toEqual(refused);
  });
});
