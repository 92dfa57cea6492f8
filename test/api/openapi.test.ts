import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
let document: any;
beforeAll(async () => {
  t = await createTestApp();
  document = (await t.anonymous.get('/openapi.json')).body;
});
afterAll(async () => {
  await t.close();
});

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

describe('OpenAPI document', () => {
  it('when generated, then it is OpenAPI 3.1 with bearer security', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('when read, then every operation has a summary, a tag, a success response and the error shape', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.summary, where).toBeTruthy();
      expect(operation.tags?.length, where).toBeGreaterThan(0);
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((s) => s.startsWith('2')), where).toBe(true);
      expect(statuses, where).toContain('401');
      const error = operation.responses['401'].content['application/json'].schema;
      expect(Object.keys(error.properties), where).toEqual(expect.arrayContaining(['type', 'message', 'request_id']));
    }
  });

  it('when a benefit change is described, then its coverage dates are documented as read-only dates that may be null', () => {
    const schema = document.paths['/benefit_changes/{public_id}'].get.responses['200'].content['application/json'].schema;
    for (const field of ['coverage_start', 'coverage_end']) {
      expect(schema.required, field).toContain(field);
      expect(schema.properties[field].anyOf, field).toEqual([expect.objectContaining({ type: 'string', format: 'date' }), { type: 'null' }]);
      expect(schema.properties[field].description, field).toContain('(read-only)');
    }
  });

  it('when compared with the routes the server answers, then the API routes are documented', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
        METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    );
    for (const route of ['POST /employers', 'GET /employers/:public_id', 'PATCH /carriers/:public_id', 'GET /groups', 'POST /business_units', 'GET /subclasses/:public_id', 'DELETE /api_keys/:public_id']) {
      expect(documented, route).toContain(route);
    }
  });
});
