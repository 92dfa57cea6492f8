import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DEVELOPMENT_OUTBOUND_ENV, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createEmployer } from '../helpers/factories.ts';
import { errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { createEndpoint } from '../helpers/webhooks.ts';

// The service as deployed: OUTBOUND_ALLOW_LOOPBACK unset.
let t: TestContext;
// A development setup, where http:// to loopback is allowed.
let dev: TestContext;
beforeAll(async () => {
  t = await createTestApp();
  dev = await createTestApp({ env: DEVELOPMENT_OUTBOUND_ENV });
});
afterAll(async () => {
  await t.close();
  await dev.close();
});

const URL = 'https://hooks.integrator.example/benefits';

async function endpointEvents(context: TestContext, endpointId: string) {
  const rows = await context.database.db.selectFrom('events').selectAll().where('object_id', '=', endpointId).orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({ event_type: row.event_type, employer: row.employer_id, data: JSON.parse(row.data) as unknown }));
}

describe('POST /webhook_endpoints', () => {
  it('when an endpoint is created, then 201 returns it with a whsec_ secret, shown in this response only', async () => {
    const response = await t.admin.post('/webhook_endpoints', {
      url: URL,
      enabled_events: ['enrollment.approved', 'member.*'],
      description: 'Payroll sync',
      metadata: { team: 'payroll' },
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^whe_[0-9A-Za-z]{20}$/),
      object: 'webhook_endpoint',
      url: URL,
      description: 'Payroll sync',
      enabled_events: ['enrollment.approved', 'member.*'],
      disabled: false,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      metadata: { team: 'payroll' },
      created_at: t.clock.now().toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...endpoint } = response.body;
    expect((await t.admin.get(`/webhook_endpoints/${endpoint.id}`)).body).toEqual(endpoint);
    const list = await t.admin.get('/webhook_endpoints');
    expect(list.text).not.toContain(secret);
    expect(list.body.results.find((item: { id: string }) => item.id === endpoint.id)).toEqual(endpoint);
  });

  it('when an endpoint is stored, then its secret is encrypted at rest, never in plain text', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL });
    const row = await t.database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(endpoint.secret);
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(row.secret_ciphertext).toMatch(/^v1\./);
  });

  it('when optional fields are left out, then description is null, the endpoint is enabled and metadata is empty', async () => {
    const response = await t.admin.post('/webhook_endpoints', { url: URL, enabled_events: ['*'] });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ description: null, disabled: false, metadata: {}, enabled_events: ['*'] });
  });

  it('when created disabled, then it is disabled by the client (no reason) from that moment', async () => {
    const response = await t.admin.post('/webhook_endpoints', { url: URL, enabled_events: ['*'], disabled: true });
    expect(response.body).toMatchObject({ disabled: true, disabled_reason: null, disabled_at: t.clock.now().toISOString() });
  });

  it.each([
    ['http://hooks.integrator.example/x', 'https://'],
    ['http://127.0.0.1:8080/x', 'loopback'],
    ['https://localhost/x', 'loopback'],
    ['https://10.0.0.8/x', 'private address'],
    ['https://192.168.1.20/x', 'private address'],
    ['https://169.254.169.254/latest/meta-data/', 'link-local address'],
    ['https://[fd00::1]/x', 'private address'],
    ['https://[::ffff:10.0.0.1]/x', 'private address'],
    ['https://100.64.0.1/x', 'carrier-grade NAT'],
    ['https://0.0.0.0/x', 'unspecified'],
    ['https://user:secret@hooks.integrator.example/x', 'user name or password'],
    ['hooks.integrator.example/x', 'absolute URL'],
  ])('when the url is %s, then 400 at url (%s)', async (url, why) => {
    const response = await t.admin.post('/webhook_endpoints', { url, enabled_events: ['*'] });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['url']);
    expect(response.body.input_errors[0].message).toContain(why);
  });

  it('when development allows loopback, then http:// to loopback is accepted and http:// elsewhere or private addresses still are not', async () => {
    expect((await dev.admin.post('/webhook_endpoints', { url: 'http://127.0.0.1:4000/hooks', enabled_events: ['*'] })).status).toBe(201);
    expect((await dev.admin.post('/webhook_endpoints', { url: 'http://localhost:4000/hooks', enabled_events: ['*'] })).status).toBe(201);
    expect((await dev.admin.post('/webhook_endpoints', { url: 'http://hooks.integrator.example/x', enabled_events: ['*'] })).status).toBe(400);
    expect((await dev.admin.post('/webhook_endpoints', { url: 'https://10.1.2.3/x', enabled_events: ['*'] })).status).toBe(400);
  });

  it.each([
    [[], ['enabled_events']],
    [['*', 'member.created'], ['enabled_events']],
    [['members.*'], ['0']],
    [['member.approved'], ['0']],
    [['enrollment.approved', 'employer.created', 'widget.created'], ['2']],
    [['Member.created'], ['0']],
    [['member.created', 'member.created'], ['enabled_events']],
  ])('when enabled_events is %j, then 400 naming %j', async (enabledEvents, fields) => {
    const response = await t.admin.post('/webhook_endpoints', { url: URL, enabled_events: enabledEvents });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(fields);
  });

  it('when enabled_events names catalog types, object types with .* and webhook_endpoint.disabled, then they are accepted', async () => {
    const response = await t.admin.post('/webhook_endpoints', {
      url: URL,
      enabled_events: ['enrollment.approved', 'notification.*', 'webhook_endpoint.disabled'],
    });
    expect(response.status).toBe(201);
  });

  it('when url or enabled_events is missing, or a field is unknown, then 400 naming it', async () => {
    expect(errorFields(await t.admin.post('/webhook_endpoints', { enabled_events: ['*'] }))).toEqual(['url']);
    expect(errorFields(await t.admin.post('/webhook_endpoints', { url: URL }))).toEqual(['enabled_events']);
    expect(errorFields(await t.admin.post('/webhook_endpoints', { url: URL, enabled_events: ['*'], secret: 'whsec_mine' }))).toEqual(['secret']);
  });
});

describe('PATCH, DELETE and rotate_secret', () => {
  it('when endpoints of one provider are patched, rotated and deleted at the same time, then every request answers, none with a 5xx (no deadlock)', async () => {
    for (let round = 0; round < 5; round++) {
      const endpoints = await Promise.all(Array.from({ length: 4 }, () => createEndpoint(t.admin, { url: URL })));
      const responses = await Promise.all(
        endpoints.flatMap((endpoint) => [
          t.admin.patch(`/webhook_endpoints/${endpoint.id}`, { description: `round ${round}` }),
          t.admin.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`),
          t.admin.delete(`/webhook_endpoints/${endpoint.id}`),
        ]),
      );
      expect(responses.filter((response) => response.status >= 500).map((response) => response.text)).toEqual([]);
    }
  });

  it('when patched, then only the given fields change, metadata is merged and null clears the description', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL, description: 'old', metadata: { a: '1', b: '2' } });
    const { secret: _secret, ...before } = endpoint;
    const response = await t.admin.patch(`/webhook_endpoints/${endpoint.id}`, {
      url: 'https://other.integrator.example/hooks',
      enabled_events: ['carrier.*'],
      description: null,
      metadata: { a: '', c: '3' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...before,
      url: 'https://other.integrator.example/hooks',
      enabled_events: ['carrier.*'],
      description: null,
      metadata: { b: '2', c: '3' },
    });
    expect(response.text).not.toContain('whsec_');
    expect(errorFields(await t.admin.patch(`/webhook_endpoints/${endpoint.id}`, { url: 'https://10.0.0.1/' }))).toEqual(['url']);
  });

  it('when disabled and enabled again, then disabled_at is set and then cleared with the failure record', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL });
    const disabled = await t.admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ disabled: true, disabled_reason: null, disabled_at: t.clock.now().toISOString() });

    // As if the service had disabled it for failing.
    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ disabled_reason: 'failing', failing_since: '2026-02-20T00:00:00.000Z' })
      .where('id', '=', endpoint.id)
      .execute();
    const enabled = await t.admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: false });
    expect(enabled.body).toMatchObject({ disabled: false, disabled_reason: null, disabled_at: null, failing_since: null });
  });

  it('when the secret is rotated, then a new secret is returned once and the old one is kept, encrypted, for 24 hours', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL });
    const response = await t.admin.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(response.status).toBe(200);
    expect(response.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(response.body.secret).not.toBe(endpoint.secret);
    const { secret: _secret, ...rest } = response.body;
    expect((await t.admin.get(`/webhook_endpoints/${endpoint.id}`)).body).toEqual(rest);
    const row = await t.database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(row.previous_secret_expires_at).toBe(new Date(t.clock.now().getTime() + 24 * 3600 * 1000).toISOString());
    expect(JSON.stringify(row)).not.toContain(response.body.secret);
    expect(JSON.stringify(row)).not.toContain(endpoint.secret);
  });

  it('when deleted, then 200 with deleted: true, and it is gone', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL });
    const response = await t.admin.delete(`/webhook_endpoints/${endpoint.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    expect((await t.admin.get(`/webhook_endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await t.admin.delete(`/webhook_endpoints/${endpoint.id}`)).status).toBe(404);
  });

  it('when an endpoint is created, changed, rotated and deleted, then each records a webhook_endpoint event carrying its status only', async () => {
    const endpoint = await createEndpoint(t.admin, { url: URL });
    await t.admin.patch(`/webhook_endpoints/${endpoint.id}`, { disabled: true });
    await t.admin.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`);
    await t.admin.delete(`/webhook_endpoints/${endpoint.id}`);
    const events = await endpointEvents(t, endpoint.id);
    expect(events).toEqual([
      { event_type: 'webhook_endpoint.created', employer: null, data: { disabled: false, disabled_reason: null } },
      { event_type: 'webhook_endpoint.updated', employer: null, data: { disabled: true, disabled_reason: null } },
      { event_type: 'webhook_endpoint.updated', employer: null, data: { disabled: true, disabled_reason: null } },
      { event_type: 'webhook_endpoint.deleted', employer: null, data: { disabled: true, disabled_reason: null } },
    ]);
    expect(JSON.stringify(events)).not.toContain('hooks.integrator.example');
  });
});

describe('lists', () => {
  it('when listed, then endpoints come newest first, paginated', async () => {
    const admin = await newProviderAdmin(t, 'webhook-list');
    const created = [];
    for (let index = 0; index < 3; index++) {
      t.clock.advance(1000);
      created.push(await createEndpoint(admin, { url: `${URL}/${index}` }));
    }
    const first = await admin.get('/webhook_endpoints?page_size=2');
    expect(idsOf(first)).toEqual([created[2]!.id, created[1]!.id]);
    const second = await admin.get(first.body.next);
    expect(idsOf(second)).toEqual([created[0]!.id]);
    expect((await admin.get('/webhook_endpoints?status=failing')).status).toBe(400);
  });
});

describe('access', () => {
  let endpointId: string;
  let routes: [method: string, path: string, body?: unknown][];
  beforeAll(async () => {
    endpointId = (await createEndpoint(t.admin, { url: URL })).id;
    routes = [
      ['POST', '/webhook_endpoints', { url: URL, enabled_events: ['*'] }],
      ['GET', '/webhook_endpoints'],
      ['GET', `/webhook_endpoints/${endpointId}`],
      ['PATCH', `/webhook_endpoints/${endpointId}`, { description: 'x' }],
      ['DELETE', `/webhook_endpoints/${endpointId}`],
      ['POST', `/webhook_endpoints/${endpointId}/rotate_secret`],
      ['GET', `/webhook_endpoints/${endpointId}/deliveries`],
      ['POST', `/webhook_endpoints/${endpointId}/deliveries/whd_000000000000000000000/retry`],
    ];
  });

  async function statuses(client: ApiClient): Promise<number[]> {
    const result: number[] = [];
    for (const [method, path, body] of routes) result.push((await client.request(method, path, body === undefined ? {} : { body })).status);
    return result;
  }

  it('when an employer key or a read-only key calls any webhook route, then 403 (even with an invalid body)', async () => {
    const { id: employer } = await createEmployer(t.admin);
    for (const client of [await t.client('employer', { employer }), await t.client('read_only'), await t.client('read_only', { employer })]) {
      expect(await statuses(client)).toEqual(routes.map(() => 403));
      expect((await client.post('/webhook_endpoints', { url: 'nope' })).status).toBe(403);
    }
  });

  it('when no key is sent, then 401', async () => {
    expect(await statuses(t.anonymous)).toEqual(routes.map(() => 401));
  });

  it("when another provider's admin names the endpoint, then it does not exist for them (404) and it is not listed", async () => {
    const other = await newProviderAdmin(t, 'webhook-other');
    const answered = await statuses(other);
    expect(answered.slice(2)).toEqual([404, 404, 404, 404, 404, 404]);
    expect(idsOf(await other.get('/webhook_endpoints'))).not.toContain(endpointId);
    expect((await t.admin.get(`/webhook_endpoints/${endpointId}`)).status).toBe(200);
  });

  it('when the id is malformed, then 404', async () => {
    expect((await t.admin.get('/webhook_endpoints/not%20an%20id')).status).toBe(404);
    expect((await t.admin.get('/webhook_endpoints/whe_doesnotexist/deliveries')).status).toBe(404);
  });
});
