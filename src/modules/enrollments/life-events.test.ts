import { describe, expect, it } from 'vitest';
import { ENROLLMENT_REASONS } from './enrollment-rules.ts';
import { LIFE_EVENT_RULES, lifeEventErrors, lifeEventRule, windowDaysOf, type LifeEventFacts } from './life-events.ts';

const messages = (facts: Partial<LifeEventFacts>) =>
  lifeEventErrors({
    reason: 'marriage',
    changeDate: '2026-12-10',
    otherCoverage: null,
    today: '2026-12-15',
    hireDate: '2020-01-01',
    effectiveStart: null,
    lines: [],
    ...facts,
  }).map((error) => `${error.field_path.join('.')}: ${/rule ([a-z_]+\/[a-z_]+)/.exec(error.message)?.[1]}`);

describe('the life event table', () => {
  it('has a row with a source for every qualifying reason of the seed, and none for the other categories', () => {
    const qualifying = ENROLLMENT_REASONS.filter((reason) => !['open_enrollment', 'passive_open_enrollment', 'carrier_sync'].includes(reason));
    expect(Object.keys(LIFE_EVENT_RULES).sort()).toEqual([...qualifying].sort());
    for (const rule of Object.values(LIFE_EVENT_RULES)) expect(rule.source.length).toBeGreaterThan(10);
    expect(lifeEventRule('open_enrollment')).toBeUndefined();
    expect(lifeEventRule('toString')).toBeUndefined();
  });

  it.each([
    ['lost_coverage', null, 30],
    ['lost_coverage', 'medicaid', 60],
    ['lost_coverage', 'chip', 60],
    ['lost_coverage', 'medicaid_chip_premium_assistance', 60],
    ['lost_coverage', 'group_health_plan', 30],
    ['marriage', 'medicaid', 30],
  ] as const)('%s about %s has a %i-day window', (reason, other, days) => {
    expect(windowDaysOf(LIFE_EVENT_RULES[reason], other)).toBe(days);
  });

  it.each([
    // Submitted on 2026-12-15: the first of the next month is in the next year.
    ['2027-01-01', []],
    ['2027-01-02', ['effective_start: marriage/coverage_start']],
    ['2026-12-10', []],
    ['2026-12-09', ['effective_start: marriage/coverage_start']],
  ] as const)('a marriage on 2026-12-10 with coverage from %s gives %j', (start, expected) => {
    expect(messages({ effectiveStart: start })).toEqual(expected);
  });

  it('names the window by the hire date for a new hire, whatever change_date says', () => {
    expect(messages({ reason: 'new_hire', hireDate: '2026-11-15', changeDate: '2026-12-15' })).toEqual([]);
    expect(messages({ reason: 'new_hire', hireDate: '2026-11-14', changeDate: '2026-12-15' })).toEqual(['reason: new_hire/window']);
  });
});
