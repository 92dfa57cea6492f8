import { describe, expect, it } from 'vitest';
import { daysAway, rehireRuleOf, waitingPeriodBasis } from './rehire-rules.ts';

describe('rehire rules (one row per rule; boundary: last day in, first day out)', () => {
  it.each([
    // Prop. Treas. Reg. (26 U.S.C. 125), 72 FR 43938: rehired within 30 days, prior elections reinstated.
    ['2026-03-10', '2026-03-11', 'reinstated'],
    ['2026-03-10', '2026-04-09', 'reinstated'],
    ['2026-03-10', '2026-04-10', 'continuing_employee'],
    // 26 CFR 54.4980H-3(c)(4): fewer than 13 weeks (91 days) without an hour of service is a continuing employee.
    ['2026-03-10', '2026-06-09', 'continuing_employee'],
    ['2026-03-10', '2026-06-10', 'new_hire'],
    // Across a year end and a leap day.
    ['2027-12-31', '2028-01-30', 'reinstated'],
    ['2027-12-31', '2028-03-31', 'continuing_employee'],
    ['2027-12-31', '2028-04-01', 'new_hire'],
  ])('terminated %s, rehired %s: %s', (terminated, rehired, rule) => {
    expect(rehireRuleOf(terminated, rehired).rule).toBe(rule);
  });

  it('counts days away from the termination date', () => {
    expect(daysAway('2026-03-10', '2026-04-09')).toBe(30);
    expect(daysAway('2026-03-10', '2026-06-09')).toBe(91);
    expect(daysAway('2028-02-28', '2028-03-01')).toBe(2);
  });

  it.each([
    [null, false, false, 30],
    ['new_hire', false, false, 30],
    ['continuing_employee', false, false, 0],
    ['reinstated', false, false, 0],
    [null, true, false, 30],
    [null, false, true, 30],
    [null, true, true, 0],
  ])('rehire rule %s, waiver allowed %s, overridden %s: %i waiting days', (rehireRule, allowed, overridden, days) => {
    expect(
      waitingPeriodBasis({ hireDate: '2026-02-20', rehireRule }, { waiting_period_days: 30, waiting_period_waiver_allowed: allowed }, { overridden }),
    ).toEqual({
      from: '2026-02-20',
      days,
    });
  });
});
