import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_RELATIONSHIPS } from '../../src/modules/plans/coverage-tier.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createEmployer, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { createDependent, insertDependentCoverage, insertDependentWaiver } from '../helpers/people-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const today = () => t.clock.now().toISOString().slice(0, 10);

async function enrolledDependentRows(dependentId: string) {
  return t.database.db.selectFrom('enrolled_dependents').select(['id', 'enrolled_plan_id']).where('dependent_id', '=', dependentId).execute();
}

describe('POST /dependents', () => {
  it('when a dependent is created with every field, then 201 returns them all with a dep_ id', async () => {
    const member = await createMember(t.admin);
    const body = {
      member: member.id,
      first_name: 'Maya',
      middle_name: 'Lee',
      last_name: 'Rivera',
      member_relationship: 'spouse',
      ssn_last_four: '0427',
      dob: '1990-09-30',
      biological_sex: 'female',
      address: address({ line2: 'Apt 4' }),
      has_disability: true,
      disability_certified_on: '2026-02-01',
      metadata: { hris_id: 'D-77' },
    };
    const response = await t.admin.post('/dependents', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ...body,
      relationship_end_date: null,
      id: expect.stringMatching(/^dep_[A-Za-z0-9]{20}$/),
      enrolled_plans: [],
      // One year of certification (coverage-rules/eligibility: disabilityCertifiedThrough).
      disability_certification_expires_on: '2027-01-31',
      created_at: t.clock.now().toISOString(),
    });
    expect((await t.admin.get(`/dependents/${response.body.id}`)).body).toEqual(response.body);
  });

  it('when optional fields are left out, then they read as null, has_disability as false and metadata as {}', async () => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/dependents', {
      member: member.id,
      first_name: 'Sam',
      last_name: 'Rivera',
      member_relationship: 'child',
      dob: '2015-06-01',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.id,
      member: member.id,
      first_name: 'Sam',
      middle_name: null,
      last_name: 'Rivera',
      member_relationship: 'child',
      relationship_end_date: null,
      ssn_last_four: null,
      dob: '2015-06-01',
      biological_sex: null,
      address: null,
      enrolled_plans: [],
      has_disability: false,
      disability_certified_on: null,
      disability_certification_expires_on: null,
      metadata: {},
      created_at: t.clock.now().toISOString(),
    });
  });

  it('when optional fields are sent as null, then they read as null', async () => {
    const dependent = await createDependent(t.admin, { middle_name: null, ssn_last_four: null, biological_sex: null, address: null });
    expect(dependent).toMatchObject({ middle_name: null, ssn_last_four: null, biological_sex: null, address: null });
  });

  it('when created, then the employer is copied from the member', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const dependent = await createDependent(t.admin, { member: member.id });
    const row = await t.database.db.selectFrom('dependents').select(['employer_id', 'member_id']).where('id', '=', dependent.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ employer_id: employer.id, member_id: member.id });
  });

  it.each(DEPENDENT_RELATIONSHIPS)('when member_relationship is %s, then 201', async (relationship) => {
    const dependent = await createDependent(t.admin, { member_relationship: relationship });
    expect(dependent.member_relationship).toBe(relationship);
  });

  it.each(['male', 'female'])('when biological_sex is %s, then 201', async (sex) => {
    expect((await createDependent(t.admin, { biological_sex: sex })).biological_sex).toBe(sex);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/dependents', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['dob', 'first_name', 'last_name', 'member', 'member_relationship']);
  });

  it.each([
    ['an unknown member_relationship', { member_relationship: 'cousin' }, ['member_relationship']],
    ['a beneficiary-only relationship', { member_relationship: 'estate' }, ['member_relationship']],
    ['an unknown biological_sex', { biological_sex: 'other' }, ['biological_sex']],
    ['an empty first_name', { first_name: '' }, ['first_name']],
    ['a first_name over 255', { first_name: 'x'.repeat(256) }, ['first_name']],
    ['an empty last_name', { last_name: '' }, ['last_name']],
    ['a last_name over 255', { last_name: 'x'.repeat(256) }, ['last_name']],
    ['a middle_name over 255', { middle_name: 'x'.repeat(256) }, ['middle_name']],
    ['an ssn_last_four of 3 digits', { ssn_last_four: '123' }, ['ssn_last_four']],
    ['an ssn_last_four of 5 digits', { ssn_last_four: '12345' }, ['ssn_last_four']],
    ['an ssn_last_four with a letter', { ssn_last_four: '12a4' }, ['ssn_last_four']],
    ['an ssn_last_four with a dash', { ssn_last_four: '-123' }, ['ssn_last_four']],
    ['a full SSN as ssn_last_four', { ssn_last_four: '123456789' }, ['ssn_last_four']],
    ['an ssn_last_four as a number', { ssn_last_four: 1234 }, ['ssn_last_four']],
    ['a dob that is not a calendar date', { dob: '2015-02-30' }, ['dob']],
    ['a dob in another format', { dob: '06/01/2015' }, ['dob']],
    ['a string for has_disability', { has_disability: 'yes' }, ['has_disability']],
    ['null for has_disability', { has_disability: null }, ['has_disability']],
    ['an address outside the states', { address: address({ state: 'PR' }) }, ['state']],
    ['an address without line1', { address: address({ line1: undefined }) }, ['line1']],
    ['metadata that is an array', { metadata: ['a'] }, ['metadata']],
    ['unknown fields', { nickname: 'Sammy', tin: '123456789' }, ['nickname', 'tin']],
    ['enrolled_plans (read-only)', { enrolled_plans: [] }, ['enrolled_plans']],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, fields) => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/dependents', {
      member: member.id,
      first_name: 'Sam',
      last_name: 'Rivera',
      member_relationship: 'child',
      dob: '2015-06-01',
      ...overrides,
    });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual(fields);
  });

  it('when names are exactly 255 characters, then 201', async () => {
    const dependent = await createDependent(t.admin, { first_name: 'F'.repeat(255), middle_name: 'M'.repeat(255), last_name: 'L'.repeat(255) });
    expect(dependent).toMatchObject({ first_name: 'F'.repeat(255), middle_name: 'M'.repeat(255), last_name: 'L'.repeat(255) });
  });

  it('when the dob is today, then 201; tomorrow, then 400 naming dob', async () => {
    expect((await createDependent(t.admin, { dob: today() })).dob).toBe(today());
    const member = await createMember(t.admin);
    const tomorrow = new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    const response = await t.admin.post('/dependents', { member: member.id, first_name: 'A', last_name: 'B', member_relationship: 'child', dob: tomorrow });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['dob']);
    expect(idsOf(await t.admin.get(`/dependents?member=${member.id}`))).toEqual([]);
  });

  it('when ssn_last_four has leading zeros, then they are kept', async () => {
    expect((await createDependent(t.admin, { ssn_last_four: '0007' })).ssn_last_four).toBe('0007');
  });
});

describe("a dependent's whole SSN", () => {
  it('when ssn is given, then it is stored encrypted, never returned, and sets ssn_last_four; a last four that disagrees is 400', async () => {
    const member = await createMember(t.admin);
    const created = await createDependent(t.admin, { member: member.id, ssn: '123450987' });
    expect(created.ssn_last_four).toBe('0987');
    expect(JSON.stringify(created)).not.toContain('123450987');
    expect(JSON.stringify(await t.admin.get(`/dependents/${created.id}`).then((r) => r.body))).not.toContain('123450987');
    const stored = await t.database.db
      .selectFrom('dependents')
      .select(['ssn_encrypted', 'ssn_last_four'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(stored.ssn_encrypted).toMatch(/^v1\./);
    expect(stored.ssn_encrypted).not.toContain('123450987');

    const mismatch = await t.admin.patch(`/dependents/${created.id}`, { ssn: '123451111', ssn_last_four: '2222' });
    expect(mismatch.status).toBe(400);
    expect(errorFields(mismatch)).toEqual(['ssn_last_four']);

    // A different last four alone: the stored whole number no longer matches, so it is dropped.
    await t.admin.patch(`/dependents/${created.id}`, { ssn_last_four: '5555' });
    const after = await t.database.db
      .selectFrom('dependents')
      .select(['ssn_encrypted', 'ssn_last_four'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ ssn_encrypted: null, ssn_last_four: '5555' });
  });
});

describe("a dependent's SSN follows the SSA's rules (shared/ssn.ts)", () => {
  it.each([
    ['12345', 400],
    ['000451234', 400],
    ['666451234', 400],
    ['900451234', 400],
    ['123001234', 400],
    ['123450000', 400],
    ['899451234', 201],
    ['123010001', 201],
  ])('when ssn is %s, then %i (a 400 names ssn and never repeats the number)', async (ssn, status) => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/dependents', {
      member: member.id,
      first_name: 'A',
      last_name: 'B',
      member_relationship: 'child',
      dob: '2015-01-01',
      ssn,
    });
    expect(response.status, response.text).toBe(status);
    if (status === 201) return;
    expect(errorFields(response)).toEqual(['ssn']);
    expect(response.text).not.toContain(ssn);
    const dependent = await createDependent(t.admin, { member: member.id });
    const patched = await t.admin.patch(`/dependents/${dependent.id}`, { ssn });
    expect(patched.status).toBe(400);
    expect(errorFields(patched)).toEqual(['ssn']);
  });
});

describe('dependent references', () => {
  const body = (member: string) => ({ member, first_name: 'Sam', last_name: 'Rivera', member_relationship: 'child', dob: '2015-06-01' });

  it('when the member does not exist, then 400 naming member', async () => {
    const response = await t.admin.post('/dependents', body('mem_doesnotexist'));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['member']);
  });

  it("when the member is another provider's, then 400 naming member and nothing is created", async () => {
    const other = await newProviderAdmin(t, 'dep-refs');
    const theirs = await createMember(other);
    const response = await t.admin.post('/dependents', body(theirs.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
    expect(idsOf(await other.get(`/dependents?member=${theirs.id}`))).toEqual([]);
  });

  it("when an employer key names its own member, then 201; another employer's member, then 400 naming member", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(t.admin, { employer: employer.id });
    const foreign = await createMember(t.admin);
    expect((await client.post('/dependents', body(own.id))).status).toBe(201);
    const response = await client.post('/dependents', body(foreign.id));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
  });
});

describe('GET /dependents', () => {
  it('when listed, then dependents come newest first', async () => {
    const admin = await newProviderAdmin(t, 'dep-list');
    const member = await createMember(admin);
    const dependents = await createInSequence(t, 3, (i) => createDependent(admin, { member: member.id, first_name: `Child ${i}` }));
    const list = await admin.get('/dependents');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(dependents.map((d) => d.id).reverse());
    expect(list.body.results[0]).toEqual(dependents[2]);
  });

  it('when listed with ?member=, then only that member’s dependents come, newest first', async () => {
    const admin = await newProviderAdmin(t, 'dep-filter');
    const [mine, theirs] = [await createMember(admin), await createMember(admin)];
    const dependents = await createInSequence(t, 4, (i) => createDependent(admin, { member: i % 2 === 0 ? mine.id : theirs.id }));
    expect(idsOf(await admin.get(`/dependents?member=${mine.id}`))).toEqual([dependents[2].id, dependents[0].id]);
    expect(idsOf(await admin.get(`/dependents?member=${theirs.id}`))).toEqual([dependents[3].id, dependents[1].id]);
    expect(idsOf(await admin.get('/dependents?member=mem_doesnotexist'))).toEqual([]);
  });

  it('when paged, then next walks through every dependent once, in order', async () => {
    const admin = await newProviderAdmin(t, 'dep-pages');
    const member = await createMember(admin);
    const dependents = await createInSequence(t, 5, () => createDependent(admin, { member: member.id }));
    const first = await admin.get(`/dependents?member=${member.id}&page_size=2`);
    const second = await admin.get(first.body.next);
    const third = await admin.get(second.body.next);
    expect([...idsOf(first), ...idsOf(second), ...idsOf(third)]).toEqual(dependents.map((d) => d.id).reverse());
    expect(third.body.next).toBeNull();
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/dependents?employer=er_x');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when a dependent is covered, then the list shows its enrolled plans like GET does', async () => {
    const admin = t.admin;
    const employer = await createEmployer(admin);
    const member = await createMember(admin, { employer: employer.id });
    const [covered, uncovered] = await createInSequence(t, 2, () => createDependent(admin, { member: member.id }));
    const { enrolledPlanId } = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [covered.id], status: 'pending' });
    const list = await admin.get(`/dependents?member=${member.id}`);
    const byId = Object.fromEntries(list.body.results.map((d: { id: string; enrolled_plans: string[] }) => [d.id, d.enrolled_plans]));
    expect(byId).toEqual({ [covered.id]: [enrolledPlanId], [uncovered.id]: [] });
  });
});

describe('GET /dependents/{id}', () => {
  it('when the dependent is covered by enrolled plans, then enrolled_plans lists them, oldest coverage first', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const dependent = await createDependent(t.admin, { member: member.id });
    const first = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id], status: 'synced' });
    t.clock.advance(1000);
    const second = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id], status: 'not_started' });
    const response = await t.admin.get(`/dependents/${dependent.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...dependent, enrolled_plans: [first.enrolledPlanId, second.enrolledPlanId] });
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/dependents/dep_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/dependents/dep%20bad')).status).toBe(404);
    expect((await t.admin.patch('/dependents/dep_doesnotexist', { first_name: 'x' })).status).toBe(404);
    expect((await t.admin.delete('/dependents/dep_doesnotexist')).status).toBe(404);
  });
});

describe('PATCH /dependents/{id}', () => {
  it('when patched, then only the given fields change and null clears optional ones', async () => {
    const dependent = await createDependent(t.admin, {
      middle_name: 'Lee',
      ssn_last_four: '1234',
      biological_sex: 'male',
      address: address(),
      has_disability: true,
    });
    const response = await t.admin.patch(`/dependents/${dependent.id}`, {
      first_name: 'Samuel',
      member_relationship: 'step_child',
      dob: '2014-01-31',
      middle_name: null,
      ssn_last_four: null,
      biological_sex: null,
      address: null,
      has_disability: false,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...dependent,
      first_name: 'Samuel',
      member_relationship: 'step_child',
      dob: '2014-01-31',
      middle_name: null,
      ssn_last_four: null,
      biological_sex: null,
      address: null,
      has_disability: false,
    });
    expect((await t.admin.get(`/dependents/${dependent.id}`)).body).toEqual(response.body);
  });

  it('when one field is patched, then every other field stays', async () => {
    const dependent = await createDependent(t.admin, { middle_name: 'Lee', address: address({ line2: 'Unit 2' }), metadata: { a: '1' } });
    const response = await t.admin.patch(`/dependents/${dependent.id}`, { last_name: 'Rivera-Cole' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...dependent, last_name: 'Rivera-Cole' });
  });

  it('when patched, then metadata is merged: overwrite, "" removes, absent keys stay', async () => {
    const dependent = await createDependent(t.admin, { metadata: { a: '1', b: '2', c: '3' } });
    const response = await t.admin.patch(`/dependents/${dependent.id}`, { metadata: { a: 'one', b: '', d: '4' } });
    expect(response.status).toBe(200);
    expect(response.body.metadata).toEqual({ a: 'one', c: '3', d: '4' });
  });

  it('when a covered dependent is patched, then enrolled_plans is still shown', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const dependent = await createDependent(t.admin, { member: member.id });
    const { enrolledPlanId } = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id], status: 'approved' });
    const response = await t.admin.patch(`/dependents/${dependent.id}`, { has_disability: true });
    expect(response.body.enrolled_plans).toEqual([enrolledPlanId]);
  });

  it('when the member is patched, then 400 naming it and the dependent keeps its member', async () => {
    const dependent = await createDependent(t.admin);
    const other = await createMember(t.admin);
    const response = await t.admin.patch(`/dependents/${dependent.id}`, { member: other.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['member']);
    expect((await t.admin.get(`/dependents/${dependent.id}`)).body.member).toBe(dependent.member);
  });

  it.each(['first_name', 'last_name', 'member_relationship', 'dob', 'has_disability'])(
    'when %s is patched to null, then 400 naming it and nothing changes',
    async (field) => {
      const dependent = await createDependent(t.admin);
      const response = await t.admin.patch(`/dependents/${dependent.id}`, { [field]: null, middle_name: 'changed' });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual([field]);
      expect((await t.admin.get(`/dependents/${dependent.id}`)).body).toEqual(dependent);
    },
  );

  it.each([
    ['a dob in the future', { dob: '2030-01-01' }, 'dob'],
    ['an ssn_last_four of 3 digits', { ssn_last_four: '123' }, 'ssn_last_four'],
    ['an ssn_last_four of 5 digits', { ssn_last_four: '12345' }, 'ssn_last_four'],
    ['an ssn_last_four with letters', { ssn_last_four: 'abcd' }, 'ssn_last_four'],
    ['an unknown member_relationship', { member_relationship: 'friend' }, 'member_relationship'],
    ['an unknown biological_sex', { biological_sex: 'x' }, 'biological_sex'],
    ['a middle_name over 255', { middle_name: 'x'.repeat(256) }, 'middle_name'],
    ['enrolled_plans (read-only)', { enrolled_plans: ['ep_x'] }, 'enrolled_plans'],
    ['created_at (read-only)', { created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
  ])('when patched with %s, then 400 naming the field and nothing changes', async (_case, body, field) => {
    const dependent = await createDependent(t.admin, { ssn_last_four: '9876' });
    const response = await t.admin.patch(`/dependents/${dependent.id}`, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/dependents/${dependent.id}`)).body).toEqual(dependent);
  });
});

describe('DELETE /dependents/{id}', () => {
  it('when a dependent without coverage is deleted, then 200 with the delete body and it is gone', async () => {
    const dependent = await createDependent(t.admin);
    const response = await t.admin.delete(`/dependents/${dependent.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: dependent.id, object: 'dependent', deleted: true });
    expect((await t.admin.get(`/dependents/${dependent.id}`)).status).toBe(404);
    expect(idsOf(await t.admin.get(`/dependents?member=${dependent.member}`))).toEqual([]);
    expect((await t.admin.delete(`/dependents/${dependent.id}`)).status).toBe(404);
    expect((await t.admin.patch(`/dependents/${dependent.id}`, { first_name: 'x' })).status).toBe(404);
  });

  it.each(['not_started', 'pending', 'cancelled'] as const)(
    'when the dependent is covered only in a %s enrollment, then it is deleted and removed from that enrollment, which stays',
    async (status) => {
      const employer = await createEmployer(t.admin);
      const member = await createMember(t.admin, { employer: employer.id });
      const [dependent, sibling] = [await createDependent(t.admin, { member: member.id }), await createDependent(t.admin, { member: member.id })];
      const coverage = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id, sibling.id], status });
      const response = await t.admin.delete(`/dependents/${dependent.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id: dependent.id, object: 'dependent', deleted: true });
      expect(await enrolledDependentRows(dependent.id)).toEqual([]);
      expect(await enrolledDependentRows(sibling.id)).toEqual([{ id: coverage.enrolledDependentIds[1], enrolled_plan_id: coverage.enrolledPlanId }]);
      const enrollment = await t.database.db.selectFrom('enrollments').select('status').where('id', '=', coverage.enrollmentId).executeTakeFirst();
      expect(enrollment).toEqual({ status });
      expect((await t.admin.get(`/dependents/${sibling.id}`)).body.enrolled_plans).toEqual([coverage.enrolledPlanId]);
    },
  );

  // A failed enrollment was approved and sent; a carrier rejected one of its changes, others may stand.
  it.each(['approved', 'synced', 'failed'] as const)(
    'when the dependent is covered in a %s enrollment, then 409 invalid_state pointing to a benefit change, and nothing changes',
    async (status) => {
      const employer = await createEmployer(t.admin);
      const member = await createMember(t.admin, { employer: employer.id });
      const dependent = await createDependent(t.admin, { member: member.id });
      const unsent = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id], status: 'not_started' });
      t.clock.advance(1000);
      const sent = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [dependent.id], status });
      const response = await t.admin.delete(`/dependents/${dependent.id}`);
      expect(response.status).toBe(409);
      expect(response.body.type).toBe('invalid_state');
      expect(response.body.message).toMatch(/carrier/);
      expect(response.body.message).toMatch(/enrollment/);
      expect(response.body.message).toMatch(/benefit change/);
      const fetched = await t.admin.get(`/dependents/${dependent.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body.enrolled_plans).toEqual([unsent.enrolledPlanId, sent.enrolledPlanId]);
      expect(await enrolledDependentRows(dependent.id)).toHaveLength(2);
    },
  );

  it('when the dependent waived coverage in an unsent enrollment, then the waiver goes with the dependent', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const dependent = await createDependent(t.admin, { member: member.id });
    const { enrollmentId } = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [], status: 'pending' });
    await insertDependentWaiver(t, { enrollmentId, member: member.id, dependent: dependent.id });
    expect((await t.admin.delete(`/dependents/${dependent.id}`)).status).toBe(200);
    expect(await t.database.db.selectFrom('coverage_waivers').select('id').where('enrollment_id', '=', enrollmentId).execute()).toEqual([]);
  });

  it('when the dependent waived coverage in an approved enrollment, then 409 and the dependent stays', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const dependent = await createDependent(t.admin, { member: member.id });
    const { enrollmentId } = await insertDependentCoverage(t, { member: member.id, employer: employer.id, dependents: [], status: 'approved' });
    await insertDependentWaiver(t, { enrollmentId, member: member.id, dependent: dependent.id });
    const response = await t.admin.delete(`/dependents/${dependent.id}`);
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('invalid_state');
    expect((await t.admin.get(`/dependents/${dependent.id}`)).status).toBe(200);
  });

  it('when dependents are created while their member is deleted, then each create is 201 or 400 and none outlives the member', async () => {
    const member = await createMember(t.admin);
    const body = { member: member.id, first_name: 'Sam', last_name: 'Rivera', member_relationship: 'child', dob: '2015-06-01' };
    const post = () => t.admin.post('/dependents', body);
    const responses = await Promise.all([post(), post(), post(), t.admin.delete(`/members/${member.id}`), post(), post(), post()]);
    const [deleted] = responses.splice(3, 1);
    const creates = responses;
    expect(deleted!.status).toBe(200);
    for (const create of creates) {
      expect([201, 400]).toContain(create.status);
      if (create.status === 400) expect(errorFields(create)).toEqual(['member']);
    }
    expect(await t.database.db.selectFrom('dependents').select('id').where('member_id', '=', member.id).execute()).toEqual([]);
  });

  it('when the member is deleted, then their dependents are gone too', async () => {
    const member = await createMember(t.admin);
    const dependent = await createDependent(t.admin, { member: member.id });
    expect((await t.admin.delete(`/members/${member.id}`)).status).toBe(200);
    expect((await t.admin.get(`/dependents/${dependent.id}`)).status).toBe(404);
  });
});

describe('dependent tenancy and roles', () => {
  it("when another provider addresses a dependent, then 404 on GET, PATCH and DELETE and it is absent from that provider's list", async () => {
    const other = await newProviderAdmin(t, 'dep-tenancy');
    await createDependent(other);
    const dependent = await createDependent(t.admin);
    expect((await other.get(`/dependents/${dependent.id}`)).status).toBe(404);
    expect((await other.patch(`/dependents/${dependent.id}`, { first_name: 'Mallory' })).status).toBe(404);
    expect((await other.delete(`/dependents/${dependent.id}`)).status).toBe(404);
    expect(idsOf(await other.get('/dependents?page_size=100'))).not.toContain(dependent.id);
    expect(idsOf(await other.get(`/dependents?member=${dependent.member}`))).toEqual([]);
    expect((await t.admin.get(`/dependents/${dependent.id}`)).body).toEqual(dependent);
  });

  it("when an employer key addresses another employer's dependent, then 404 and the list shows only its own", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createDependent(t.admin, { member: (await createMember(t.admin, { employer: employer.id })).id });
    const foreign = await createDependent(t.admin);
    expect((await client.get(`/dependents/${foreign.id}`)).status).toBe(404);
    expect((await client.patch(`/dependents/${foreign.id}`, { first_name: 'Mallory' })).status).toBe(404);
    expect((await client.delete(`/dependents/${foreign.id}`)).status).toBe(404);
    expect(idsOf(await client.get('/dependents?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/dependents?member=${foreign.member}`))).toEqual([]);
    expect((await client.get(`/dependents/${own.id}`)).body).toEqual(own);
    expect((await client.patch(`/dependents/${own.id}`, { first_name: 'Own' })).status).toBe(200);
    expect((await client.delete(`/dependents/${own.id}`)).status).toBe(200);
    expect((await t.admin.get(`/dependents/${foreign.id}`)).body).toEqual(foreign);
  });

  it('when a read_only key writes, then 403 on POST, PATCH and DELETE; reads succeed', async () => {
    const readOnly = await t.client('read_only');
    const dependent = await createDependent(t.admin);
    const post = await readOnly.post('/dependents', {
      member: dependent.member,
      first_name: 'A',
      last_name: 'B',
      member_relationship: 'child',
      dob: '2015-06-01',
    });
    expect(post.status).toBe(403);
    expect(post.body.type).toBe('permission_error');
    expect((await readOnly.patch(`/dependents/${dependent.id}`, { first_name: 'x' })).status).toBe(403);
    expect((await readOnly.delete(`/dependents/${dependent.id}`)).status).toBe(403);
    expect((await readOnly.get(`/dependents/${dependent.id}`)).body).toEqual(dependent);
    expect(idsOf(await t.admin.get(`/dependents?member=${dependent.member}`))).toEqual([dependent.id]);
  });

  it('when a read_only key of an employer reads, then it sees only that employer’s dependents', async () => {
    const employer = await createEmployer(t.admin);
    const readOnly = await t.client('read_only', { employer: employer.id });
    const own = await createDependent(t.admin, { member: (await createMember(t.admin, { employer: employer.id })).id });
    const foreign = await createDependent(t.admin);
    expect(idsOf(await readOnly.get('/dependents?page_size=100'))).toEqual([own.id]);
    expect((await readOnly.get(`/dependents/${foreign.id}`)).status).toBe(404);
  });

  it('when there is no API key, then 401', async () => {
    expect((await t.anonymous.get('/dependents')).status).toBe(401);
    expect((await t.anonymous.post('/dependents', {})).status).toBe(401);
  });
});
