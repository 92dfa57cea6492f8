import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv, options: { mode: 'full' }) => Ajv;

let t: TestContext;
let document: any;
let ajv: Ajv;
beforeAll(async () => {
  t = await createTestApp();
  document = (await t.anonymous.get('/openapi.json')).body;
  // The document's named schemas under one id, so that an operation's `#/components/schemas/...` refs resolve.
  ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: false }), { mode: 'full' });
  ajv.addSchema({ $id: 'openapi.json', components: { schemas: document.components.schemas } });
});
afterAll(async () => {
  await t.close();
});

/** The seed's 16 endpoints (interface "Endpoints") and the enrollment flow's actions. */
const REFERENCE_OPERATIONS = [
  'GET /enrollments/{public_id}/benefit_changes',
  'POST /enrollments/{public_id}/approve',
  'GET /dependents/{public_id}',
  'GET /open_enrollment_windows/{public_id}/change_report',
  'POST /open_enrollment_windows/{public_id}/complete',
  'GET /open_enrollment_windows/{public_id}/incomplete_members_report',
  'GET /business_units/{public_id}',
  'GET /subclasses/{public_id}',
  'GET /groups/{public_id}',
  'GET /carriers/{public_id}',
  'POST /plan_configurations/{public_id}/contribution_strategy',
  'GET /beneficiaries',
  'DELETE /member_id_cards/{public_id}',
  'DELETE /members/{public_id}',
  'DELETE /pay_rates/{public_id}',
  'GET /notifications',
  'POST /enrollments',
  'POST /enrollments/{public_id}/save_and_submit',
];

function operationOf(route: string): any {
  const [method, path] = route.split(' ') as [string, string];
  return document.paths[path]?.[method.toLowerCase()];
}

/** Every example of a media type, checked against its schema: the error messages, empty when all are valid. */
function invalidExamples(where: string, media: any): string[] {
  const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"openapi.json#/components/'));
  const validate = ajv.compile(schema);
  return Object.entries<any>(media.examples ?? {}).flatMap(([name, example]) =>
    validate(example.value) ? [] : [`${where} example ${name}: ${ajv.errorsText(validate.errors)}`],
  );
}

/** Every JSON request and response body of the document, with where it is. */
function bodies(): { where: string; media: any }[] {
  const found: { where: string; media: any }[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const request = operation.requestBody?.content?.['application/json'];
      if (request) found.push({ where: `${where} request`, media: request });
      for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (media) found.push({ where: `${where} ${status}`, media });
      }
    }
  }
  return found;
}

describe('OpenAPI reference: examples, descriptions and webhooks', () => {
  it('when read, then each seed endpoint and enrollment action has a request example (where it takes a body) and a 2xx response example', () => {
    for (const route of REFERENCE_OPERATIONS) {
      const operation = operationOf(route);
      expect(operation, route).toBeDefined();
      const request = operation.requestBody?.content?.['application/json'];
      if (request) expect(Object.keys(request.examples ?? {}).length, `${route} request`).toBeGreaterThan(0);
      const successes = Object.entries<any>(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(successes.length, route).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        expect(Object.keys(response.content['application/json'].examples ?? {}).length, `${route} ${status}`).toBeGreaterThan(0);
      }
    }
  });

  it('when validated against their schemas, then every example of the document is valid', () => {
    const checked = bodies().filter(({ media }) => media.examples);
    expect(checked.length).toBeGreaterThanOrEqual(REFERENCE_OPERATIONS.length);
    expect(checked.flatMap(({ where, media }) => invalidExamples(where, media))).toEqual([]);
  });

  it('when an example names a record, then its id has the id format of its kind', () => {
    const text = JSON.stringify(bodies().map(({ media }) => media.examples ?? {}));
    const ids = [...text.matchAll(/"([a-z]+_[0-9A-Za-z]+)"/g)].map((match) => match[1]!).filter((value) => /^[a-z]+_0/.test(value));
    expect(ids.length).toBeGreaterThan(20);
    // Prefix, underscore, 11 base36 characters of time order and 9 random base62 ones (shared/ids.ts).
    for (const id of ids)
      expect(id).toMatch(/^(er|mem|dep|ben|carr|grp|bu|sub|plan|pc|enr|ep|ed|bd|pcp|cw|bc|oew|mic|pr|ntf|evt|whe|whd|psch)_[0-9a-z]{11}[0-9A-Za-z]{9}$/);
    expect(text).not.toMatch(/\b\d{3}-\d{2}-\d{4}\b(?<!123-45-6789)/);
    expect(text).not.toContain('"<');
  });

  it('when read, then each seed operation has a description paragraph', () => {
    for (const route of REFERENCE_OPERATIONS) {
      const description = operationOf(route).description;
      expect(typeof description, route).toBe('string');
      expect(description.length, route).toBeGreaterThan(100);
      expect(description, route).toMatch(/key/);
    }
  });

  it('when read, then the webhooks section describes the signed event delivery and its examples are valid events', () => {
    const delivery = document.webhooks?.event?.post;
    expect(delivery).toBeDefined();
    const headers = delivery.parameters.filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name);
    expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
    const body = delivery.requestBody.content['application/json'];
    expect(body.schema).toEqual({ $ref: '#/components/schemas/Event' });
    const examples = Object.values<any>(body.examples);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(new Set(examples.map((example) => example.value.object_type)).size).toBe(examples.length);
    expect(invalidExamples('webhooks event', body)).toEqual([]);
  });
});
