import { describe, expect, it } from 'vitest';
import { amountOnPayDate, periodSplit } from './pay-period-rules.ts';
import { PERIODS_PER_YEAR, payDatesBetween } from './pay-schedule-rules.ts';
import type { PayFrequency } from './payroll.table.ts';

const FREQUENCIES = Object.keys(PERIODS_PER_YEAR) as PayFrequency[];
const MONTHLY_AMOUNTS = [0, 1, 7, 9999, 36250, 51240, 123457, 2] as const;

describe('periodSplit', () => {
  it.each(FREQUENCIES.flatMap((frequency) => MONTHLY_AMOUNTS.map((monthly) => [frequency, monthly] as const)))(
    'when %s splits %i cents a month, then the counted periods sum to the annual total exactly',
    (frequency, monthly) => {
      const split = periodSplit(monthly, frequency);
      expect(split.regular * (split.periods - 1) + split.last).toBe(monthly * 12);
      expect(split.last - split.regular).toBeGreaterThanOrEqual(0);
      expect(split.last - split.regular).toBeLessThan(split.periods);
    },
  );

  it.each([
    ['weekly', 10000, 2307, 2343],
    ['biweekly', 10000, 4615, 4625],
    ['semimonthly', 10000, 5000, 5000],
    ['monthly', 10000, 10000, 10000],
    ['biweekly', 51240, 23649, 23655],
  ] as const)('when %s splits %i, then each period is %i and the last %i', (frequency, monthly, regular, last) => {
    expect(periodSplit(monthly, frequency)).toMatchObject({ regular, last });
  });
});

describe('amountOnPayDate over real plan years', () => {
  const cases = [
    // 2026-01-02 is a Friday: 2026 has 52 Fridays; 2027-01-01 starts a 53-Friday year.
    ['weekly', '2026-01-02', '2026-01-01', '2026-12-31', 52],
    ['weekly', '2027-01-01', '2027-01-01', '2027-12-31', 53],
    ['biweekly', '2027-01-01', '2027-01-01', '2027-12-31', 27],
    ['biweekly', '2026-01-09', '2026-01-01', '2026-12-31', 26],
    ['semimonthly', '2026-01-15', '2026-01-01', '2026-12-31', 24],
    ['monthly', '2026-01-31', '2026-01-01', '2026-12-31', 12],
  ] as const;
  it.each(cases)(
    'when a %s schedule from %s pays the plan year %s..%s (%i pay dates), then the year sums to 12 months exactly',
    (frequency, first, from, to, count) => {
      const semimonthlyDays = frequency === 'semimonthly' ? ([15, 31] as const) : null;
      const dates = payDatesBetween({ frequency, firstPayDate: first, semimonthlyDays }, from, to);
      expect(dates).toHaveLength(count);
      for (const monthly of MONTHLY_AMOUNTS) {
        const total = dates.reduce((sum, _date, index) => sum + amountOnPayDate(monthly, frequency, index + 1), 0);
        expect(total).toBe(monthly * 12);
      }
    },
  );

  it('when a biweekly year has a 27th pay date, then it takes nothing and the 26th carries the remainder', () => {
    expect(amountOnPayDate(10000, 'biweekly', 25)).toBe(4615);
    expect(amountOnPayDate(10000, 'biweekly', 26)).toBe(4625);
    expect(amountOnPayDate(10000, 'biweekly', 27)).toBe(0);
  });
});
