import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const body = (name: string) => ({ legal_name: name, address: address() });

async function countEmployers(client = t.admin): Promise<number> {
  return (await client.get('/employers?page_size=100')).body.results.length;
}

describe('Idempotency-Key', () => {
  it('when a POST is repeated with the same key and body, then the first response is replayed and nothing runs twice', async () => {
    const client = await t.client('admin', { provider: 'replay' });
    const headers = { 'idempotency-key': 'create-acme-1' };
    const first = await client.post('/employers', body('Acme'), { headers });
    const second = await client.post('/employers', body('Acme'), { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countEmployers(client)).toBe(1);
  });

  it('when the same key comes with a different body, then 409 idempotency_error', async () => {
    const headers = { 'idempotency-key': 'create-acme-2' };
    await t.admin.post('/employers', body('Acme'), { headers });
    const conflict = await t.admin.post('/employers', body('Globex'), { headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body.type).toBe('idempotency_error');
  });

  it('when a 4xx answered the first request, then the retry replays the 4xx', async () => {
    const headers = { 'idempotency-key': 'bad-key-request' };
    const first = await t.admin.post('/api_keys', { role: 'employer', employer: 'er_missing' }, { headers });
    const second = await t.admin.post('/api_keys', { role: 'employer', employer: 'er_missing' }, { headers });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
  });

  it('when the body failed validation, then the retry replays the 400', async () => {
    const headers = { 'idempotency-key': 'invalid-body-1' };
    const first = await t.admin.post('/employers', { legal_name: 42, address: address() }, { headers });
    const second = await t.admin.post('/employers', { legal_name: 42, address: address() }, { headers });
    expect(first.status).toBe(400);
    expect(first.body.type).toBe('validation_error');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(400);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('when keys are scoped per API key, then another key may use the same value', async () => {
    const a = await t.client('admin', { provider: 'scope-a' });
    const b = await t.client('admin', { provider: 'scope-a' });
    const headers = { 'idempotency-key': 'shared-value' };
    const fromA = await a.post('/employers', body('From A'), { headers });
    const fromB = await b.post('/employers', body('From B'), { headers });
    expect(fromA.status).toBe(201);
    expect(fromB.status).toBe(201);
    expect(fromB.body.id).not.toBe(fromA.body.id);
  });

  it('when two requests with one key arrive together, then the work runs once and both get the same answer', async () => {
    const client = await t.client('admin', { provider: 'concurrent' });
    const headers = { 'idempotency-key': 'concurrent-1' };
    const responses = await Promise.all(Array.from({ length: 5 }, () => client.post('/employers', body('Once'), { headers })));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await countEmployers(client)).toBe(1);
  });

  it('when 24 hours have passed, then the key is forgotten and the request runs again', async () => {
    const client = await t.client('admin', { provider: 'expiry' });
    const headers = { 'idempotency-key': 'expires' };
    const first = await client.post('/employers', body('Day one'), { headers });
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    const second = await client.post('/employers', body('Day two'), { headers });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('when the path is unknown, then 404 (the key is not claimed)', async () => {
    const headers = { 'idempotency-key': 'unknown-path-1' };
    const response = await t.admin.post('/no_such_resources', { name: 'x' }, { headers });
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
  });

  it('when the key is malformed, then 400', async () => {
    const response = await t.admin.post('/employers', body('A'), { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(response.status).toBe(400);
  });

  it('when a response carried a secret shown once, then the kept response does not hold it in plain text, and the replay still returns it', async () => {
    const key = await t.admin.post('/api_keys', { role: 'read_only' }, { headers: { 'idempotency-key': 'secret-key-1' } });
    const endpoint = await t.admin.post(
      '/webhook_endpoints',
      { url: 'https://hooks.example.com/benefits', enabled_events: ['*'] },
      { headers: { 'idempotency-key': 'secret-endpoint-1' } },
    );
    expect(key.status).toBe(201);
    expect(endpoint.status).toBe(201);
    const kept = await t.database.db.selectFrom('idempotency_keys').select(['idempotency_key', 'response_body']).where('idempotency_key', 'in', ['secret-key-1', 'secret-endpoint-1']).execute();
    expect(kept).toHaveLength(2);
    for (const row of kept) {
      expect(row.response_body).not.toContain(key.body.key);
      expect(row.response_body).not.toContain(endpoint.body.secret);
      expect(row.response_body).not.toContain('"id"');
    }
    const replayedKey = await t.admin.post('/api_keys', { role: 'read_only' }, { headers: { 'idempotency-key': 'secret-key-1' } });
    const replayedEndpoint = await t.admin.post(
      '/webhook_endpoints',
      { url: 'https://hooks.example.com/benefits', enabled_events: ['*'] },
      { headers: { 'idempotency-key': 'secret-endpoint-1' } },
    );
    expect(replayedKey.headers.get('idempotent-replayed')).toBe('true');
    expect(replayedKey.body).toEqual(key.body);
    expect(replayedEndpoint.body).toEqual(endpoint.body);
  });
});
