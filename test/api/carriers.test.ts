import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createCarrier, createEmployer } from '../helpers/factories.ts';
import { createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('/carriers', () => {
  it('when a carrier is created with every field, then 201 returns them all with a carr_ id', async () => {
    const body = { legal_name: 'Blue Cross Blue Shield of Illinois', trade_name: 'BCBS IL', logo_url: 'https://cdn.bcbsil.example/logo.png' };
    const response = await t.admin.post('/carriers', body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ ...body, id: expect.stringMatching(/^carr_[A-Za-z0-9]{20}$/), created_at: t.clock.now().toISOString() });
  });

  it('when a created carrier is fetched by id, then it equals the create response', async () => {
    const carrier = await createCarrier(t.admin, { logo_url: 'http://logos.example/aetna.svg' });
    const fetched = await t.admin.get(`/carriers/${carrier.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(carrier);
  });

  it('when optional fields are left out, then they read as null', async () => {
    const response = await t.admin.post('/carriers', { legal_name: 'Delta Dental' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ legal_name: 'Delta Dental', trade_name: null, logo_url: null });
  });

  it('when listed, then carriers come newest first', async () => {
    const admin = await newProviderAdmin(t, 'carrier-list');
    const carriers = await createInSequence(t, 3, (i) => createCarrier(admin, { legal_name: `Carrier ${i}` }));
    const list = await admin.get('/carriers');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(carriers.map((c) => c.id).reverse());
    expect(list.body).toMatchObject({ next: null, previous: null });
  });

  it('when listed with ?employer=, then 400 naming it (carriers are provider-wide and have no such filter)', async () => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.get(`/carriers?employer=${employer.id}`);
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
    expect(errorFields(response)).toEqual(['employer']);
  });

  it('when an unknown or malformed id is fetched, then 404', async () => {
    expect((await t.admin.get('/carriers/carr_doesnotexist')).status).toBe(404);
    expect((await t.admin.get('/carriers/not%20an%20id')).status).toBe(404);
    expect((await t.admin.patch('/carriers/carr_doesnotexist', { trade_name: 'x' })).status).toBe(404);
  });
});

describe('PATCH /carriers/{id}', () => {
  it('when patched, then only the given fields change and null clears an optional one', async () => {
    const carrier = await createCarrier(t.admin, { trade_name: 'Old Trade', logo_url: 'https://old.example/logo.png' });
    const response = await t.admin.patch(`/carriers/${carrier.id}`, { legal_name: 'New Legal Name Inc', trade_name: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...carrier, legal_name: 'New Legal Name Inc', trade_name: null });
    expect((await t.admin.get(`/carriers/${carrier.id}`)).body).toEqual(response.body);
  });

  it('when logo_url is patched to null, then it is cleared', async () => {
    const carrier = await createCarrier(t.admin, { logo_url: 'https://old.example/logo.png' });
    const response = await t.admin.patch(`/carriers/${carrier.id}`, { logo_url: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...carrier, logo_url: null });
  });

  it('when patched with an empty body, then nothing changes', async () => {
    const carrier = await createCarrier(t.admin, { logo_url: 'https://old.example/logo.png' });
    const response = await t.admin.patch(`/carriers/${carrier.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(carrier);
  });

  it('when legal_name is patched to null or "", then 400 naming it and nothing changes', async () => {
    const carrier = await createCarrier(t.admin);
    for (const legal_name of [null, '']) {
      const response = await t.admin.patch(`/carriers/${carrier.id}`, { legal_name, trade_name: 'changed' });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toContain('legal_name');
    }
    expect((await t.admin.get(`/carriers/${carrier.id}`)).body).toEqual(carrier);
  });
});

describe('carrier validation', () => {
  it('when created or patched with unknown fields, then 400 naming each of them', async () => {
    const created = await t.admin.post('/carriers', { legal_name: 'Cigna', name: 'Cigna', naic_code: '12345' });
    expect(created.status).toBe(400);
    expect(created.body.type).toBe('validation_error');
    expect(errorFields(created).sort()).toEqual(['naic_code', 'name']);
    const carrier = await createCarrier(t.admin);
    const patched = await t.admin.patch(`/carriers/${carrier.id}`, { tradename: 'typo' });
    expect(patched.status).toBe(400);
    expect(errorFields(patched)).toEqual(['tradename']);
  });

  it.each([
    ['no legal_name', { legal_name: undefined }, 'legal_name'],
    ['an empty legal_name', { legal_name: '' }, 'legal_name'],
    ['a legal_name over 255', { legal_name: 'x'.repeat(256) }, 'legal_name'],
    ['a trade_name over 255', { trade_name: 'x'.repeat(256) }, 'trade_name'],
    ['a number for trade_name', { trade_name: 7 }, 'trade_name'],
    ['a logo_url that is not a URL', { logo_url: 'not a url' }, 'logo_url'],
    ['a relative logo_url', { logo_url: '/images/logo.png' }, 'logo_url'],
    ['a protocol-relative logo_url', { logo_url: '//cdn.example/logo.png' }, 'logo_url'],
    ['an ftp logo_url', { logo_url: 'ftp://cdn.example/logo.png' }, 'logo_url'],
    ['a javascript: logo_url', { logo_url: 'javascript:alert(1)' }, 'logo_url'],
    ['a data: logo_url', { logo_url: 'data:image/png;base64,AAAA' }, 'logo_url'],
    ['a logo_url over 2048 characters', { logo_url: `https://cdn.example/${'a'.repeat(2048)}` }, 'logo_url'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const response = await t.admin.post('/carriers', { legal_name: 'Humana', ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toContain(field);
  });

  // An absolute URL names a host; these parse as URIs but no browser or HTTP client can fetch them.
  it.each(['https://', 'http://', 'https://?v=1', 'http://#logo', 'https://:443/logo.png'])(
    'when created with the host-less logo_url %j, then 400 naming logo_url',
    async (logo_url) => {
      const response = await t.admin.post('/carriers', { legal_name: 'Humana', logo_url });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['logo_url']);
    },
  );

  it('when a logo_url is patched to a relative URL, then 400 and the logo stays', async () => {
    const carrier = await createCarrier(t.admin, { logo_url: 'https://ok.example/logo.png' });
    const response = await t.admin.patch(`/carriers/${carrier.id}`, { logo_url: 'logo.png' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['logo_url']);
    expect((await t.admin.get(`/carriers/${carrier.id}`)).body.logo_url).toBe('https://ok.example/logo.png');
  });

  it('when names are exactly 255 characters and the logo an http URL with a query, then 201', async () => {
    const body = { legal_name: 'L'.repeat(255), trade_name: 'T'.repeat(255), logo_url: 'http://cdn.example:8080/logos/kp.png?v=2' };
    const response = await t.admin.post('/carriers', body);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject(body);
  });
});

describe('carrier roles', () => {
  it('when an employer-scoped key creates or patches a carrier, then 403 permission_error', async () => {
    const employer = await createEmployer(t.admin);
    const client = await t.client('employer', { employer: employer.id });
    const carrier = await createCarrier(t.admin);
    const created = await client.post('/carriers', { legal_name: 'Sneaky Carrier' });
    expect(created.status).toBe(403);
    expect(created.body.type).toBe('permission_error');
    const patched = await client.patch(`/carriers/${carrier.id}`, { legal_name: 'Renamed' });
    expect(patched.status).toBe(403);
    expect(patched.body.type).toBe('permission_error');
    expect((await t.admin.get(`/carriers/${carrier.id}`)).body).toEqual(carrier);
  });

  it('when a read-only key creates or patches a carrier, then 403 permission_error', async () => {
    const client = await t.client('read_only');
    const carrier = await createCarrier(t.admin);
    expect((await client.post('/carriers', { legal_name: 'Nope' })).status).toBe(403);
    const patched = await client.patch(`/carriers/${carrier.id}`, { legal_name: 'Nope' });
    expect(patched.status).toBe(403);
    expect(patched.body.type).toBe('permission_error');
  });

  it('when an employer-scoped key reads carriers, then it sees every carrier of its provider', async () => {
    const admin = await newProviderAdmin(t, 'carrier-reader');
    const employer = await createEmployer(admin);
    const carriers = await createInSequence(t, 2, (i) => createCarrier(admin, { legal_name: `Carrier ${i}` }));
    const created = await admin.post('/api_keys', { role: 'employer', employer: employer.id });
    const client = new ApiClient(t.baseUrl, created.body.key);
    const list = await client.get('/carriers');
    expect(list.status).toBe(200);
    expect(idsOf(list)).toEqual(carriers.map((c) => c.id).reverse());
    const fetched = await client.get(`/carriers/${carriers[0].id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(carriers[0]);
  });

  it('when a read-only key limited to an employer reads carriers, then it sees them', async () => {
    const employer = await createEmployer(t.admin);
    const carrier = await createCarrier(t.admin);
    const client = await t.client('read_only', { employer: employer.id });
    expect((await client.get(`/carriers/${carrier.id}`)).body).toEqual(carrier);
    expect(idsOf(await client.get('/carriers?page_size=100'))).toContain(carrier.id);
  });
});
