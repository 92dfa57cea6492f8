import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createEmployer } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['the key without the Bearer prefix', 'KEY'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['an unknown key', 'Bearer bk_live_0000000000000000000000000000000000000000'],
    ['a malformed key', 'Bearer not-a-key'],
  ])('when the request has %s, then 401 authentication_error', async (_case, header) => {
    const headers: Record<string, string> = {};
    if (header) headers.authorization = header.replace('KEY', t.admin.key!);
    const response = await t.anonymous.get('/employers', { headers });
    expect(response.status).toBe(401);
    expect(response.body.type).toBe('authentication_error');
    expect(response.body.request_id).toBeTruthy();
  });

  it('when the Bearer word is in another case, then the key is accepted', async () => {
    const response = await t.anonymous.get('/employers', { headers: { authorization: `bearer ${t.admin.key}` } });
    expect(response.status).toBe(200);
  });

  it('when a key is revoked, then it is refused at once', async () => {
    const created = await t.admin.post('/api_keys', { role: 'admin', name: 'short-lived' });
    expect(created.status).toBe(201);
    const client = new ApiClient(t.baseUrl, created.body.key);
    expect((await client.get('/employers')).status).toBe(200);
    const revoked = await t.admin.delete(`/api_keys/${created.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBeTruthy();
    expect((await client.get('/employers')).status).toBe(401);
    expect((await t.admin.delete(`/api_keys/${created.body.id}`)).status).toBe(409);
  });

  it('when a key is written to logs, then only the redacted form ever appears', async () => {
    const created = await t.admin.post('/api_keys', { role: 'read_only' });
    const client = new ApiClient(t.baseUrl, created.body.key);
    await client.get('/employers');
    await client.post('/employers', { legal_name: 'x' });
    const everything = t.logs.join('\n');
    expect(everything).not.toContain(created.body.key);
    expect(everything).not.toContain(t.admin.key!);
  });
});

describe('/api_keys', () => {
  it('when an admin creates a key, then the plain key is shown once and only its redacted form is listed', async () => {
    const created = await t.admin.post('/api_keys', { role: 'read_only', name: 'reporting' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^bk_live_[0-9A-Za-z]{32,}$/);
    expect(created.body).toMatchObject({ object: 'api_key', role: 'read_only', employer: null, name: 'reporting', revoked_at: null });
    const listed = await t.admin.get('/api_keys?page_size=100');
    const entry = listed.body.results.find((k: { id: string }) => k.id === created.body.id);
    expect(entry).toBeTruthy();
    expect(entry.key).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect(entry.redacted_key).toMatch(/^bk_live_\w{4}\.\.\.\w{4}$/);
  });

  it('when the key is stored, then the database holds a hash, never the key', async () => {
    const created = await t.admin.post('/api_keys', { role: 'admin' });
    const rows = await t.database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(created.body.key);
  });

  it('when an employer key is requested, then it needs an employer of the provider', async () => {
    expect((await t.admin.post('/api_keys', { role: 'employer' })).status).toBe(400);
    const missing = await t.admin.post('/api_keys', { role: 'employer', employer: 'er_doesnotexist' });
    expect(missing.status).toBe(400);
    expect(missing.body.input_errors[0].field).toBe('employer');
    const employer = await createEmployer(t.admin);
    const created = await t.admin.post('/api_keys', { role: 'employer', employer: employer.id });
    expect(created.status).toBe(201);
    expect(created.body.employer).toBe(employer.id);
    expect((await t.admin.post('/api_keys', { role: 'admin', employer: employer.id })).status).toBe(400);
    expect((await t.admin.post('/api_keys', { role: 'owner' })).status).toBe(400);
  });

  it('when a non-admin key manages keys, then 403', async () => {
    const employer = await createEmployer(t.admin);
    for (const client of [await t.client('read_only'), await t.client('employer', { employer: employer.id })]) {
      expect((await client.get('/api_keys')).status).toBe(403);
      expect((await client.post('/api_keys', { role: 'admin' })).status).toBe(403);
      expect((await client.delete('/api_keys/key_abc')).body.type).toBe('permission_error');
    }
  });

  it("when an admin revokes another provider's key, then 404", async () => {
    const other = await t.client('admin', { provider: 'other-provider' });
    const created = await other.post('/api_keys', { role: 'read_only' });
    expect((await t.admin.delete(`/api_keys/${created.body.id}`)).status).toBe(404);
    const mine = await t.admin.get('/api_keys?page_size=100');
    expect(mine.body.results.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
  });
});

describe('roles', () => {
  it('when a read-only key writes, then 403 permission_error; reads work', async () => {
    const readOnly = await t.client('read_only');
    const employer = await createEmployer(t.admin);
    expect((await readOnly.get(`/employers/${employer.id}`)).status).toBe(200);
    const refused = await readOnly.post('/employers', { legal_name: 'Nope', address: employer.address });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('permission_error');
    expect((await readOnly.patch(`/employers/${employer.id}`, { legal_name: 'x' })).status).toBe(403);
  });

  it('when an employer key reads employers, then it sees only its own', async () => {
    const mine = await createEmployer(t.admin, { legal_name: 'Mine Inc' });
    const theirs = await createEmployer(t.admin, { legal_name: 'Theirs Inc' });
    const client = await t.client('employer', { employer: mine.id });
    const list = await client.get('/employers');
    expect(list.body.results.map((e: { id: string }) => e.id)).toEqual([mine.id]);
    expect((await client.get(`/employers/${theirs.id}`)).status).toBe(404);
    expect((await client.patch(`/employers/${theirs.id}`, { trade_name: 'x' })).status).toBe(404);
    expect((await client.patch(`/employers/${mine.id}`, { trade_name: 'Mine' })).status).toBe(200);
    expect((await client.post('/employers', { legal_name: 'New', address: mine.address })).status).toBe(403);
  });

  it('when a read-only key is limited to an employer, then it sees only that employer', async () => {
    const mine = await createEmployer(t.admin);
    const theirs = await createEmployer(t.admin);
    const client = await t.client('read_only', { employer: mine.id });
    expect((await client.get(`/employers/${mine.id}`)).status).toBe(200);
    expect((await client.get(`/employers/${theirs.id}`)).status).toBe(404);
  });
});
