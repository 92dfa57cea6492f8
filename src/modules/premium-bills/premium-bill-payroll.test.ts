import { describe, expect, it } from 'vitest';
import { codeLinesOf, monthsFrom } from './premium-bill-payroll.ts';

describe("the group's deduction codes", () => {
  it.each<[string, Parameters<typeof codeLinesOf>[0], [string, string][]]>([
    ['a configured code', [{ line_of_coverage: 'medical', deduction_code: 'MED' }], [['MED', 'medical']]],
    ['no code configured: the line, as the feed does', [{ line_of_coverage: 'dental', deduction_code: null }], [['dental', 'dental']]],
    [
      'two configurations of a plan, two codes',
      [
        { line_of_coverage: 'medical', deduction_code: 'MED' },
        { line_of_coverage: 'medical', deduction_code: 'MED-PT' },
      ],
      [
        ['MED', 'medical'],
        ['MED-PT', 'medical'],
      ],
    ],
    [
      'a code two lines share: the first line by name',
      [
        { line_of_coverage: 'vision', deduction_code: 'DV' },
        { line_of_coverage: 'dental', deduction_code: 'DV' },
      ],
      [['DV', 'dental']],
    ],
  ])('%s', (_name, rows, expected) => {
    expect([...codeLinesOf(rows)]).toEqual(expected);
  });
});

describe('the months compared', () => {
  it.each([
    ['one month', '2026-03', '2026-03', ['2026-03']],
    ['across a year end', '2025-11', '2026-02', ['2025-11', '2025-12', '2026-01', '2026-02']],
  ])('%s', (_name, first, last, expected) => {
    expect(monthsFrom(first, last)).toEqual(expected);
  });
});
