import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createEmployer, createGroup } from '../helpers/factories.ts';

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

describe('union bodies', () => {
  // An EDI profile's delivery is a union told apart by `method`: its errors come from the branch `method` names.
  const FINGERPRINT = `SHA256:${'A'.repeat(42)}8`;
  const profile = (delivery: unknown) => ({
    interchange_sender: { qualifier: 'ZZ', id: 'BENEFITSCO' },
    interchange_receiver: { qualifier: 'ZZ', id: 'WORLDHEALTH' },
    application_sender_code: 'BENEFITSCO',
    application_receiver_code: 'WORLDHEALTH',
    sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
    payer: { name: 'World Health Co', id: '987654321' },
    delivery,
  });
  const sftp = (overrides: Record<string, unknown> = {}) => ({
    method: 'sftp',
    host: 'sftp.worldhealth.example',
    username: 'benefitsco',
    host_key_fingerprint: FINGERPRINT,
    inbound_directory: '/inbound/834',
    password: 'tr0ub4dor&3-carrier-sftp',
    ...overrides,
  });
  let group: string;
  beforeAll(async () => {
    group = (await createGroup(t.admin, { connection_method: 'edi' })).id;
  });
  const inputErrors = async (delivery: unknown) => {
    const response = await t.admin.request('PUT', `/groups/${group}/edi_profile`, { body: profile(delivery) });
    expect(response.status, response.text).toBe(400);
    return response.body.input_errors.map((error: { field_path: string[]; message: string }) => [error.field_path.join('.'), error.message]);
  };

  it.each([
    ['a host key fingerprint with = padding', sftp({ host_key_fingerprint: `${FINGERPRINT}=` }), 'delivery.host_key_fingerprint', 'Invalid format'],
    ['a port of 0', sftp({ port: 0 }), 'delivery.port', 'Must be >= 1.'],
    ['a port written as text', sftp({ port: '22' }), 'delivery.port', 'Must be integer.'],
    ['no username', sftp({ username: undefined }), 'delivery.username', 'This field is required.'],
    ['a misspelt field', sftp({ hots: 'sftp.worldhealth.example' }), 'delivery.hots', 'Unknown field; check its spelling.'],
    ['an sftp field on a download delivery', { method: 'download', host: 'sftp.worldhealth.example' }, 'delivery.host', 'Unknown field; check its spelling.'],
    ['an unknown method', sftp({ method: 'ftp' }), 'delivery.method', 'Must be one of: download, sftp.'],
    ['a method that is not text', sftp({ method: 7 }), 'delivery.method', 'Must be one of: download, sftp.'],
    ['no method', sftp({ method: undefined }), 'delivery.method', 'This field is required.'],
    ['a delivery that is not an object', 'sftp', 'delivery', 'Must be object.'],
  ])('when the delivery has %s, then the one error names that field', async (_label, delivery, fieldPath, message) => {
    expect(await inputErrors(delivery)).toEqual([[fieldPath, expect.stringContaining(message)]]);
  });

  it('when the delivery is right, then it is stored', async () => {
    const response = await t.admin.request('PUT', `/groups/${group}/edi_profile`, { body: profile(sftp()) });
    expect(response.status, response.text).toBe(200);
    expect(response.body.delivery).toMatchObject({ method: 'sftp', port: 22, host_key_fingerprint: FINGERPRINT });
  });
});

describe('union bodies without a discriminator', () => {
  // An enrollment's enrolled_plans are elections (by plan) or EOI decisions (by id): errors come from the shape the
  // body comes closest to. Bodies are validated before the enrollment is looked up, so no enrollment is needed.
  const inputErrors = async (enrolledPlans: unknown) => {
    const response = await t.admin.patch('/enrollments/enr_missing', { enrolled_plans: enrolledPlans });
    expect(response.status, response.text).toBe(400);
    return response.body.input_errors.map((error: { field_path: string[]; message: string }) => [error.field_path.join('.'), error.message]);
  };

  it.each([
    ['an EOI decision with an unknown status', [{ id: 'enp_1', eoi_status: 'maybe' }], [['enrolled_plans.0.eoi_status', 'Must be one of: approved, denied.']]],
    ['an election with a premium as a number', [{ plan: 'pln_1', premium: 12 }], [['enrolled_plans.0.premium', 'Must be string.']]],
    [
      'two elections, one with a misspelt provider field and one with a bad premium',
      [
        { plan: 'pln_1', primary_care_provider: { name: 'Dr. Ada Park' } },
        { plan: 'pln_2', premium: '1.234' },
      ],
      [
        ['enrolled_plans.0.primary_care_provider.full_name', 'This field is required.'],
        ['enrolled_plans.0.primary_care_provider.name', 'Unknown field; check its spelling.'],
        ['enrolled_plans.1.premium', expect.stringContaining('at most 2 decimals')],
      ],
    ],
    ['text instead of a list', 'pln_1', [['enrolled_plans', 'Must be array.']]],
  ])("when enrolled_plans has %s, then the errors are that shape's only", async (_label, enrolledPlans, expected) => {
    expect(await inputErrors(enrolledPlans)).toEqual(expected);
  });
});
