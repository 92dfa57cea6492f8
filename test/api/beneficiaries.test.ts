import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENEFICIARY_RELATIONSHIPS } from '../../src/modules/beneficiaries/beneficiary.table.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createEmployer, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { createBeneficiary } from '../helpers/people-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const today = () => t.clock.now().toISOString().slice(0, 10);
const tomorrow = () => new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);

describe('POST /beneficiaries', () => {
  it('when a beneficiary is created with every field, then 201 returns them all with a ben_ id', async () => {
    const member = await createMember(t.admin);
    const body = {
      member: member.id,
      full_name: 'Alex Jordan Rivera',
      member_relationship: 'spouse',
      tin_last_four: '0427',
      address: address({ line2: 'Apt 4' }),
      phone_number: '3125550142',
      dob: '1989-11-02',
    };
    const response = await t.admin.post('/beneficiaries', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^ben_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
    expect((await t.admin.get(`/beneficiaries/${response.body.id}`)).body).toEqual(response.body);
  });

  it('when optional fields are left out, then they read as null', async () => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/beneficiaries', { member: member.id, full_name: 'Rivera Family Trust', member_relationship: 'trust' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      member: member.id,
      full_name: 'Rivera Family Trust',
      member_relationship: 'trust',
      tin_last_four: null,
      address: null,
      phone_number: null,
      dob: null,
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when optional fields are sent as null, then they read as null', async () => {
    const beneficiary = await createBeneficiary(t.admin, { tin_last_four: null, address: null, phone_number: null, dob: null });
    expect(beneficiary).toMatchObject({ tin_last_four: null, address: null, phone_number: null, dob: null });
  });

  it('when created, then the employer is copied from the member', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const beneficiary = await createBeneficiary(t.admin, { member: member.id });
    const row = await t.database.db.selectFrom('beneficiaries').select(['employer_id', 'member_id']).where('id', '=', beneficiary.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ employer_id: employer.id, member_id: member.id });
  });

  it.each(BENEFICIARY_RELATIONSHIPS)('when member_relationship is %s, then 201', async (relationship) => {
    expect((await createBeneficiary(t.admin, { member_relationship: relationship })).member_relationship).toBe(relationship);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/beneficiaries', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['full_name', 'member', 'member_relationship']);
  });

  it.each([
    ['an unknown member_relationship', { member_relationship: 'neighbor' }, ['member_relationship']],
    ['a dependent-only relationship', { member_relationship: 'step_child' }, ['member_relationship']],
    ['an empty full_name', { full_name: '' }, ['full_name']],
    ['a full_name over 255', { full_name: 'x'.repeat(256) }, ['full_name']],
    ['a tin_last_four of 3 digits', { tin_last_four: '123' }, ['tin_last_four']],
    ['a tin_last_four of 5 digits', { tin_last_four: '12345' }, ['tin_last_four']],
    ['a tin_last_four with a letter', { tin_last_four: '12X4' }, ['tin_last_four']],
    ['a tin_last_four with spaces', { tin_last_four: ' 123' }, ['tin_last_four']],
    ['a whole TIN as tin_last_four', { tin_last_four: '12-3456789' }, ['tin_last_four']],
    ['a tin_last_four as a number', { tin_last_four: 1234 }, ['tin_last_four']],
    ['a phone_number of 11 digits', { phone_number: '13125550142' }, ['phone_number']],
    ['a phone_number with punctuation', { phone_number: '312-555-01' }, ['phone_number']],
    ['an empty phone_number', { phone_number: '' }, ['phone_number']],
    ['a dob that is not a calendar date', { dob: '2023-02-30' }, ['dob']],
    ['an address with a bad zip_code', { address: address({ zip_code: '6270' }) }, ['zip_code']],
    ['unknown fields', { relationship: 'spouse', percentage: 50 }, ['percentage', 'relationship']],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, fields) => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/beneficiaries', { member: member.id, full_name: 'Alex Rivera', member_relationship: 'spouse', ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual(fields);
  });

  it('when full_name is 255 characters and phone_number 10 digits, then 201', async () => {
    const beneficiary = await createBeneficiary(t.admin, { full_name: 'N'.repeat(255), phone_number: '9999999999' });
    expect(beneficiary).toMatchObject({ full_name: 'N'.repeat(255), phone_number: '9999999999' });
  });

  it('when the dob is today, then 201; tomorrow, then 400 naming dob', async () => {
    expect((await createBeneficiary(t.admin, { dob: today() })).dob).toBe(today());
    const member = await createMember(t.admin);
    const response = await t.admin.post('/beneficiaries', { member: member.id, full_name: 'A', member_relationship: 'child', dob: tomorrow() });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['dob']);
    expect(idsOf(await t.admin.get(`/beneficiaries?member=${member.id}`))).toEqual([]);
  });
});

describe('beneficiary references', () => {
  const body = (member: string) => ({ member, full_name: 'Alex Rivera', member_relationship: 'spouse' });

  it('when the member does not exist, then 400 naming member', async () => {
    const response = await t.admin.post('/beneficiaries', body('mem_doesnotexist'));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });

  it("when the member is another provider's, then 400 naming member", async () => {
    const other = await newProviderAdmin(t, 'ben-refs');
    const theirs = await createMember(other);
    const response = await t.admin.post('/beneficiaries', body(theirs.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
    expect(idsOf(await other.get(`/beneficiaries?member=${theirs.id}`))).toEqual([]);
  });

  it("when an employer key names its own member, then 201; another employer's member, then 400 naming member", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(t.admin, { employer: employer.id });
    const foreign = await createMember(t.admin);
    expect((await client.post('/beneficiaries', body(own.id))).status).toBe(201);
    const response = await client.post('/beneficiaries', body(foreign.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });
});

describe('GET /beneficiaries', () => {
  it('when there is no API key, then 401 authentication_error', async () => {
    const response = await t.anonymous.get('/beneficiaries');
    expect(response.status).toBe(401);
    expect(response.body.type).toBe('authentication_error');
  });

  it('when the Authorization header lacks the Bearer prefix, then 401', async () => {
    const key = t.admin.key!;
    expect((await t.anonymous.get('/beneficiaries', { headers: { authorization: key } })).status).toBe(401);
    expect((await t.anonymous.get('/beneficiaries', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('when listed, then beneficiaries come newest first', async () => {
    const admin = await newProviderAdmin(t, 'ben-list');
    const member = await createMember(admin);
    const beneficiaries = await createInSequence(t, 3, (i) => createBeneficiary(admin, { member: member.id, full_name: `Heir ${i}` }));
    const list = await admin.get('/beneficiaries');
    expect(list.status).toBe(200);
    expect(list.body.previous).toBeNull();
    expect(list.body.next).toBeNull();
    expect(idsOf(list)).toEqual(beneficiaries.map((b) => b.id).reverse());
    expect(list.body.results[0]).toEqual(beneficiaries[2]);
  });

  it('when listed with ?member=, then only that member’s beneficiaries come', async () => {
    const admin = await newProviderAdmin(t, 'ben-filter');
    const [mine, theirs] = [await createMember(admin), await createMember(admin)];
    const beneficiaries = await createInSequence(t, 4, (i) => createBeneficiary(admin, { member: i % 2 === 0 ? mine.id : theirs.id }));
    expect(idsOf(await admin.get(`/beneficiaries?member=${mine.id}`))).toEqual([beneficiaries[2].id, beneficiaries[0].id]);
    expect(idsOf(await admin.get(`/beneficiaries?member=${theirs.id}`))).toEqual([beneficiaries[3].id, beneficiaries[1].id]);
    expect(idsOf(await admin.get('/beneficiaries?member=mem_doesnotexist'))).toEqual([]);
  });

  it('when paged with ?member=, then next and previous walk the member’s beneficiaries and keep the filter', async () => {
    const admin = await newProviderAdmin(t, 'ben-pages');
    const [member, other] = [await createMember(admin), await createMember(admin)];
    const beneficiaries = await createInSequence(t, 7, (i) => createBeneficiary(admin, { member: i === 3 ? other.id : member.id }));
    const expected = beneficiaries
      .filter((_, i) => i !== 3)
      .map((b) => b.id)
      .reverse();

    const first = await admin.get(`/beneficiaries?member=${member.id}&page_size=2`);
    expect(first.status).toBe(200);
    expect(first.body.previous).toBeNull();
    const pages = [first];
    while (pages.at(-1)!.body.next) {
      const next = pages.at(-1)!.body.next as string;
      const url = new URL(next);
      expect(url.searchParams.get('member')).toBe(member.id);
      expect(url.searchParams.get('page_size')).toBe('2');
      pages.push(await admin.get(next));
    }
    expect(pages.map((page) => idsOf(page).length)).toEqual([2, 2, 2]);
    expect(pages.flatMap((page) => idsOf(page))).toEqual(expected);

    const last = pages.at(-1)!;
    expect(new URL(last.body.previous).searchParams.get('member')).toBe(member.id);
    const back = await admin.get(last.body.previous);
    expect(idsOf(back)).toEqual(idsOf(pages[1]!));
    const backToFirst = await admin.get(back.body.previous);
    expect(idsOf(backToFirst)).toEqual(idsOf(first));
    expect(backToFirst.body.previous).toBeNull();
  });

  it('when page_size is out of bounds or the cursor is tampered with, then 400 invalid_request', async () => {
    for (const query of ['page_size=0', 'page_size=101', 'cursor=abc.def']) {
      const response = await t.admin.get(`/beneficiaries?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.type, query).toBe('invalid_request');
    }
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/beneficiaries?dependent=dep_x');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['dependent']);
  });
});

describe('PATCH /beneficiaries/{id}', () => {
  it('when patched, then only the given fields change and null clears optional ones', async () => {
    const beneficiary = await createBeneficiary(t.admin, { tin_last_four: '1234', address: address(), phone_number: '3125550100', dob: '1990-01-01' });
    const response = await t.admin.patch(`/beneficiaries/${beneficiary.id}`, {
      full_name: 'Alexandra Rivera',
      member_relationship: 'domestic_partner',
      tin_last_four: null,
      address: null,
      phone_number: null,
      dob: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...beneficiary,
      full_name: 'Alexandra Rivera',
      member_relationship: 'domestic_partner',
      tin_last_four: null,
      address: null,
      phone_number: null,
      dob: null,
    });
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).body).toEqual(response.body);
  });

  it('when one field is patched, then every other field stays', async () => {
    const beneficiary = await createBeneficiary(t.admin, { tin_last_four: '1234', address: address({ line2: 'Unit 5' }), dob: '1990-01-01' });
    const response = await t.admin.patch(`/beneficiaries/${beneficiary.id}`, { phone_number: '2125550199' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...beneficiary, phone_number: '2125550199' });
  });

  it('when the member is patched, then 400 naming it and the beneficiary keeps its member', async () => {
    const beneficiary = await createBeneficiary(t.admin);
    const other = await createMember(t.admin);
    const response = await t.admin.patch(`/beneficiaries/${beneficiary.id}`, { member: other.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).body.member).toBe(beneficiary.member);
  });

  it.each(['full_name', 'member_relationship'])('when %s is patched to null, then 400 naming it and nothing changes', async (field) => {
    const beneficiary = await createBeneficiary(t.admin);
    const response = await t.admin.patch(`/beneficiaries/${beneficiary.id}`, { [field]: null, phone_number: '911' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).body).toEqual(beneficiary);
  });

  it.each([
    ['a dob in the future', () => ({ dob: tomorrow() }), 'dob'],
    ['a tin_last_four of 3 digits', () => ({ tin_last_four: '123' }), 'tin_last_four'],
    ['a tin_last_four of 5 digits', () => ({ tin_last_four: '12345' }), 'tin_last_four'],
    ['a tin_last_four with letters', () => ({ tin_last_four: 'abcd' }), 'tin_last_four'],
    ['an unknown member_relationship', () => ({ member_relationship: 'civil_union' }), 'member_relationship'],
    ['a phone_number with letters', () => ({ phone_number: '312555CALL' }), 'phone_number'],
    ['metadata (beneficiaries have none)', () => ({ metadata: { a: '1' } }), 'metadata'],
  ])('when patched with %s, then 400 naming the field and nothing changes', async (_case, body, field) => {
    const beneficiary = await createBeneficiary(t.admin, { tin_last_four: '9876' });
    const response = await t.admin.patch(`/beneficiaries/${beneficiary.id}`, body());
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).body).toEqual(beneficiary);
  });
});

describe('DELETE /beneficiaries/{id}', () => {
  it('when a beneficiary is deleted, then 200 with the delete body and it is gone', async () => {
    const beneficiary = await createBeneficiary(t.admin);
    const sibling = await createBeneficiary(t.admin, { member: beneficiary.member });
    const response = await t.admin.delete(`/beneficiaries/${beneficiary.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: beneficiary.id, object: 'beneficiary', deleted: true });
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).status).toBe(404);
    expect((await t.admin.delete(`/beneficiaries/${beneficiary.id}`)).status).toBe(404);
    expect(idsOf(await t.admin.get(`/beneficiaries?member=${beneficiary.member}`))).toEqual([sibling.id]);
  });

  it('when the member is deleted, then their beneficiaries are gone too', async () => {
    const beneficiary = await createBeneficiary(t.admin);
    expect((await t.admin.delete(`/members/${beneficiary.member}`)).status).toBe(200);
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).status).toBe(404);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/beneficiaries/ben_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/beneficiaries/ben%20bad')).status).toBe(404);
    expect((await t.admin.patch('/beneficiaries/ben_doesnotexist', { full_name: 'x' })).status).toBe(404);
    expect((await t.admin.delete('/beneficiaries/ben_doesnotexist')).status).toBe(404);
  });
});

describe('beneficiary tenancy and roles', () => {
  it("when another provider addresses a beneficiary, then 404 on GET, PATCH and DELETE and it is absent from that provider's list", async () => {
    const other = await newProviderAdmin(t, 'ben-tenancy');
    await createBeneficiary(other);
    const beneficiary = await createBeneficiary(t.admin);
    expect((await other.get(`/beneficiaries/${beneficiary.id}`)).status).toBe(404);
    expect((await other.patch(`/beneficiaries/${beneficiary.id}`, { full_name: 'Mallory' })).status).toBe(404);
    expect((await other.delete(`/beneficiaries/${beneficiary.id}`)).status).toBe(404);
    expect(idsOf(await other.get('/beneficiaries?page_size=100'))).not.toContain(beneficiary.id);
    expect(idsOf(await other.get(`/beneficiaries?member=${beneficiary.member}`))).toEqual([]);
    expect((await t.admin.get(`/beneficiaries/${beneficiary.id}`)).body).toEqual(beneficiary);
  });

  it("when an employer key addresses another employer's beneficiary, then 404 and the list shows only its own", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createBeneficiary(t.admin, { member: (await createMember(t.admin, { employer: employer.id })).id });
    const foreign = await createBeneficiary(t.admin);
    expect((await client.get(`/beneficiaries/${foreign.id}`)).status).toBe(404);
    expect((await client.patch(`/beneficiaries/${foreign.id}`, { full_name: 'Mallory' })).status).toBe(404);
    expect((await client.delete(`/beneficiaries/${foreign.id}`)).status).toBe(404);
    expect(idsOf(await client.get('/beneficiaries?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/beneficiaries?member=${foreign.member}`))).toEqual([]);
    expect((await client.patch(`/beneficiaries/${own.id}`, { full_name: 'Own Heir' })).status).toBe(200);
    expect((await client.delete(`/beneficiaries/${own.id}`)).status).toBe(200);
    expect((await t.admin.get(`/beneficiaries/${foreign.id}`)).body).toEqual(foreign);
  });

  it('when a read_only key writes, then 403 on POST, PATCH and DELETE; reads succeed', async () => {
    const readOnly = await t.client('read_only');
    const beneficiary = await createBeneficiary(t.admin);
    const post = await readOnly.post('/beneficiaries', { member: beneficiary.member, full_name: 'A', member_relationship: 'child' });
    expect(post.status).toBe(403);
    expect(post.body.type).toBe('permission_error');
    expect((await readOnly.patch(`/beneficiaries/${beneficiary.id}`, { full_name: 'x' })).status).toBe(403);
    expect((await readOnly.delete(`/beneficiaries/${beneficiary.id}`)).status).toBe(403);
    expect((await readOnly.get(`/beneficiaries/${beneficiary.id}`)).body).toEqual(beneficiary);
    expect(idsOf(await readOnly.get(`/beneficiaries?member=${beneficiary.member}`))).toEqual([beneficiary.id]);
  });
});
