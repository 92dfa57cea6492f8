import { describe, expect, it } from 'vitest';
import { SSN_RULES, SsnDigester, ssnProblem } from './ssn.ts';

describe('the SSN rules (SSA randomization; POMS RM 10201.035)', () => {
  // Each row of SSN_RULES at its boundary: the numbers beside a refused part are issued.
  it.each([
    ['001', 'area 001'],
    ['665', 'area 665'],
    ['667', 'area 667'],
    ['899', 'area 899'],
  ])('when the area is %s, then it is accepted (%s)', (area) => {
    expect(ssnProblem(`${area}451234`)).toBeUndefined();
  });

  it.each([
    ['000', /area number .* 000/],
    ['666', /area number .* 666/],
    ['900', /900-999/],
    ['999', /900-999/],
  ])('when the area is %s, then it is refused', (area, message) => {
    expect(ssnProblem(`${area}451234`)).toMatch(message);
  });

  it('when the group is 01, then it is accepted; 00 is refused', () => {
    expect(ssnProblem('123011234')).toBeUndefined();
    expect(ssnProblem('123001234')).toMatch(/group number .* 00 /);
  });

  it('when the serial is 0001, then it is accepted; 0000 is refused', () => {
    expect(ssnProblem('123450001')).toBeUndefined();
    expect(ssnProblem('123450000')).toMatch(/serial number .* 0000 /);
  });

  it.each(['12345678', '1234567890', '123-45-6789', ' 123456789', '１２３４５６７８９', ''])('when the value is %j, then it is not nine digits', (value) => {
    expect(ssnProblem(value)).toBe('An SSN is exactly 9 digits.');
  });

  it('never repeats the number in a message', () => {
    for (const ssn of ['000451234', '666451234', '900451234', '123001234', '123450000']) expect(ssnProblem(ssn)).not.toContain(ssn.slice(3));
    expect(SSN_RULES.length).toBe(5);
  });
});

describe('SsnDigester', () => {
  it('gives one digest per SSN and key, another under another key, never the SSN or its plain hash', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const key = randomBytes(32);
    const digester = new SsnDigester(key);
    expect(digester.digest('123456789')).toBe(new SsnDigester(Buffer.from(key)).digest('123456789'));
    expect(digester.digest('123456789')).not.toBe(digester.digest('123456788'));
    expect(digester.digest('123456789')).not.toBe(new SsnDigester(randomBytes(32)).digest('123456789'));
    expect(digester.digest('123456789')).not.toBe(createHash('sha256').update('123456789').digest('base64url'));
    expect(digester.digest('123456789')).not.toContain('123456789');
  });
});
