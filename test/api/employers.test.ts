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

describe('/employers', () => {
  it('when an employer is created with every field, then 201 returns them all', async () => {
    const body = {
      legal_name: 'Acme Manufacturing LLC',
      trade_name: 'Acme',
      federal_ein: '12-3456789',
      email: 'hr@acme.example',
      phone_number: '3125550100',
      address: address({ line2: 'Suite 4' }),
      external_id: 'payroll-77',
      metadata: { region: 'midwest' },
      hours_measurement_method: 'look_back',
      stability_period_start: '01-01',
      stability_period_months: 12,
    };
    const response = await t.admin.post('/employers', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^er_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
    const fetched = await t.admin.get(`/employers/${response.body.id}`);
    expect(fetched.body).toEqual(response.body);
  });

  it('when optional fields are left out, then they read as null and metadata as {}', async () => {
    const employer = await createEmployer(t.admin);
    expect(employer).toMatchObject({
      trade_name: null,
      federal_ein: null,
      email: null,
      phone_number: null,
      external_id: null,
      metadata: {},
      hours_measurement_method: 'monthly',
      stability_period_start: null,
      stability_period_months: null,
    });
  });

  it.each([
    ['phone_number longer than 10', { phone_number: '12345678901' }, 'phone_number'],
    ['a bad federal_ein', { federal_ein: '12345' }, 'federal_ein'],
    ['a bad email', { email: 'not-an-email' }, 'email'],
    ['a state that is not a US state', { address: address({ state: 'ZZ' }) }, 'state'],
    ['a missing address', { address: undefined }, 'address'],
    ['an empty legal_name', { legal_name: '' }, 'legal_name'],
    ['a legal_name over 255', { legal_name: 'x'.repeat(256) }, 'legal_name'],
    ['a number for trade_name', { trade_name: 12 }, 'trade_name'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const response = await t.admin.post('/employers', { legal_name: 'Acme', address: address(), ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(response.body.input_errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('when patched, then only the given fields change and null clears an optional one', async () => {
    const employer = await createEmployer(t.admin, { trade_name: 'Old', email: 'a@b.example' });
    const response = await t.admin.patch(`/employers/${employer.id}`, { trade_name: null, legal_name: 'New Name LLC' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...employer, trade_name: null, legal_name: 'New Name LLC' });
  });

  it('when legal_name is patched to null, then 400 (required fields cannot be cleared)', async () => {
    const employer = await createEmployer(t.admin);
    expect((await t.admin.patch(`/employers/${employer.id}`, { legal_name: null })).status).toBe(400);
  });

  it('when patching an unknown employer, then 404', async () => {
    expect((await t.admin.patch('/employers/er_unknown', { trade_name: 'x' })).status).toBe(404);
  });

  it("when another provider's employer is addressed, then 404 for read and write", async () => {
    const other = await t.client('admin', { provider: 'someone-else' });
    const theirs = await createEmployer(other);
    expect((await t.admin.get(`/employers/${theirs.id}`)).status).toBe(404);
    expect((await t.admin.patch(`/employers/${theirs.id}`, { trade_name: 'x' })).status).toBe(404);
    const list = await t.admin.get('/employers?page_size=100');
    expect(list.body.results.map((e: { id: string }) => e.id)).not.toContain(theirs.id);
  });
});

describe('metadata', () => {
  it('when patched, then metadata is merged: overwrite, "" removes, absent keys stay', async () => {
    const employer = await createEmployer(t.admin, { metadata: { a: '1', b: '2', c: '3' } });
    const response = await t.admin.patch(`/employers/${employer.id}`, { metadata: { a: 'one', b: '', d: '4' } });
    expect(response.body.metadata).toEqual({ a: 'one', c: '3', d: '4' });
  });

  it('when a key is longer than 40 or a value longer than 500, then 400 naming the key', async () => {
    const longKey = 'k'.repeat(41);
    const key = await t.admin.post('/employers', { legal_name: 'A', address: address(), metadata: { [longKey]: 'v' } });
    expect(key.status).toBe(400);
    expect(key.body.input_errors[0].field_path).toEqual(['metadata', longKey]);
    const value = await t.admin.post('/employers', { legal_name: 'A', address: address(), metadata: { note: 'v'.repeat(501) } });
    expect(value.status).toBe(400);
    expect(value.body.input_errors[0].field_path).toEqual(['metadata', 'note']);
    const exact = await t.admin.post('/employers', { legal_name: 'A', address: address(), metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } });
    expect(exact.status).toBe(201);
  });

  it('when a value is not a string, then 400', async () => {
    const response = await t.admin.post('/employers', { legal_name: 'A', address: address(), metadata: { n: 5 } });
    expect(response.status).toBe(400);
    expect(response.body.input_errors[0].field_path).toEqual(['metadata', 'n']);
  });

  it('when a create or patch would leave more than 50 pairs, then 400 and nothing changes', async () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    const employer = await createEmployer(t.admin, { metadata: fifty });
    expect(Object.keys(employer.metadata)).toHaveLength(50);
    expect((await t.admin.post('/employers', { legal_name: 'A', address: address(), metadata: { ...fifty, extra: 'v' } })).status).toBe(400);
    const over = await t.admin.patch(`/employers/${employer.id}`, { metadata: { extra: 'v' }, trade_name: 'changed' });
    expect(over.status).toBe(400);
    expect(over.body.input_errors[0].field_path).toEqual(['metadata']);
    expect((await t.admin.get(`/employers/${employer.id}`)).body).toEqual(employer);
    const swap = await t.admin.patch(`/employers/${employer.id}`, { metadata: { k0: '', extra: 'v' } });
    expect(swap.status).toBe(200);
    expect(Object.keys(swap.body.metadata)).toHaveLength(50);
  });
});
