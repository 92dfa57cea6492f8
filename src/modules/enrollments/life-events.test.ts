import { describe, expect, it } from 'vitest';
import { ENROLLMENT_REASONS } from './enrollment-rules.ts';
import { addDays } from '../../shared/dates.ts';
import { LIFE_EVENT_RULES, lifeEventErrors, lifeEventRule, windowDaysOf, type LifeEventFacts, type LifeEventReason } from './life-events.ts';

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
    ['covered before and left out', undefined, ['enrolled_plans.0: marriage/drop']],
    ['leaving (aged out on the start) and left out', new Set(['dep_child']), []],
  ] as const)('a marriage where a child %s gives %j', (_label, leaving, expected) => {
    const child = new Map([['dep_child', 'child' as const]]);
    const before = { planId: 'plan_gold', dependents: child, ...(leaving ? { leaving } : {}) };
    const after = { planId: 'plan_gold', previousPlanId: null, dependents: new Map([['dep_spouse', 'spouse' as const]]) };
    expect(messages({ lines: [{ lineOfCoverage: 'medical', path: ['enrolled_plans', 0], before, after }] })).toEqual(expected);
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

  it.each([
    ['new_child', '2026-12-11', 'expected 2026-12-10'],
    ['marriage', '2027-01-02', 'expected 2026-12-10 to 2027-01-01'],
  ] as const)('a %s refused for coverage from %s says the start the rule expects: %s', (reason, start, expected) => {
    const [error, ...others] = lifeEventErrors({
      reason,
      changeDate: '2026-12-10',
      otherCoverage: null,
      today: '2026-12-15',
      hireDate: '2020-01-01',
      effectiveStart: start,
      lines: [],
    }).filter((refusal) => refusal.message.includes('/coverage_start'));
    expect(others).toEqual([]);
    expect(error!.message).toContain(`: ${expected} (`);
  });

  it('names the window by the hire date for a new hire, whatever change_date says', () => {
    expect(messages({ reason: 'new_hire', hireDate: '2026-11-15', changeDate: '2026-12-15' })).toEqual([]);
    expect(messages({ reason: 'new_hire', hireDate: '2026-11-14', changeDate: '2026-12-15' })).toEqual(['reason: new_hire/window']);
  });
});

// Every row's boundaries, last day in and first day out, from the row itself: the window (29 U.S.C.
// 1181(f)(1)(C), (f)(2)(A), (f)(3)(A); the plan's window for the other rows), how far ahead change_date may be,
// and the first day of coverage (1181(f)(2)(C): the event date, or by the first of the next month).
describe('every row of the life event table, at its boundaries', () => {
  const TODAY = '2026-12-15';
  const reasons = Object.keys(LIFE_EVENT_RULES) as LifeEventReason[];
  const parts = (facts: Partial<LifeEventFacts> & { reason: LifeEventReason }) => messages({ today: TODAY, changeDate: TODAY, hireDate: TODAY, ...facts });

  it.each(reasons)('%s: submitted on the last day of its window it is accepted; on the day after, refused', (reason) => {
    const rule = LIFE_EVENT_RULES[reason];
    const field = rule.windowFrom === 'hire_date' ? 'reason' : 'change_date';
    for (const other of [null, 'medicaid'] as const) {
      const start = addDays(TODAY, -windowDaysOf(rule, other));
      const from = (date: string) => (rule.windowFrom === 'hire_date' ? { hireDate: date } : { changeDate: date });
      expect(parts({ reason, otherCoverage: other, ...from(start) })).not.toContain(`${field}: ${reason}/window`);
      expect(parts({ reason, otherCoverage: other, ...from(addDays(start, -1)) })).toContain(`${field}: ${reason}/window`);
    }
  });

  it.each(reasons)('%s: change_date as far ahead as the row allows is accepted; a day further, refused', (reason) => {
    const ahead = LIFE_EVENT_RULES[reason].futureDays;
    expect(parts({ reason, changeDate: addDays(TODAY, ahead) })).not.toContain(`change_date: ${reason}/future`);
    expect(parts({ reason, changeDate: addDays(TODAY, ahead + 1) })).toContain(`change_date: ${reason}/future`);
  });

  it.each(reasons.filter((reason) => LIFE_EVENT_RULES[reason].coverageStart === 'event_date'))(
    '%s: coverage from the event date is accepted; a day before or after, refused',
    (reason) => {
      const changeDate = '2026-12-10';
      expect(parts({ reason, changeDate, effectiveStart: changeDate })).not.toContain(`effective_start: ${reason}/coverage_start`);
      for (const start of [addDays(changeDate, -1), addDays(changeDate, 1)]) {
        expect(parts({ reason, changeDate, effectiveStart: start })).toContain(`effective_start: ${reason}/coverage_start`);
      }
    },
  );

  it.each(reasons.filter((reason) => LIFE_EVENT_RULES[reason].coverageStart === 'by_first_of_next_month'))(
    '%s: coverage from the event date or the first of the next month is accepted; a day before the event or after that first, refused',
    (reason) => {
      const changeDate = '2026-12-10';
      for (const start of [changeDate, '2027-01-01']) {
        expect(parts({ reason, changeDate, effectiveStart: start })).not.toContain(`effective_start: ${reason}/coverage_start`);
      }
      for (const start of ['2026-12-09', '2027-01-02']) {
        expect(parts({ reason, changeDate, effectiveStart: start })).toContain(`effective_start: ${reason}/coverage_start`);
      }
    },
  );
});
