import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../shared/errors.ts';
import { amountCentsOf, parseBill, periodOf } from './premium-bill-csv.ts';

const tiers = (text: string) => (text === 'member' ? (['member'] as const) : text === 'ECH' ? (['member_child', 'member_children'] as const) : []);

describe('reading a premium bill', () => {
  it.each([
    ['1234.56', 123_456],
    ['1234.5', 123_450],
    ['1234', 123_400],
    ['1,234.56', 123_456],
    ['$1,234.56', 123_456],
    ['-12.00', -1_200],
    ['$-12.00', -1_200],
    ['-$12.00', -1_200],
    ['(12.00)', -1_200],
    ['0', 0],
    ['9999999.99', 999_999_999],
    ['10000000.00', undefined],
    ['1.234', undefined],
    ['12,34', undefined],
    ['=1+2', undefined],
    ['(12.00', undefined],
    ['(-12.00)', undefined],
    ['1e3', undefined],
    ['', undefined],
    ['NaN', undefined],
  ])('amount %j is %j cents', (text, cents) => {
    expect(amountCentsOf(text)).toBe(cents);
  });

  it.each([
    ['2026-03', '2026-03'],
    ['2026-03-01', '2026-03'],
    ['2026-02-30', undefined],
    ['2026-13', undefined],
    ['03/2026', undefined],
  ])('period %j is %j', (text, period) => {
    expect(periodOf(text)).toBe(period);
  });

  it('maps columns, skips a BOM and CRLF, ignores other columns and reports bad lines by line and column', () => {
    const { lines, errors } = parseBill(
      '\uFEFFName,Subscriber ID,Tier,Month,Premium\r\nAna,mem_1,member,2026-03,500.00\r\nBen,,member,2026-03,1\r\n\r\nCy,mem_3,XYZ,2026-03,1\r\nDi,mem_4,ECH,2026-03,=HYPERLINK("x")\r\n',
      { member: 'subscriber id', coverage_tier: 'Tier', period: 'Month', amount: 'Premium' },
      tiers,
    );
    expect(lines).toEqual([{ line: 2, memberKey: 'mem_1', tiers: ['member'], period: '2026-03', amountCents: 50_000, lineOfCoverage: null }]);
    expect(errors.map((e) => [e.line, e.column])).toEqual([
      [3, 'member'],
      [5, 'coverage_tier'],
      [6, 'amount'],
    ]);
  });

  it('reports a member key with a NUL or another control character as a line error, never reading it as a key', () => {
    const { lines, errors } = parseBill('member,period,amount\nmem\u00001,2026-03,1\nmem\t2,2026-03,1\nmem_3,2026-03,1\n', {}, tiers);
    expect(lines.map((line) => line.memberKey)).toEqual(['mem_3']);
    expect(errors.map((error) => [error.line, error.column, error.message.includes('control characters')])).toEqual([
      [2, 'member', true],
      [3, 'member', true],
    ]);
  });

  it('refuses a file without a required column, or a column the mapping names that is not there', () => {
    expect(() => parseBill('member,period\nmem_1,2026-03\n', {}, tiers)).toThrow(ValidationFailed);
    expect(() => parseBill('member,period,amount\nmem_1,2026-03,1\n', { coverage_tier: 'Tier' }, tiers)).toThrow(ValidationFailed);
    expect(() => parseBill('', {}, tiers)).toThrow(ValidationFailed);
    expect(() => parseBill(`member,period,amount\n${'x'.repeat(20_000)},2026-03,1\n`, {}, tiers)).toThrow(ValidationFailed);
    expect(() => parseBill('member,period,amount\n"mem_1,2026-03,1\n', {}, tiers)).toThrow(ValidationFailed);
  });
});
