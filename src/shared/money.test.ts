import { describe, expect, it } from 'vitest';
import { fromCents, isMoney, toCents, toCentsOrNull } from './money.ts';

describe('toCentsOrNull', () => {
  it.each([
    [null, null],
    [undefined, null],
    ['0', 0],
    ['412.5', 41250],
  ])('when given %s, then it is %s', (value, cents) => {
    expect(toCentsOrNull(value)).toBe(cents);
  });
});

describe('toCents', () => {
  it.each([
    ['0', 0],
    ['1', 100],
    ['0.5', 50],
    ['0.05', 5],
    ['0.50', 50],
    ['412.5', 41250],
    ['412.50', 41250],
    ['10.01', 1001],
    ['100', 10000],
    ['999999999999.99', 99_999_999_999_999],
  ])('when given %j, then it is %i cents', (value, cents) => {
    expect(isMoney(value)).toBe(true);
    expect(toCents(value)).toBe(cents);
  });

  it.each([
    ['1.005', 'more than two decimals'],
    ['0.001', 'more than two decimals'],
    ['-1', 'negative'],
    ['-0.50', 'negative'],
    ['+1', 'an explicit sign'],
    ['01', 'a leading zero'],
    ['00.50', 'a leading zero'],
    ['1.', 'a trailing point'],
    ['.5', 'no whole part'],
    ['', 'empty'],
    [' 1', 'whitespace'],
    ['1 ', 'whitespace'],
    ['1e3', 'an exponent'],
    ['1,000.00', 'a thousands separator'],
    ['1000000000000', 'thirteen whole digits'],
    ['NaN', 'not a number'],
    ['Infinity', 'not a number'],
    ['0x10', 'hexadecimal'],
  ])('when given %j (%s), then it is rejected', (value) => {
    expect(isMoney(value)).toBe(false);
    expect(() => toCents(value)).toThrow(RangeError);
  });
});

describe('fromCents', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [50, '0.50'],
    [100, '1.00'],
    [41250, '412.50'],
    [1001, '10.01'],
    [-5, '-0.05'],
    [-41250, '-412.50'],
    [99_999_999_999_999, '999999999999.99'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
    [-Number.MAX_SAFE_INTEGER, '-90071992547409.91'],
  ])('when given %d cents, then it is %j', (cents, value) => {
    expect(fromCents(cents)).toBe(value);
  });

  it.each([[0.5], [412.5], [Number.NaN], [Number.POSITIVE_INFINITY], [Number.MAX_SAFE_INTEGER + 1]])(
    'when given %d, which is not a safe integer, then it throws',
    (cents) => {
      expect(() => fromCents(cents)).toThrow(RangeError);
    },
  );

  it.each(['0', '0.5', '0.05', '7', '412.50', '999999999999.99'])('when %j goes to cents and back, then the amount is unchanged', (value) => {
    const formatted = fromCents(toCents(value));
    expect(formatted).toMatch(/^\d+\.\d{2}$/);
    expect(toCents(formatted)).toBe(toCents(value));
  });
});
