import { describe, expect, it } from 'vitest';
import { ENROLLMENT_REASONS } from '../enrollments/enrollment-rules.ts';
import { TERMINATION_REASONS } from '../members/member.table.ts';
import { EVENT_REASONS, TERMINATION_REASON_CODES, eventReasonsOf, terminationReasonCodeOf } from './x12-834-reasons.ts';
import { MAINTENANCE_REASON_CODES } from './x12-codes.ts';

describe('INS04 from the event behind a change (005010X220A1 INS04, 1203)', () => {
  it.each([
    ['new_child', '02', '07'],
    ['adopted_child', '05', '07'],
    ['marriage', '32', '07'],
    ['divorce', '01', '01'],
    ['death', '03', '03'],
    ['new_hire', '28', '07'],
    ['new_eligibility', '28', '07'],
    ['rehire', '41', '07'],
    ['terminated', '08', '08'],
    ['leave_of_absence', '37', '38'],
    ['relocated', '43', '43'],
    ['significant_plan_change', '22', '07'],
    ['dependent_aged_out', 'XN', '07'],
    ['open_enrollment', 'EC', '07'],
    ['passive_open_enrollment', 'EC', '07'],
    ['employment_change', 'EC', '07'],
  ] as const)('when the enrollment reason is %s, then people it adds or changes get %s and people it ends %s', (reason, joins, ends) => {
    const codes = eventReasonsOf({ category: 'qle', reason });
    expect([MAINTENANCE_REASON_CODES[codes.joins], MAINTENANCE_REASON_CODES[codes.ends]]).toEqual([joins, ends]);
  });

  it('when every enrollment reason is looked up, then each has codes of the guide', () => {
    for (const reason of ENROLLMENT_REASONS) {
      const codes = EVENT_REASONS[reason];
      expect(Object.hasOwn(MAINTENANCE_REASON_CODES, codes.joins), reason).toBe(true);
      expect(Object.hasOwn(MAINTENANCE_REASON_CODES, codes.ends), reason).toBe(true);
    }
  });

  it.each([
    ['an open enrollment without a reason', { category: 'open_enrollment', reason: null }, 'EC'],
    ['a carrier sync without a reason', { category: 'carrier_sync', reason: null }, 'XN'],
    ['a life event without a reason', { category: 'qle', reason: null }, 'EC'],
    ['a reason the service does not know', { category: 'qle', reason: 'other' }, 'EC'],
  ] as const)('when the enrollment is %s, then its category decides (%s)', (_label, enrollment, joins) => {
    expect(MAINTENANCE_REASON_CODES[eventReasonsOf(enrollment).joins]).toBe(joins);
  });
});

describe("INS04 of coverage the member's termination ends, by its termination_reason (005010X220A1 INS04, 1203)", () => {
  it.each([
    ['death', '03'],
    ['retirement', '04'],
    ['layoff', '40'],
    ['leave', '38'],
    ['voluntary', '08'],
    ['involuntary', '08'],
    ['gross_misconduct', '08'],
    ['reduction_in_hours', '08'],
    ['other', '08'],
    [null, '08'],
  ] as const)('when the termination reason is %s, then INS04 is %s', (reason, code) => {
    expect(MAINTENANCE_REASON_CODES[terminationReasonCodeOf(reason)]).toBe(code);
  });

  it('when every termination reason is looked up, then each has a code of the guide', () => {
    for (const reason of TERMINATION_REASONS) expect(Object.hasOwn(MAINTENANCE_REASON_CODES, TERMINATION_REASON_CODES[reason]), reason).toBe(true);
  });
});
