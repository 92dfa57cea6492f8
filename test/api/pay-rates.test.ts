import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { createPayRate } from '../helpers/people-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /pay_rates', () => {
  it('when a pay rate is created with every field, then 201 returns them all with a pr_ id', async () => {
    const member = await createMember(t.admin);
    const body = { member: member.id, amount: '38.25', period: 'hourly', effective_start: '2026-04-01' };
    const response = await t.admin.post('/pay_rates', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^pr_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
    expect((await t.admin.get(`/pay_rates/${response.body.id}`)).body).toEqual(response.body);
  });

  it('when period is left out, then it is annually', async () => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/pay_rates', { member: member.id, amount: '85000.00', effective_start: '2026-01-01' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      member: member.id,
      amount: '85000.00',
      period: 'annually',
      effective_start: '2026-01-01',
      created_at: t.clock.now().toISOString(),
    });
  });

  it.each([
    ['85000', '85000.00'],
    ['85000.5', '85000.50'],
    ['0.01', '0.01'],
    ['999999999999.99', '999999999999.99'],
  ])('when the amount is %s, then it reads back as %s, exactly', async (amount, expected) => {
    const payRate = await createPayRate(t.admin, { amount });
    expect(payRate.amount).toBe(expected);
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).body.amount).toBe(expected);
  });

  it('when created, then the employer is copied from the member and the amount is stored in cents', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const payRate = await createPayRate(t.admin, { member: member.id, amount: '72000.10' });
    const row = await t.database.db
      .selectFrom('pay_rates')
      .select(['employer_id', 'member_id', 'amount_cents'])
      .where('id', '=', payRate.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ employer_id: employer.id, member_id: member.id, amount_cents: 7_200_010 });
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/pay_rates', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['amount', 'effective_start', 'member']);
  });

  it.each([
    ['an amount of zero', { amount: '0' }, ['amount']],
    ['an amount of 0.00', { amount: '0.00' }, ['amount']],
    ['a negative amount', { amount: '-100.00' }, ['amount']],
    ['an amount with 3 decimals', { amount: '100.125' }, ['amount']],
    ['an amount with a thousands separator', { amount: '85,000' }, ['amount']],
    ['an amount with a leading zero', { amount: '0100' }, ['amount']],
    ['an amount as a number', { amount: 85000 }, ['amount']],
    ['an amount with a currency sign', { amount: '$85000' }, ['amount']],
    ['an empty amount', { amount: '' }, ['amount']],
    ['null for amount', { amount: null }, ['amount']],
    ['an unknown period', { period: 'weekly' }, ['period']],
    ['null for period', { period: null }, ['period']],
    ['an effective_start that is not a calendar date', { effective_start: '2026-02-29' }, ['effective_start']],
    ['an effective_start with a time', { effective_start: '2026-01-01T00:00:00Z' }, ['effective_start']],
    ['unknown fields', { currency: 'USD', frequency: 'annually' }, ['currency', 'frequency']],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, fields) => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/pay_rates', { member: member.id, amount: '72000.00', effective_start: '2026-01-01', ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual(fields);
    expect(idsOf(await t.admin.get(`/pay_rates?member=${member.id}`))).toEqual([]);
  });
});

describe('pay rate references', () => {
  const body = (member: string) => ({ member, amount: '50000.00', effective_start: '2026-01-01' });

  it('when the member does not exist, then 400 naming member', async () => {
    const response = await t.admin.post('/pay_rates', body('mem_doesnotexist'));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });

  it("when the member is another provider's, then 400 naming member", async () => {
    const other = await newProviderAdmin(t, 'pr-refs');
    const theirs = await createMember(other);
    const response = await t.admin.post('/pay_rates', body(theirs.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });

  it("when an employer key names its own member, then 201; another employer's member, then 400 naming member", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(t.admin, { employer: employer.id });
    const foreign = await createMember(t.admin);
    expect((await client.post('/pay_rates', body(own.id))).status).toBe(201);
    const response = await client.post('/pay_rates', body(foreign.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });
});

describe('GET /pay_rates', () => {
  it('when listed, then pay rates come newest first', async () => {
    const admin = await newProviderAdmin(t, 'pr-list');
    const member = await createMember(admin);
    const payRates = await createInSequence(t, 3, (i) => createPayRate(admin, { member: member.id, amount: `${60000 + i * 1000}.00` }));
    const list = await admin.get('/pay_rates');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(payRates.map((p) => p.id).reverse());
    expect(list.body.results[0]).toEqual(payRates[2]);
  });

  it('when listed with ?member=, then only that member’s pay rates come, newest first', async () => {
    const admin = await newProviderAdmin(t, 'pr-filter');
    const [mine, theirs] = [await createMember(admin), await createMember(admin)];
    const payRates = await createInSequence(t, 4, (i) => createPayRate(admin, { member: i % 2 === 0 ? mine.id : theirs.id }));
    expect(idsOf(await admin.get(`/pay_rates?member=${mine.id}`))).toEqual([payRates[2].id, payRates[0].id]);
    expect(idsOf(await admin.get(`/pay_rates?member=${theirs.id}`))).toEqual([payRates[3].id, payRates[1].id]);
  });

  it('when paged, then next walks through every pay rate once, in order, keeping ?member=', async () => {
    const admin = await newProviderAdmin(t, 'pr-pages');
    const member = await createMember(admin);
    const payRates = await createInSequence(t, 3, () => createPayRate(admin, { member: member.id }));
    const first = await admin.get(`/pay_rates?member=${member.id}&page_size=2`);
    expect(new URL(first.body.next).searchParams.get('member')).toBe(member.id);
    const second = await admin.get(first.body.next);
    expect([...idsOf(first), ...idsOf(second)]).toEqual(payRates.map((p) => p.id).reverse());
    expect(second.body.next).toBeNull();
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/pay_rates?period=hourly');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['period']);
  });
});

describe('PATCH /pay_rates/{id}', () => {
  it('when patched, then only the given fields change', async () => {
    const payRate = await createPayRate(t.admin, { amount: '72000.00', period: 'annually', effective_start: '2026-01-01' });
    const response = await t.admin.patch(`/pay_rates/${payRate.id}`, { amount: '41.5', period: 'hourly', effective_start: '2026-07-01' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...payRate, amount: '41.50', period: 'hourly', effective_start: '2026-07-01' });
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).body).toEqual(response.body);
  });

  it('when one field is patched, then every other field stays', async () => {
    const payRate = await createPayRate(t.admin, { period: 'hourly', amount: '30.00' });
    const response = await t.admin.patch(`/pay_rates/${payRate.id}`, { effective_start: '2026-05-15' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...payRate, effective_start: '2026-05-15' });
  });

  it('when the member is patched, then 400 naming it', async () => {
    const payRate = await createPayRate(t.admin);
    const response = await t.admin.patch(`/pay_rates/${payRate.id}`, { member: (await createMember(t.admin)).id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });

  it.each([
    ['an amount of zero', { amount: '0.00' }, 'amount'],
    ['a negative amount', { amount: '-1' }, 'amount'],
    ['null for amount', { amount: null }, 'amount'],
    ['an unknown period', { period: 'monthly' }, 'period'],
    ['null for period', { period: null }, 'period'],
    ['null for effective_start', { effective_start: null }, 'effective_start'],
    ['a bad effective_start', { effective_start: '2026-13-01' }, 'effective_start'],
  ])('when patched with %s, then 400 naming the field and nothing changes', async (_case, body, field) => {
    const payRate = await createPayRate(t.admin);
    const response = await t.admin.patch(`/pay_rates/${payRate.id}`, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).body).toEqual(payRate);
  });
});

describe('DELETE /pay_rates/{id}', () => {
  it('when a pay rate is deleted, then 200 {id, object: "pay_rate", deleted: true} and it is gone', async () => {
    const payRate = await createPayRate(t.admin);
    const other = await createPayRate(t.admin, { member: payRate.member });
    const response = await t.admin.delete(`/pay_rates/${payRate.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: payRate.id, object: 'pay_rate', deleted: true });
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).status).toBe(404);
    expect((await t.admin.patch(`/pay_rates/${payRate.id}`, { amount: '1.00' })).status).toBe(404);
    expect((await t.admin.delete(`/pay_rates/${payRate.id}`)).status).toBe(404);
    expect(idsOf(await t.admin.get(`/pay_rates?member=${payRate.member}`))).toEqual([other.id]);
  });

  it('when the member is deleted, then their pay rates are gone too', async () => {
    const payRate = await createPayRate(t.admin);
    expect((await t.admin.delete(`/members/${payRate.member}`)).status).toBe(200);
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).status).toBe(404);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/pay_rates/pr_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/pay_rates/pr%20bad')).status).toBe(404);
    expect((await t.admin.delete('/pay_rates/pr%20bad')).status).toBe(404);
    expect((await t.admin.delete('/pay_rates/pr_doesnotexist')).status).toBe(404);
  });
});

describe('pay rate tenancy and roles', () => {
  it("when another provider addresses a pay rate, then 404 on GET, PATCH and DELETE and it is absent from that provider's list", async () => {
    const other = await newProviderAdmin(t, 'pr-tenancy');
    await createPayRate(other);
    const payRate = await createPayRate(t.admin);
    expect((await other.get(`/pay_rates/${payRate.id}`)).status).toBe(404);
    expect((await other.patch(`/pay_rates/${payRate.id}`, { amount: '1.00' })).status).toBe(404);
    expect((await other.delete(`/pay_rates/${payRate.id}`)).status).toBe(404);
    expect(idsOf(await other.get('/pay_rates?page_size=100'))).not.toContain(payRate.id);
    expect((await t.admin.get(`/pay_rates/${payRate.id}`)).body).toEqual(payRate);
  });

  it("when an employer key addresses another employer's pay rate, then 404 and the list shows only its own", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createPayRate(t.admin, { member: (await createMember(t.admin, { employer: employer.id })).id });
    const foreign = await createPayRate(t.admin);
    expect((await client.get(`/pay_rates/${foreign.id}`)).status).toBe(404);
    expect((await client.patch(`/pay_rates/${foreign.id}`, { amount: '1.00' })).status).toBe(404);
    expect((await client.delete(`/pay_rates/${foreign.id}`)).status).toBe(404);
    expect(idsOf(await client.get('/pay_rates?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/pay_rates?member=${foreign.member}`))).toEqual([]);
    expect((await client.patch(`/pay_rates/${own.id}`, { amount: '99000.00' })).body.amount).toBe('99000.00');
    expect((await client.delete(`/pay_rates/${own.id}`)).status).toBe(200);
    expect((await t.admin.get(`/pay_rates/${foreign.id}`)).body).toEqual(foreign);
  });

  it('when a read_only key writes, then 403 on POST, PATCH and DELETE; reads succeed', async () => {
    const readOnly = await t.client('read_only');
    const payRate = await createPayRate(t.admin);
    const post = await readOnly.post('/pay_rates', { member: payRate.member, amount: '1.00', effective_start: '2026-01-01' });
    expect(post.status).toBe(403);
    expect(post.body.type).toBe('permission_error');
    expect((await readOnly.patch(`/pay_rates/${payRate.id}`, { amount: '1.00' })).status).toBe(403);
    expect((await readOnly.delete(`/pay_rates/${payRate.id}`)).status).toBe(403);
    expect((await readOnly.get(`/pay_rates/${payRate.id}`)).body).toEqual(payRate);
  });

  it('when there is no API key, then 401', async () => {
    expect((await t.anonymous.get('/pay_rates')).status).toBe(401);
    expect((await t.anonymous.delete('/pay_rates/pr_x')).status).toBe(401);
  });
});
