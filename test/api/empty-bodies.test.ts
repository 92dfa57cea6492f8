import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../helpers/webhooks.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

// docs/decisions.md "Requests": an action that takes no fields accepts no body or `{}` (Python's
// `requests.post(url, json={})` sends it), and refuses any field.
let t: TestContext;
let endpoint: string;
beforeAll(async () => {
  t = await createTestApp();
  endpoint = (await createEndpoint(t.admin, { url: 'https://hooks.integrator.example/benefits' })).id;
});
afterAll(async () => {
  await t.close();
});

const json = (rawBody: string) => ({ rawBody, headers: { 'content-type': 'application/json' } });

describe('actions that take no body', () => {
  it.each([
    ['no body', undefined],
    ['an empty object', json('{}')],
    ['an empty object with white space', json(' {\n} ')],
    ['an empty object with a charset', { rawBody: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } }],
    // Fastify gives validators a missing body as null: JSON null reads the same.
    ['a JSON null', json('null')],
  ])('when an action is sent %s, then it runs', async (_label, options) => {
    const response = await t.admin.request('POST', `/webhook_endpoints/${endpoint}/rotate_secret`, options);
    expect(response.status, response.text).toBe(200);
    expect(response.body.secret).toMatch(/^whsec_/);
  });

  it('when an action is sent an object with fields, then 400 names each field and nothing changes', async () => {
    const before = await t.admin.get(`/webhook_endpoints/${endpoint}`);
    const response = await t.admin.post(`/webhook_endpoints/${endpoint}/rotate_secret`, { reason: 'leaked', expire_in: 0 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      type: 'validation_error',
      input_errors: [
        { field: 'reason', field_path: ['reason'], message: 'This action takes no fields: send no body, or an empty object {}.' },
        { field: 'expire_in', field_path: ['expire_in'], message: 'This action takes no fields: send no body, or an empty object {}.' },
      ],
    });
    expect((await t.admin.get(`/webhook_endpoints/${endpoint}`)).body).toEqual(before.body);
  });

  it.each([['[]'], ['"approve"'], ['0'], ['false']])('when an action is sent %s, then 400 at the body', async (rawBody) => {
    const response = await t.admin.request('POST', `/webhook_endpoints/${endpoint}/rotate_secret`, json(rawBody));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', input_errors: [{ field_path: [], message: expect.stringContaining('takes no fields') }] });
  });

  it('when an action is sent more than 1 KiB, then 413 before it is read', async () => {
    const response = await t.admin.request('POST', `/webhook_endpoints/${endpoint}/rotate_secret`, json(`{${' '.repeat(2048)}}`));
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('payload_too_large');
  });

  it('when another action (an enrollment approval) is sent {}, then it gets as far as the record', async () => {
    const response = await t.admin.request('POST', '/enrollments/enr_missing/approve', json('{}'));
    expect(response.status).toBe(404);
  });

  it('when the document describes an action, then its body is an optional EmptyBody', async () => {
    const document = (await t.anonymous.get('/openapi.json')).body;
    const operation = document.paths['/enrollments/{public_id}/approve'].post;
    expect(operation.requestBody).toMatchObject({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/EmptyBody' } } } });
    expect(document.components.schemas.EmptyBody).toMatchObject({ type: 'object', additionalProperties: false });
  });
});
