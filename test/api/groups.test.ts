import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createCarrier, createEmployer, createGroup } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('/groups', () => {
  it('when a group is created with every field, then 201 returns them all with a grp_ id', async () => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const body = { group_number: 'G-000123-A', carrier: carrier.id, employer: employer.id, connection_method: 'edi', metadata: { carrier_plan_code: 'X1' } };
    const response = await t.admin.post('/groups', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^grp_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
  });

  it('when group metadata is patched, then it is merged', async () => {
    const group = await createGroup(t.admin, { metadata: { a: '1', b: '2' } });
    const response = await t.admin.patch(`/groups/${group.id}`, { metadata: { a: '', c: '3' } });
    expect(response.body.metadata).toEqual({ b: '2', c: '3' });
  });

  it('when a created group is fetched by id, then it equals the create response', async () => {
    const group = await createGroup(t.admin, { connection_method: 'api' });
    const fetched = await t.admin.get(`/groups/${group.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(group);
  });

  it('when connection_method is left out, then it is manual', async () => {
    const group = await createGroup(t.admin);
    expect(group.connection_method).toBe('manual');
  });

  it.each(['api', 'edi', 'manual'])('when connection_method is %s, then it is accepted on create and patch', async (method) => {
    const group = await createGroup(t.admin, { connection_method: method });
    expect(group.connection_method).toBe(method);
    const other = await createGroup(t.admin, { connection_method: method === 'manual' ? 'api' : 'manual' });
    const patched = await t.admin.patch(`/groups/${other.id}`, { connection_method: method });
    expect(patched.status).toBe(200);
    expect(patched.body.connection_method).toBe(method);
  });

  it.each(['ftp', 'EDI', 'Manual', '', 'sftp'])('when connection_method is %j, then 400 naming it on create and patch', async (method) => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const created = await t.admin.post('/groups', { group_number: 'G-1', carrier: carrier.id, employer: employer.id, connection_method: method });
    expect(created.status).toBe(400);
    expect(errorFields(created)).toEqual(['connection_method']);
    const group = await createGroup(t.admin, { employer: employer.id, carrier: carrier.id });
    const patched = await t.admin.patch(`/groups/${group.id}`, { connection_method: method });
    expect(patched.status).toBe(400);
    expect(errorFields(patched)).toEqual(['connection_method']);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/groups/grp_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/groups/grp%20bad!')).status).toBe(404);
    expect((await t.admin.patch('/groups/grp_doesnotexist', { group_number: 'x' })).status).toBe(404);
  });
});

describe('GET /groups', () => {
  it('when listed, then groups come newest first', async () => {
    const admin = await newProviderAdmin(t, 'group-list');
    const employer = await createEmployer(admin);
    const carrier = await createCarrier(admin);
    const groups = await createInSequence(t, 3, (i) => createGroup(admin, { employer: employer.id, carrier: carrier.id, group_number: `G-${i}` }));
    const list = await admin.get('/groups');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(groups.map((g) => g.id).reverse());
    expect(list.body.results[0]).toEqual(groups[2]);
  });

  it('when listed with ?employer=, then only that employer’s groups come, newest first', async () => {
    const admin = await newProviderAdmin(t, 'group-filter');
    const carrier = await createCarrier(admin);
    const [mine, theirs] = [await createEmployer(admin), await createEmployer(admin)];
    const groups = await createInSequence(t, 4, (i) => createGroup(admin, { employer: i % 2 === 0 ? mine.id : theirs.id, carrier: carrier.id }));
    const list = await admin.get(`/groups?employer=${mine.id}`);
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual([groups[2].id, groups[0].id]);
    expect(idsOf(await admin.get(`/groups?employer=${theirs.id}`))).toEqual([groups[3].id, groups[1].id]);
    expect(idsOf(await admin.get('/groups?employer=er_doesnotexist'))).toEqual([]);
  });

  it('when an employer-scoped key lists, then the filter is combined with its scope', async () => {
    const { employer: mine, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const own = await createGroup(t.admin, { employer: mine.id });
    await createGroup(t.admin, { employer: other.id });
    expect(idsOf(await client.get('/groups?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/groups?employer=${mine.id}`))).toEqual([own.id]);
    const filtered = await client.get(`/groups?employer=${other.id}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.results).toEqual([]);
  });

  it('when listed with an unknown query parameter or a malformed employer, then 400 invalid_request', async () => {
    const unknown = await t.admin.get('/groups?employer_id=er_x');
    expect(unknown.status).toBe(400);
    expect(unknown.body.type).toBe('invalid_request');
    expect(errorFields(unknown)).toEqual(['employer_id']);
    expect((await t.admin.get('/groups?employer=not%20an%20id')).status).toBe(400);
  });
});

describe('PATCH /groups/{id}', () => {
  it('when patched, then only the given fields change', async () => {
    const group = await createGroup(t.admin, { group_number: 'OLD-1', connection_method: 'manual' });
    const response = await t.admin.patch(`/groups/${group.id}`, { group_number: 'NEW-2' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...group, group_number: 'NEW-2' });
    expect((await t.admin.get(`/groups/${group.id}`)).body).toEqual(response.body);
  });

  it('when the carrier and connection method are patched, then they change and the employer stays', async () => {
    const group = await createGroup(t.admin);
    const carrier = await createCarrier(t.admin, { legal_name: 'UnitedHealthcare' });
    const response = await t.admin.patch(`/groups/${group.id}`, { carrier: carrier.id, connection_method: 'edi' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...group, carrier: carrier.id, connection_method: 'edi' });
  });

  it.each(['group_number', 'carrier', 'connection_method'])(
    'when %s is patched to null, then 400 naming it (required fields cannot be cleared)',
    async (field) => {
      const group = await createGroup(t.admin);
      const response = await t.admin.patch(`/groups/${group.id}`, { [field]: null });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual([field]);
      expect((await t.admin.get(`/groups/${group.id}`)).body).toEqual(group);
    },
  );

  it('when the employer is patched, then 400 naming it and the group keeps its employer', async () => {
    const group = await createGroup(t.admin);
    const other = await createEmployer(t.admin);
    for (const employer of [other.id, group.employer, null]) {
      const response = await t.admin.patch(`/groups/${group.id}`, { employer, group_number: 'MOVED' });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['employer']);
    }
    expect((await t.admin.get(`/groups/${group.id}`)).body).toEqual(group);
  });
});

describe('group validation', () => {
  it('when created with unknown fields, then 400 naming each of them', async () => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const response = await t.admin.post('/groups', {
      group_number: 'G-1',
      carrier: carrier.id,
      employer: employer.id,
      policy_number: 'P-1',
      connection: 'edi',
    });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response).sort()).toEqual(['connection', 'policy_number']);
  });

  it('when patched with unknown fields, then 400 naming them and nothing changes', async () => {
    const group = await createGroup(t.admin);
    const response = await t.admin.patch(`/groups/${group.id}`, { groupnumber: 'X', group_number: 'Y' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['groupnumber']);
    expect((await t.admin.get(`/groups/${group.id}`)).body).toEqual(group);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/groups', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['carrier', 'employer', 'group_number']);
  });

  it.each([
    ['an empty group_number', { group_number: '' }, 'group_number'],
    ['a group_number over 255', { group_number: 'g'.repeat(256) }, 'group_number'],
    ['a number for group_number', { group_number: 1001 }, 'group_number'],
    ['a malformed carrier id', { carrier: 'carr bad!' }, 'carrier'],
    ['a malformed employer id', { employer: 'er/../x' }, 'employer'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const response = await t.admin.post('/groups', { group_number: 'G-1', carrier: carrier.id, employer: employer.id, ...overrides });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain(field);
  });

  it('when group_number is exactly 255 characters, then 201', async () => {
    const group = await createGroup(t.admin, { group_number: 'g'.repeat(255) });
    expect(group.group_number).toHaveLength(255);
  });
});

describe('group references', () => {
  it('when the carrier does not exist, then 400 with carrier in input_errors', async () => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/groups', { group_number: 'G-1', carrier: 'carr_doesnotexist', employer: employer.id });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['carrier']);
  });

  it('when the employer does not exist, then 400 with employer in input_errors', async () => {
    const carrier = await createCarrier(t.admin);
    const response = await t.admin.post('/groups', { group_number: 'G-1', carrier: carrier.id, employer: 'er_doesnotexist' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when neither exists, then 400 naming both', async () => {
    const response = await t.admin.post('/groups', { group_number: 'G-1', carrier: 'carr_missing', employer: 'er_missing' });
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['carrier', 'employer']);
  });

  it('when the carrier or employer belongs to another provider, then 400 naming that field', async () => {
    const other = await newProviderAdmin(t, 'group-refs');
    const theirCarrier = await createCarrier(other);
    const theirEmployer = await createEmployer(other);
    const myCarrier = await createCarrier(t.admin);
    const myEmployer = await createEmployer(t.admin);
    const carrier = await t.admin.post('/groups', { group_number: 'G-1', carrier: theirCarrier.id, employer: myEmployer.id });
    expect(carrier.status).toBe(400);
    expect(errorFields(carrier)).toEqual(['carrier']);
    const employer = await t.admin.post('/groups', { group_number: 'G-1', carrier: myCarrier.id, employer: theirEmployer.id });
    expect(employer.status).toBe(400);
    expect(errorFields(employer)).toEqual(['employer']);
    expect(idsOf(await t.admin.get(`/groups?employer=${myEmployer.id}`))).toEqual([]);
  });

  it('when patched to a carrier that does not exist or belongs to another provider, then 400 naming carrier and nothing changes', async () => {
    const group = await createGroup(t.admin);
    const other = await newProviderAdmin(t, 'group-patch-refs');
    const theirCarrier = await createCarrier(other);
    for (const carrier of ['carr_doesnotexist', theirCarrier.id]) {
      const response = await t.admin.patch(`/groups/${group.id}`, { carrier, group_number: 'CHANGED' });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['carrier']);
    }
    expect((await t.admin.get(`/groups/${group.id}`)).body).toEqual(group);
  });

  it('when an employer-scoped key creates a group for its employer, then any carrier of the provider may be named', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const carrier = await createCarrier(t.admin);
    const response = await client.post('/groups', { group_number: 'G-77', carrier: carrier.id, employer: employer.id });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ carrier: carrier.id, employer: employer.id });
    const another = await createCarrier(t.admin);
    const patched = await client.patch(`/groups/${response.body.id}`, { carrier: another.id });
    expect(patched.status).toBe(200);
    expect(patched.body.carrier).toBe(another.id);
  });

  it('when an employer-scoped key creates a group for another employer, then 400 naming employer', async () => {
    const { client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const response = await client.post('/groups', { group_number: 'G-1', carrier: carrier.id, employer: other.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
    expect(idsOf(await t.admin.get(`/groups?employer=${other.id}`))).toEqual([]);
  });
});
