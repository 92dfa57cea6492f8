import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createEmployer, createSubclass } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const CATEGORIES = ['department', 'location', 'employment_class', 'union', 'other'];

/** The ids of an employer's default subclasses of a category. */
async function defaultIds(employerId: string, category: string): Promise<string[]> {
  const list = await t.admin.get(`/subclasses?employer=${employerId}&page_size=100`);
  return list.body.results
    .filter((subclass: { is_default: boolean; category: string }) => subclass.is_default && subclass.category === category)
    .map((subclass: { id: string }) => subclass.id);
}

async function isDefault(id: string): Promise<boolean> {
  return (await t.admin.get(`/subclasses/${id}`)).body.is_default;
}

describe('/subclasses', () => {
  it('when a subclass is created with every field, then 201 returns them all with a sub_ id', async () => {
    const employer = await createEmployer(t.admin);
    const body = { category: 'location', name: 'Chicago Plant', employer: employer.id, is_default: true };
    const response = await t.admin.post('/subclasses', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^sub_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
  });

  it('when a created subclass is fetched by id, then it equals the create response', async () => {
    const subclass = await createSubclass(t.admin, { category: 'union', name: 'Local 150' });
    const fetched = await t.admin.get(`/subclasses/${subclass.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(subclass);
  });

  it('when is_default is left out, then it is false', async () => {
    const subclass = await createSubclass(t.admin);
    expect(subclass.is_default).toBe(false);
  });

  it.each(CATEGORIES)('when the category is %s, then it is accepted on create and patch', async (category) => {
    const subclass = await createSubclass(t.admin, { category, name: `A ${category}` });
    expect(subclass.category).toBe(category);
    const other = await createSubclass(t.admin, { category: category === 'other' ? 'department' : 'other' });
    const patched = await t.admin.patch(`/subclasses/${other.id}`, { category });
    expect(patched.status).toBe(200);
    expect(patched.body.category).toBe(category);
  });

  it.each(['team', 'Department', 'employment-class', 'unions', ''])('when the category is %j, then 400 naming it on create and patch', async (category) => {
    const employer = await createEmployer(t.admin);
    const created = await t.admin.post('/subclasses', { category, name: 'X', employer: employer.id });
    expect(created.status).toBe(400);
    expect(created.body.type).toBe('validation_error');
    expect(errorFields(created)).toEqual(['category']);
    const subclass = await createSubclass(t.admin, { employer: employer.id });
    const patched = await t.admin.patch(`/subclasses/${subclass.id}`, { category });
    expect(patched.status).toBe(400);
    expect(errorFields(patched)).toEqual(['category']);
  });

  it('when an unknown or malformed id is addressed, then 404', async () => {
    expect((await t.admin.get('/subclasses/sub_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/subclasses/sub%20bad')).status).toBe(404);
    expect((await t.admin.patch('/subclasses/sub_doesnotexist', { name: 'x' })).status).toBe(404);
  });
});

describe('GET /subclasses', () => {
  it('when listed, then subclasses come newest first', async () => {
    const admin = await newProviderAdmin(t, 'subclass-list');
    const employer = await createEmployer(admin);
    const subclasses = await createInSequence(t, 3, (i) => createSubclass(admin, { employer: employer.id, name: `Team ${i}` }));
    const list = await admin.get('/subclasses');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(subclasses.map((s) => s.id).reverse());
    expect(list.body.results[0]).toEqual(subclasses[2]);
  });

  it('when listed with ?employer=, then only that employer’s subclasses come, newest first', async () => {
    const admin = await newProviderAdmin(t, 'subclass-filter');
    const [mine, theirs] = [await createEmployer(admin), await createEmployer(admin)];
    const subclasses = await createInSequence(t, 4, (i) => createSubclass(admin, { employer: i % 2 === 0 ? mine.id : theirs.id }));
    expect(idsOf(await admin.get(`/subclasses?employer=${mine.id}`))).toEqual([subclasses[2].id, subclasses[0].id]);
    expect(idsOf(await admin.get(`/subclasses?employer=${theirs.id}`))).toEqual([subclasses[3].id, subclasses[1].id]);
    expect(idsOf(await admin.get('/subclasses?employer=er_doesnotexist'))).toEqual([]);
  });

  it('when an employer-scoped key lists, then the filter is combined with its scope', async () => {
    const { employer: mine, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const own = await createSubclass(t.admin, { employer: mine.id });
    await createSubclass(t.admin, { employer: other.id });
    expect(idsOf(await client.get('/subclasses?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/subclasses?employer=${mine.id}`))).toEqual([own.id]);
    const filtered = await client.get(`/subclasses?employer=${other.id}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.results).toEqual([]);
  });

  it('when listed with an unknown query parameter, then 400 invalid_request naming it', async () => {
    const response = await t.admin.get('/subclasses?category=department');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['category']);
  });
});

describe('PATCH /subclasses/{id}', () => {
  it('when patched, then only the given fields change', async () => {
    const subclass = await createSubclass(t.admin, { name: 'Engineering', category: 'department' });
    const response = await t.admin.patch(`/subclasses/${subclass.id}`, { name: 'Platform Engineering' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...subclass, name: 'Platform Engineering' });
    expect((await t.admin.get(`/subclasses/${subclass.id}`)).body).toEqual(response.body);
  });

  it('when patched with an empty body, then nothing changes', async () => {
    const subclass = await createSubclass(t.admin, { is_default: true });
    const response = await t.admin.patch(`/subclasses/${subclass.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(subclass);
  });

  it.each(['category', 'name', 'is_default'])('when %s is patched to null, then 400 naming it and nothing changes', async (field) => {
    const subclass = await createSubclass(t.admin);
    const response = await t.admin.patch(`/subclasses/${subclass.id}`, { [field]: null });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await t.admin.get(`/subclasses/${subclass.id}`)).body).toEqual(subclass);
  });

  it('when the employer is patched, then 400 naming it and the subclass keeps its employer', async () => {
    const subclass = await createSubclass(t.admin);
    const other = await createEmployer(t.admin);
    const response = await t.admin.patch(`/subclasses/${subclass.id}`, { employer: other.id, name: 'Moved' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
    expect((await t.admin.get(`/subclasses/${subclass.id}`)).body).toEqual(subclass);
  });
});

describe('subclass validation', () => {
  it('when created or patched with unknown fields, then 400 naming each of them', async () => {
    const employer = await createEmployer(t.admin);
    const created = await t.admin.post('/subclasses', { category: 'department', name: 'X', employer: employer.id, code: 'D1', default: true });
    expect(created.status).toBe(400);
    expect(errorFields(created).sort()).toEqual(['code', 'default']);
    const subclass = await createSubclass(t.admin, { employer: employer.id });
    const patched = await t.admin.patch(`/subclasses/${subclass.id}`, { title: 'X' });
    expect(patched.status).toBe(400);
    expect(errorFields(patched)).toEqual(['title']);
  });

  it('when created without its required fields, then 400 naming every one', async () => {
    const response = await t.admin.post('/subclasses', {});
    expect(response.status).toBe(400);
    expect(errorFields(response).sort()).toEqual(['category', 'employer', 'name']);
  });

  it.each([
    ['an empty name', { name: '' }, 'name'],
    ['a name over 255', { name: 'n'.repeat(256) }, 'name'],
    ['a number for name', { name: 42 }, 'name'],
    ['a string for is_default', { is_default: 'yes' }, 'is_default'],
    ['a malformed employer id', { employer: 'er bad' }, 'employer'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/subclasses', { category: 'department', name: 'X', employer: employer.id, ...overrides });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain(field);
  });

  it('when the name is exactly 255 characters, then 201', async () => {
    const subclass = await createSubclass(t.admin, { name: 'n'.repeat(255) });
    expect(subclass.name).toHaveLength(255);
  });
});

describe('subclass references', () => {
  it('when the employer does not exist, then 400 with employer in input_errors', async () => {
    const response = await t.admin.post('/subclasses', { category: 'department', name: 'X', employer: 'er_doesnotexist' });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when the employer belongs to another provider, then 400 with employer in input_errors', async () => {
    const other = await newProviderAdmin(t, 'subclass-refs');
    const theirs = await createEmployer(other);
    const response = await t.admin.post('/subclasses', { category: 'department', name: 'X', employer: theirs.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['employer']);
    expect(idsOf(await other.get(`/subclasses?employer=${theirs.id}`))).toEqual([]);
  });

  it('when an employer-scoped key creates a subclass for its own employer, then 201; for another, then 400 naming employer', async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    expect((await client.post('/subclasses', { category: 'location', name: 'HQ', employer: employer.id })).status).toBe(201);
    const foreign = await client.post('/subclasses', { category: 'location', name: 'HQ', employer: other.id });
    expect(foreign.status).toBe(400);
    expect(errorFields(foreign)).toEqual(['employer']);
  });
});

describe('is_default', () => {
  it('when a second default of the same employer and category is created, then the first is no longer default', async () => {
    const employer = await createEmployer(t.admin);
    const first = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    const second = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    expect(second.is_default).toBe(true);
    expect(await isDefault(first.id)).toBe(false);
    expect(await defaultIds(employer.id, 'department')).toEqual([second.id]);
  });

  it('when a subclass is patched to default, then the other default of its employer and category is cleared', async () => {
    const employer = await createEmployer(t.admin);
    const first = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    const second = await createSubclass(t.admin, { employer: employer.id, category: 'department' });
    const response = await t.admin.patch(`/subclasses/${second.id}`, { is_default: true });
    expect(response.status).toBe(200);
    expect(response.body.is_default).toBe(true);
    expect(await isDefault(first.id)).toBe(false);
    expect(await defaultIds(employer.id, 'department')).toEqual([second.id]);
  });

  it('when a default is set in one category, then defaults of other categories are unaffected', async () => {
    const employer = await createEmployer(t.admin);
    const location = await createSubclass(t.admin, { employer: employer.id, category: 'location', is_default: true });
    const union = await createSubclass(t.admin, { employer: employer.id, category: 'union', is_default: true });
    const department = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    expect(await defaultIds(employer.id, 'location')).toEqual([location.id]);
    expect(await defaultIds(employer.id, 'union')).toEqual([union.id]);
    expect(await defaultIds(employer.id, 'department')).toEqual([department.id]);
  });

  it("when another employer's subclass becomes default, then this employer's default is unaffected", async () => {
    const [mine, theirs] = [await createEmployer(t.admin), await createEmployer(t.admin)];
    const myDefault = await createSubclass(t.admin, { employer: mine.id, category: 'department', is_default: true });
    const theirs1 = await createSubclass(t.admin, { employer: theirs.id, category: 'department', is_default: true });
    const theirs2 = await createSubclass(t.admin, { employer: theirs.id, category: 'department' });
    await t.admin.patch(`/subclasses/${theirs2.id}`, { is_default: true });
    expect(await defaultIds(mine.id, 'department')).toEqual([myDefault.id]);
    expect(await defaultIds(theirs.id, 'department')).toEqual([theirs2.id]);
    expect(await isDefault(theirs1.id)).toBe(false);
  });

  it('when the default is patched to not default, then the category has none', async () => {
    const employer = await createEmployer(t.admin);
    const subclass = await createSubclass(t.admin, { employer: employer.id, is_default: true });
    expect((await t.admin.patch(`/subclasses/${subclass.id}`, { is_default: false })).body.is_default).toBe(false);
    expect(await defaultIds(employer.id, 'department')).toEqual([]);
  });

  it("when a default subclass moves to another category, then it becomes that category's only default", async () => {
    const employer = await createEmployer(t.admin);
    const departmentDefault = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    const locationDefault = await createSubclass(t.admin, { employer: employer.id, category: 'location', is_default: true });
    const response = await t.admin.patch(`/subclasses/${locationDefault.id}`, { category: 'department' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ category: 'department', is_default: true });
    expect(await isDefault(departmentDefault.id)).toBe(false);
    expect(await defaultIds(employer.id, 'department')).toEqual([locationDefault.id]);
    expect(await defaultIds(employer.id, 'location')).toEqual([]);
  });

  it('when a non-default subclass moves to another category, then that category keeps its default', async () => {
    const employer = await createEmployer(t.admin);
    const departmentDefault = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    const location = await createSubclass(t.admin, { employer: employer.id, category: 'location' });
    const response = await t.admin.patch(`/subclasses/${location.id}`, { category: 'department' });
    expect(response.body).toMatchObject({ category: 'department', is_default: false });
    expect(await defaultIds(employer.id, 'department')).toEqual([departmentDefault.id]);
  });

  it('when a subclass moves category and becomes default in one patch, then only the new category changes', async () => {
    const employer = await createEmployer(t.admin);
    const unionDefault = await createSubclass(t.admin, { employer: employer.id, category: 'union', is_default: true });
    const departmentDefault = await createSubclass(t.admin, { employer: employer.id, category: 'department', is_default: true });
    const moving = await createSubclass(t.admin, { employer: employer.id, category: 'department' });
    const response = await t.admin.patch(`/subclasses/${moving.id}`, { category: 'union', is_default: true });
    expect(response.body).toMatchObject({ category: 'union', is_default: true });
    expect(await defaultIds(employer.id, 'union')).toEqual([moving.id]);
    expect(await isDefault(unionDefault.id)).toBe(false);
    expect(await defaultIds(employer.id, 'department')).toEqual([departmentDefault.id]);
  });

  it('when several defaults of one category are made at once, then exactly one ends up default', async () => {
    const employer = await createEmployer(t.admin);
    const created = await Promise.all(
      Array.from({ length: 4 }, (_, i) => createSubclass(t.admin, { employer: employer.id, category: 'location', name: `Site ${i}`, is_default: true })),
    );
    expect(created.every((subclass) => subclass.is_default)).toBe(true);
    expect(await defaultIds(employer.id, 'location')).toHaveLength(1);
    const patched = await Promise.all(created.map((subclass) => t.admin.patch(`/subclasses/${subclass.id}`, { is_default: true })));
    expect(patched.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await defaultIds(employer.id, 'location')).toHaveLength(1);
  });
});
