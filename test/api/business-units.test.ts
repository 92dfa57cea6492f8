import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createBusinessUnit, createEmployer } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const US_STATES_AND_DC = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
];

/** A valid email address of exactly `length` characters. */
function emailOfLength(length: number): string {
  const domain = '@acme.example';
  return `${'a'.repeat(length - domain.length)}${domain}`;
}

async function primaryIds(employerId: string): Promise<string[]> {
  const list = await t.admin.get(`/business_units?employer=${employerId}&page_size=100`);
  return list.body.results.filter((unit: { is_primary: boolean }) => unit.is_primary).map((unit: { id: string }) => unit.id);
}

describe('/business_units', () => {
  it('when a business unit is created with every field, then 201 returns them all with a bu_ id and public_id', async () => {
    const employer = await createEmployer(t.admin);
    const body = {
      employer: employer.id,
      legal_name: 'Acme East Operations LLC',
      trade_name: 'Acme East',
      federal_ein: '98-7654321',
      is_primary: true,
      address: address({ line1: '1 Harbor Way', line2: 'Floor 3', city: 'Boston', state: 'MA', zip_code: '02110-1234' }),
      phone_number: '6175550100',
      email: 'benefits@acme-east.example',
      metadata: { cost_center: 'CC-100', region: 'northeast' },
    };
    const response = await t.admin.post('/business_units', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ...body,
      id: expect.stringMatching(/^bu_[A-Za-z0-9]{20}$/),
      public_id: response.body.id,
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when created, then public_id equals id, has at most 30 characters and matches the id pattern', async () => {
    const unit = await createBusinessUnit(t.admin);
    expect(unit.public_id).toBe(unit.id);
    expect(unit.public_id.length).toBeLessThanOrEqual(30);
    expect(unit.public_id).toMatch(/^[-a-zA-Z0-9_]+$/);
  });

  it('when a created business unit is fetched by id, then it equals the create response', async () => {
    const unit = await createBusinessUnit(t.admin, { trade_name: 'West', address: address(), metadata: { a: '1' } });
    const fetched = await t.admin.get(`/business_units/${unit.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(unit);
  });

  it('when optional fields are left out, then they read as null, is_primary as false and metadata as {}', async () => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'Acme West' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      public_id: response.body.id,
      employer: employer.id,
      legal_name: 'Acme West',
      trade_name: null,
      federal_ein: null,
      is_primary: false,
      address: null,
      phone_number: null,
      email: null,
      metadata: {},
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when optional fields are sent as null on create, then they read as null', async () => {
    const unit = await createBusinessUnit(t.admin, { trade_name: null, federal_ein: null, address: null, phone_number: null, email: null });
    expect(unit).toMatchObject({ trade_name: null, federal_ein: null, address: null, phone_number: null, email: null });
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/business_units/bu_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/business_units/bu%20bad')).status).toBe(404);
    expect((await t.admin.patch('/business_units/bu_doesnotexist', { legal_name: 'x' })).status).toBe(404);
  });
});

describe('GET /business_units', () => {
  it('when listed, then business units come newest first', async () => {
    const admin = await newProviderAdmin(t, 'bu-list');
    const employer = await createEmployer(admin);
    const units = await createInSequence(t, 3, (i) => createBusinessUnit(admin, { employer: employer.id, legal_name: `Unit ${i}` }));
    const list = await admin.get('/business_units');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(units.map((u) => u.id).reverse());
    expect(list.body.results[0]).toEqual(units[2]);
  });

  it('when listed with ?employer=, then only that employer’s units come, newest first', async () => {
    const admin = await newProviderAdmin(t, 'bu-filter');
    const [mine, theirs] = [await createEmployer(admin), await createEmployer(admin)];
    const units = await createInSequence(t, 4, (i) => createBusinessUnit(admin, { employer: i % 2 === 0 ? mine.id : theirs.id }));
    expect(idsOf(await admin.get(`/business_units?employer=${mine.id}`))).toEqual([units[2].id, units[0].id]);
    expect(idsOf(await admin.get(`/business_units?employer=${theirs.id}`))).toEqual([units[3].id, units[1].id]);
    expect(idsOf(await admin.get('/business_units?employer=er_doesnotexist'))).toEqual([]);
  });

  it('when an employer-scoped key lists, then the filter is combined with its scope', async () => {
    const { employer: mine, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const own = await createBusinessUnit(t.admin, { employer: mine.id });
    await createBusinessUnit(t.admin, { employer: other.id });
    expect(idsOf(await client.get('/business_units?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/business_units?employer=${mine.id}`))).toEqual([own.id]);
    const filtered = await client.get(`/business_units?employer=${other.id}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.results).toEqual([]);
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/business_units?primary=true');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['primary']);
  });
});

describe('PATCH /business_units/{id}', () => {
  it('when patched, then only the given fields change and null clears optional ones', async () => {
    const unit = await createBusinessUnit(t.admin, {
      trade_name: 'Old',
      federal_ein: '123456789',
      address: address(),
      phone_number: '3125550100',
      email: 'old@acme.example',
    });
    const response = await t.admin.patch(`/business_units/${unit.id}`, {
      legal_name: 'Acme Renamed LLC',
      trade_name: null,
      federal_ein: null,
      address: null,
      phone_number: null,
      email: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...unit,
      legal_name: 'Acme Renamed LLC',
      trade_name: null,
      federal_ein: null,
      address: null,
      phone_number: null,
      email: null,
    });
    expect((await t.admin.get(`/business_units/${unit.id}`)).body).toEqual(response.body);
  });

  it('when one field is patched, then every other field stays', async () => {
    const unit = await createBusinessUnit(t.admin, { trade_name: 'Keep', address: address({ line2: 'Unit 9' }), email: 'keep@acme.example' });
    const response = await t.admin.patch(`/business_units/${unit.id}`, { phone_number: '2125550199' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...unit, phone_number: '2125550199' });
  });

  it('when the address is patched, then it is replaced as a whole', async () => {
    const unit = await createBusinessUnit(t.admin, { address: address({ line2: 'Suite 1' }) });
    const next = { line1: '9 Elm St', city: 'Austin', state: 'TX', zip_code: '73301' };
    const response = await t.admin.patch(`/business_units/${unit.id}`, { address: next });
    expect(response.status).toBe(200);
    expect(response.body.address).toEqual({ ...next, line2: null });
  });

  it.each(['legal_name', 'is_primary'])('when %s is patched to null, then 400 naming it and nothing changes', async (field) => {
    const unit = await createBusinessUnit(t.admin);
    const response = await t.admin.patch(`/business_units/${unit.id}`, { [field]: null, trade_name: 'changed' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/business_units/${unit.id}`)).body).toEqual(unit);
  });

  it('when the employer is patched, then 400 naming it and the unit keeps its employer', async () => {
    const unit = await createBusinessUnit(t.admin);
    const other = await createEmployer(t.admin);
    const response = await t.admin.patch(`/business_units/${unit.id}`, { employer: other.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
    expect((await t.admin.get(`/business_units/${unit.id}`)).body.employer).toBe(unit.employer);
  });

  it('when public_id or id is sent, then 400 naming it (they are read-only)', async () => {
    const unit = await createBusinessUnit(t.admin);
    const response = await t.admin.patch(`/business_units/${unit.id}`, { public_id: 'bu_mine', id: 'bu_mine' });
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['id', 'public_id']);
  });
});

describe('business unit validation', () => {
  it('when created with unknown fields, then 400 naming each of them', async () => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'A', name: 'A', primary: true });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual(['name', 'primary']);
  });

  it('when patched with unknown fields, then 400 naming them', async () => {
    const unit = await createBusinessUnit(t.admin);
    const response = await t.admin.patch(`/business_units/${unit.id}`, { phone: '3125550100' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['phone']);
  });

  it('when an address has an unknown field, then 400 naming it', async () => {
    const response = await t.admin.post('/business_units', {
      employer: (await createEmployer(t.admin)).id,
      legal_name: 'A',
      address: address({ country: 'US' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.input_errors[0].field_path).toEqual(['address', 'country']);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/business_units', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['employer', 'legal_name']);
  });

  it.each([
    ['an empty legal_name', { legal_name: '' }, 'legal_name'],
    ['a legal_name over 255', { legal_name: 'x'.repeat(256) }, 'legal_name'],
    ['a trade_name over 255', { trade_name: 'x'.repeat(256) }, 'trade_name'],
    ['an email over 255', { email: emailOfLength(256) }, 'email'],
    ['a bad email', { email: 'hr-at-acme.example' }, 'email'],
    ['a phone_number of 11 digits', { phone_number: '13125550100' }, 'phone_number'],
    ['a phone_number with punctuation', { phone_number: '312-555-01' }, 'phone_number'],
    ['a phone_number with letters', { phone_number: '312555CALL' }, 'phone_number'],
    ['an empty phone_number', { phone_number: '' }, 'phone_number'],
    ['a phone_number as a number', { phone_number: 3125550100 }, 'phone_number'],
    ['a federal_ein of 8 digits', { federal_ein: '12-345678' }, 'federal_ein'],
    ['a federal_ein with the dash misplaced', { federal_ein: '123-456789' }, 'federal_ein'],
    ['a string for is_primary', { is_primary: 'true' }, 'is_primary'],
    ['a zip_code of 4 digits', { address: address({ zip_code: '1234' }) }, 'zip_code'],
    ['an address without a city', { address: address({ city: undefined }) }, 'city'],
    ['an address that is a string', { address: '100 Market Street, Springfield IL' }, 'address'],
    ['metadata that is an array', { metadata: ['a'] }, 'metadata'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'Acme', ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toContain(field);
  });

  it('when strings are exactly at their bounds, then 201', async () => {
    const email = emailOfLength(255);
    expect(email).toHaveLength(255);
    const unit = await createBusinessUnit(t.admin, {
      legal_name: 'L'.repeat(255),
      trade_name: 'T'.repeat(255),
      email,
      phone_number: '9999999999',
      federal_ein: '123456789',
    });
    expect(unit).toMatchObject({ legal_name: 'L'.repeat(255), trade_name: 'T'.repeat(255), email, phone_number: '9999999999', federal_ein: '123456789' });
  });

  it('when a phone_number has fewer than 10 digits, then it is accepted as digits', async () => {
    const unit = await createBusinessUnit(t.admin, { phone_number: '911' });
    expect(unit.phone_number).toBe('911');
  });

  it('when patched with a value over its bound, then 400 and nothing changes', async () => {
    const unit = await createBusinessUnit(t.admin);
    for (const body of [{ legal_name: 'x'.repeat(256) }, { email: emailOfLength(256) }, { phone_number: '12345678901' }]) {
      const response = await t.admin.patch(`/business_units/${unit.id}`, body);
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(Object.keys(body));
    }
    expect((await t.admin.get(`/business_units/${unit.id}`)).body).toEqual(unit);
  });
});

describe('business unit address state', () => {
  it('when the state is any of the 50 states or DC, then it is accepted', async () => {
    expect(US_STATES_AND_DC).toHaveLength(51);
    const employer = await createEmployer(t.admin);
    for (const state of US_STATES_AND_DC) {
      const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: `Unit ${state}`, address: address({ state }) });
      expect(response.status, state).toBe(201);
      expect(response.body.address.state).toBe(state);
    }
  });

  it.each(['PR', 'GU', 'VI', 'AS', 'MP', 'ZZ', 'il', 'Illinois', ''])('when the state is %j, then 400 naming state', async (state) => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'Acme', address: address({ state }) });
    expect(response.status).toBe(400);
    expect(response.body.input_errors[0]).toMatchObject({ field: 'state', field_path: ['address', 'state'] });
  });

  // The address is nullable; the union's null branch must not tell the client "Must be null." for the address.
  it('when only the state of an address is wrong, then input_errors name the state and not the whole address', async () => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'Acme', address: address({ state: 'PR' }) });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toEqual([expect.objectContaining({ field: 'state', field_path: ['address', 'state'] })]);
  });

  it('when the state is patched to DC, then it is accepted; to PR, then 400', async () => {
    const unit = await createBusinessUnit(t.admin, { address: address() });
    const dc = await t.admin.patch(`/business_units/${unit.id}`, { address: address({ state: 'DC', city: 'Washington', zip_code: '20001' }) });
    expect(dc.status).toBe(200);
    expect(dc.body.address.state).toBe('DC');
    const pr = await t.admin.patch(`/business_units/${unit.id}`, { address: address({ state: 'PR', city: 'San Juan', zip_code: '00901' }) });
    expect(pr.status).toBe(400);
    expect(pr.body.input_errors).toContainEqual(expect.objectContaining({ field: 'state', field_path: ['address', 'state'] }));
    expect((await t.admin.get(`/business_units/${unit.id}`)).body.address.state).toBe('DC');
  });
});

describe('business unit references', () => {
  it('when the employer does not exist, then 400 with employer in input_errors', async () => {
    const response = await t.admin.post('/business_units', { employer: 'er_doesnotexist', legal_name: 'Ghost Unit' });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when the employer belongs to another provider, then 400 with employer in input_errors', async () => {
    const other = await newProviderAdmin(t, 'bu-refs');
    const theirs = await createEmployer(other);
    const response = await t.admin.post('/business_units', { employer: theirs.id, legal_name: 'Trespass Unit' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
    expect(idsOf(await other.get(`/business_units?employer=${theirs.id}`))).toEqual([]);
  });

  it('when an employer-scoped key creates a unit for its own employer, then 201; for another, then 400 naming employer', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const own = await client.post('/business_units', { employer: employer.id, legal_name: 'Own Unit' });
    expect(own.status).toBe(201);
    const foreign = await client.post('/business_units', { employer: other.id, legal_name: 'Foreign Unit' });
    expect(foreign.status).toBe(400);
    expect(errorFields(foreign)).toEqual(['employer']);
  });
});

describe('is_primary', () => {
  it('when a second unit of an employer is created primary, then the first is no longer primary', async () => {
    const employer = await createEmployer(t.admin);
    const first = await createBusinessUnit(t.admin, { employer: employer.id, is_primary: true });
    const second = await createBusinessUnit(t.admin, { employer: employer.id, is_primary: true });
    expect(second.is_primary).toBe(true);
    expect((await t.admin.get(`/business_units/${first.id}`)).body.is_primary).toBe(false);
    expect(await primaryIds(employer.id)).toEqual([second.id]);
  });

  it('when a unit is patched to primary, then the other primary of its employer is cleared', async () => {
    const employer = await createEmployer(t.admin);
    const first = await createBusinessUnit(t.admin, { employer: employer.id, is_primary: true });
    const second = await createBusinessUnit(t.admin, { employer: employer.id });
    const response = await t.admin.patch(`/business_units/${second.id}`, { is_primary: true });
    expect(response.status).toBe(200);
    expect(response.body.is_primary).toBe(true);
    expect((await t.admin.get(`/business_units/${first.id}`)).body.is_primary).toBe(false);
    expect(await primaryIds(employer.id)).toEqual([second.id]);
  });

  it('when the primary unit is patched to primary again, then it stays the only primary', async () => {
    const employer = await createEmployer(t.admin);
    const unit = await createBusinessUnit(t.admin, { employer: employer.id, is_primary: true });
    await createBusinessUnit(t.admin, { employer: employer.id });
    expect((await t.admin.patch(`/business_units/${unit.id}`, { is_primary: true })).body.is_primary).toBe(true);
    expect(await primaryIds(employer.id)).toEqual([unit.id]);
  });

  it('when the primary unit is patched to not primary, then the employer has none', async () => {
    const employer = await createEmployer(t.admin);
    const unit = await createBusinessUnit(t.admin, { employer: employer.id, is_primary: true });
    const response = await t.admin.patch(`/business_units/${unit.id}`, { is_primary: false });
    expect(response.body.is_primary).toBe(false);
    expect(await primaryIds(employer.id)).toEqual([]);
  });

  it("when another employer's unit becomes primary, then this employer's primary is unaffected", async () => {
    const [mine, theirs] = [await createEmployer(t.admin), await createEmployer(t.admin)];
    const myPrimary = await createBusinessUnit(t.admin, { employer: mine.id, is_primary: true });
    const theirPrimary = await createBusinessUnit(t.admin, { employer: theirs.id, is_primary: true });
    const theirOther = await createBusinessUnit(t.admin, { employer: theirs.id });
    await t.admin.patch(`/business_units/${theirOther.id}`, { is_primary: true });
    expect(await primaryIds(mine.id)).toEqual([myPrimary.id]);
    expect(await primaryIds(theirs.id)).toEqual([theirOther.id]);
    expect((await t.admin.get(`/business_units/${theirPrimary.id}`)).body.is_primary).toBe(false);
  });

  it("when another provider's unit becomes primary, then this provider's primary is unaffected", async () => {
    const other = await newProviderAdmin(t, 'bu-primary');
    const mine = await createEmployer(t.admin);
    const myPrimary = await createBusinessUnit(t.admin, { employer: mine.id, is_primary: true });
    await createBusinessUnit(other, { is_primary: true });
    expect(await primaryIds(mine.id)).toEqual([myPrimary.id]);
  });

  it('when several units are made primary at once, then exactly one ends up primary', async () => {
    const employer = await createEmployer(t.admin);
    const units = await Promise.all(Array.from({ length: 4 }, () => createBusinessUnit(t.admin, { employer: employer.id })));
    const responses = await Promise.all(units.map((unit) => t.admin.patch(`/business_units/${unit.id}`, { is_primary: true })));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await primaryIds(employer.id)).toHaveLength(1);
  });

  it('when several primary units are created at once, then exactly one ends up primary', async () => {
    const employer = await createEmployer(t.admin);
    const units = await Promise.all(Array.from({ length: 4 }, () => createBusinessUnit(t.admin, { employer: employer.id, is_primary: true })));
    expect(units.every((unit) => unit.is_primary)).toBe(true);
    expect(await primaryIds(employer.id)).toHaveLength(1);
  });
});

describe('business unit metadata', () => {
  it('when patched, then metadata is merged: overwrite, "" removes, absent keys stay', async () => {
    const unit = await createBusinessUnit(t.admin, { metadata: { a: '1', b: '2', c: '3' } });
    const response = await t.admin.patch(`/business_units/${unit.id}`, { metadata: { a: 'one', b: '', d: '4' } });
    expect(response.status).toBe(200);
    expect(response.body.metadata).toEqual({ a: 'one', c: '3', d: '4' });
    expect((await t.admin.get(`/business_units/${unit.id}`)).body.metadata).toEqual({ a: 'one', c: '3', d: '4' });
  });

  it('when patched without metadata, then metadata stays', async () => {
    const unit = await createBusinessUnit(t.admin, { metadata: { keep: 'me' } });
    expect((await t.admin.patch(`/business_units/${unit.id}`, { trade_name: 'X' })).body.metadata).toEqual({ keep: 'me' });
  });

  it('when created with a key set to "", then the key is not stored', async () => {
    const unit = await createBusinessUnit(t.admin, { metadata: { a: '1', gone: '' } });
    expect(unit.metadata).toEqual({ a: '1' });
  });

  it('when a key is longer than 40 or a value longer than 500, then 400 naming the key', async () => {
    const employer = await createEmployer(t.admin);
    const longKey = 'k'.repeat(41);
    const key = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'A', metadata: { [longKey]: 'v' } });
    expect(key.status).toBe(400);
    expect(key.body.input_errors[0].field_path).toEqual(['metadata', longKey]);
    const value = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'A', metadata: { note: 'v'.repeat(501) } });
    expect(value.status).toBe(400);
    expect(value.body.input_errors[0].field_path).toEqual(['metadata', 'note']);
    const exact = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'A', metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } });
    expect(exact.status).toBe(201);
  });

  it('when a value is not a string, then 400 naming the key', async () => {
    const unit = await createBusinessUnit(t.admin);
    const response = await t.admin.patch(`/business_units/${unit.id}`, { metadata: { count: 5 } });
    expect(response.status).toBe(400);
    expect(response.body.input_errors[0].field_path).toEqual(['metadata', 'count']);
  });

  it('when a create or patch would leave more than 50 pairs, then 400 and nothing changes', async () => {
    const employer = await createEmployer(t.admin);
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    const unit = await createBusinessUnit(t.admin, { employer: employer.id, metadata: fifty });
    expect(Object.keys(unit.metadata)).toHaveLength(50);
    const created = await t.admin.post('/business_units', { employer: employer.id, legal_name: 'A', metadata: { ...fifty, extra: 'v' } });
    expect(created.status).toBe(400);
    const over = await t.admin.patch(`/business_units/${unit.id}`, { metadata: { extra: 'v' }, trade_name: 'changed' });
    expect(over.status).toBe(400);
    expect(over.body.input_errors[0].field_path).toEqual(['metadata']);
    expect((await t.admin.get(`/business_units/${unit.id}`)).body).toEqual(unit);
    const swap = await t.admin.patch(`/business_units/${unit.id}`, { metadata: { k0: '', extra: 'v' } });
    expect(swap.status).toBe(200);
    expect(Object.keys(swap.body.metadata)).toHaveLength(50);
    expect(swap.body.metadata.extra).toBe('v');
  });
});
