import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createEmployer } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('validation messages', () => {
  it('when a value breaks a pattern, then the message says what is expected in words, never as a regular expression', async () => {
    const employer = await createEmployer(t.admin);
    const responses = [
      await t.admin.post('/employers', { legal_name: 'A', address: address({ zip_code: '1' }) }),
      await t.admin.post('/members', {
        employer: employer.id,
        first_name: 'A',
        last_name: 'B',
        dob: '1990-01-01',
        address: address(),
        hire_date: '2024-01-01',
        ssn: '12',
      }),
      await t.admin.post('/pay_rates', { member: 'mem_x', amount: '12.345', effective_start: '2026-01-01' }),
    ];
    const messages = responses.flatMap((r) => r.body.input_errors.map((e: { message: string }) => e.message));
    expect(messages).toEqual(
      expect.arrayContaining(['Invalid format (ZIP code: 12345 or 12345-6789).', 'Must be a decimal string with at most 2 decimals, e.g. "412.50".']),
    );
    for (const message of messages) expect(message).not.toMatch(/\^|\$"|\[0-9\]/);
  });
});
