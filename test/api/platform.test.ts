import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('errors and conventions', () => {
  it('when a request succeeds, then it carries X-Request-Id and API-Version', async () => {
    const response = await t.admin.get('/employers');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(response.headers.get('api-version')).toBe('2023-08-25');
  });

  it('when the client sends a well-formed X-Request-Id, then it is echoed', async () => {
    const response = await t.admin.get('/employers', { headers: { 'x-request-id': 'client-abc_123' } });
    expect(response.headers.get('x-request-id')).toBe('client-abc_123');
  });

  it('when the client sends a malformed X-Request-Id, then a new one is made', async () => {
    const response = await t.admin.get('/employers', { headers: { 'x-request-id': 'bad id!' } });
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('when API-Version is unknown, then 400 invalid_request', async () => {
    const response = await t.admin.get('/employers', { headers: { 'api-version': '2020-01-01' } });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
  });

  it('when API-Version is the current one, then the request goes through', async () => {
    const response = await t.admin.get('/employers', { headers: { 'api-version': '2023-08-25' } });
    expect(response.status).toBe(200);
  });

  it('when a path does not exist, then 404 not_found in the error shape', async () => {
    const response = await t.admin.get('/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ type: 'not_found', request_id: expect.stringMatching(/^req_/) });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('when a known path gets an unsupported method, then 405', async () => {
    const response = await t.admin.request('PUT', '/employers');
    expect(response.status).toBe(405);
    expect(response.body.type).toBe('method_not_allowed');
    const deleteEmployer = await t.admin.delete('/employers/er_123');
    expect(deleteEmployer.status).toBe(405);
  });

  it('when the body is not JSON, then 415', async () => {
    const response = await t.admin.post('/employers', undefined, { rawBody: 'legal_name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(415);
    expect(response.body.type).toBe('unsupported_media_type');
    const text = await t.admin.post('/employers', undefined, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('when the JSON is malformed, then 400 invalid_request', async () => {
    const response = await t.admin.post('/employers', undefined, { rawBody: '{"legal_name":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
  });

  it('when the body is over 1 MiB, then 413', async () => {
    const response = await t.admin.post('/employers', { legal_name: 'x'.repeat(1024 * 1024 + 10) });
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('payload_too_large');
  });

  it('when the body has an unknown field, then 400 naming it', async () => {
    const response = await t.admin.post('/employers', {
      legal_name: 'Acme',
      address: { line1: 'a', city: 'b', state: 'CA', zip_code: '94105' },
      legl_name: 'typo',
    });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(response.body.input_errors).toContainEqual({ field: 'legl_name', field_path: ['legl_name'], message: expect.any(String) });
  });

  it('when several fields are wrong, then every one is listed with its path', async () => {
    const response = await t.admin.post('/employers', { address: { line1: 'a', city: 'b', state: 'XX', zip_code: '1' }, email: 7 });
    expect(response.status).toBe(400);
    const paths = response.body.input_errors.map((e: { field_path: string[] }) => e.field_path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['legal_name', 'address.state', 'address.zip_code', 'email']));
  });

  it('when a query parameter is unknown or out of range, then 400 invalid_request', async () => {
    expect((await t.admin.get('/employers?page_size=0')).body.type).toBe('invalid_request');
    expect((await t.admin.get('/employers?page_size=101')).status).toBe(400);
    expect((await t.admin.get('/employers?page_size=abc')).status).toBe(400);
    const unknown = await t.admin.get('/employers?colour=blue');
    expect(unknown.status).toBe(400);
    expect(unknown.body.input_errors[0].field).toBe('colour');
  });

  it('when a path id is malformed, then 404 (never 500)', async () => {
    for (const id of ['%20', 'a%27%20OR%201%3D1', 'x'.repeat(300), '%F0%9F%92%A9']) {
      const response = await t.admin.get(`/employers/${id}`);
      expect(response.status).toBe(404);
    }
  });

  it('when the public routes are called without a key, then they answer', async () => {
    expect((await t.anonymous.get('/healthz')).status).toBe(200);
    const openapi = await t.anonymous.get('/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['/employers', '/employers/{public_id}', '/api_keys']));
    const docs = await t.anonymous.get('/docs');
    expect(docs.status).toBeLessThan(400);
  });
});
