import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, undocumentedAnswers, type TestContext } from '../helpers/test-app.ts';

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

/** A schema with its $ref followed (one level). */
function resolved(schema: any): any {
  if (typeof schema?.$ref !== 'string') return schema;
  return document.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
}

function operations(): { path: string; method: string; operation: any }[] {
  return Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
  );
}

describe('OpenAPI document', () => {
  it('when generated, then it is OpenAPI 3.1 with bearer security', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('when read, then every operation has a summary, a tag, a success response and the error shape', () => {
    expect(operations().length).toBeGreaterThan(20);
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.summary, where).toBeTruthy();
      expect(operation.tags?.length, where).toBeGreaterThan(0);
      const statuses = Object.keys(operation.responses);
      expect(
        statuses.some((s) => s.startsWith('2')),
        where,
      ).toBe(true);
      expect(statuses, where).toContain('401');
      expect(operation.responses['401'], where).toEqual({ $ref: '#/components/responses/Error401' });
      expect(document.components.responses.Error401.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    }
  });

  it('when a benefit change is described, then its coverage dates are documented as read-only dates that may be null', () => {
    const schema = resolved(document.paths['/benefit_changes/{public_id}'].get.responses['200'].content['application/json'].schema);
    for (const field of ['coverage_start', 'coverage_end']) {
      expect(schema.required, field).toContain(field);
      expect(schema.properties[field].anyOf, field).toEqual([expect.objectContaining({ type: 'string', format: 'date' }), { type: 'null' }]);
      expect(schema.properties[field].description, field).toContain('(read-only)');
    }
  });

  it('when read by a generator, then every operation has a unique stable operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    const byRoute = Object.fromEntries(operations().map(({ path, method, operation }) => [`${method.toUpperCase()} ${path}`, operation.operationId]));
    expect(byRoute).toMatchObject({
      'GET /enrollments': 'listEnrollments',
      'POST /enrollments': 'createEnrollment',
      'GET /enrollments/{public_id}': 'getEnrollment',
      'PATCH /enrollments/{public_id}': 'updateEnrollment',
      'POST /enrollments/{public_id}/approve': 'approveEnrollment',
      'POST /enrollments/{public_id}/save_and_submit': 'saveAndSubmitEnrollment',
      'DELETE /beneficiaries/{public_id}': 'deleteBeneficiary',
      'GET /members/{public_id}/coverage': 'getMemberCoverage',
      'POST /webhook_endpoints/{public_id}/deliveries/{delivery_id}/retry': 'retryWebhookDelivery',
    });
  });

  it('when read, then records, list pages, bodies and the error body are named schemas, referenced, and closed sets are enums', () => {
    const schemas = document.components.schemas;
    for (const name of [
      'Enrollment',
      'EnrollmentList',
      'Member',
      'MemberList',
      'Plan',
      'CreateEnrollmentBody',
      'ErrorBody',
      'BenefitChange',
      'Event',
      'Notification',
    ]) {
      expect(schemas[name], name).toMatchObject({ type: 'object', title: name });
    }
    expect(document.paths['/enrollments'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EnrollmentList' });
    expect(document.paths['/enrollments'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateEnrollmentBody' });
    expect(schemas.EnrollmentList.properties.results.items).toEqual({ $ref: '#/components/schemas/Enrollment' });
    expect(schemas.ErrorBody.properties.type.enum).toEqual(expect.arrayContaining(['validation_error', 'not_found', 'idempotency_error', 'internal_error']));
    expect(schemas.Event.properties.event_type.enum).toEqual(expect.arrayContaining(['enrollment.approved', 'member.created', 'webhook_endpoint.disabled']));
    expect(schemas.Notification.properties.notification_type.enum).toEqual(expect.arrayContaining(['enrollment_approved']));
    // No error body is written out inline anywhere.
    expect(JSON.stringify(document.paths)).not.toContain('"request_id"');
  });

  it('when read, then the shared statuses, request headers and response headers are on every operation', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(document.info.license).toMatchObject({ name: 'Apache-2.0' });
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(Object.keys(operation.responses), where).toEqual(
        expect.arrayContaining(['400', '401', '403', '429', '500', ...(method === 'post' ? ['409'] : []), ...(method === 'get' ? [] : ['413', '415'])]),
      );
      const headers = operation.parameters.map((parameter: any) => parameter.$ref ?? parameter.in).filter((name: string) => name.startsWith('#'));
      expect(headers, where).toEqual(
        method === 'post' ? ['#/components/parameters/ApiVersion', '#/components/parameters/IdempotencyKey'] : ['#/components/parameters/ApiVersion'],
      );
      for (const [status, listed] of Object.entries<any>(operation.responses)) {
        const response = listed.$ref ? document.components.responses[listed.$ref.replace('#/components/responses/', '')] : listed;
        expect(Object.keys(response.headers), `${where} ${status}`).toEqual(expect.arrayContaining(['X-Request-Id', 'API-Version']));
        if (status === '429') expect(Object.keys(response.headers), where).toContain('Retry-After');
        expect(response.description, `${where} ${status}`).not.toBe('Default Response');
      }
    }
    expect(Object.keys(document.paths['/documents/{public_id}/content'].get.responses['200'].headers)).toContain('Content-Disposition');
  });

  it('when a route answers a status or a header its operation does not list, then the test app reports it at close', () => {
    const answers = new Set([
      'GET /carriers/{public_id} 200 api-version,content-type,x-request-id',
      'GET /carriers/{public_id} 418 x-request-id',
      'GET /carriers/{public_id} 404 x-request-id,x-secret',
      'GET /healthz 200 x-request-id',
    ]);
    expect(undocumentedAnswers(document, answers)).toEqual([
      'GET /carriers/{public_id} answered 418',
      'GET /carriers/{public_id} 404 sent the header x-secret',
    ]);
  });

  it('when a request body holds a union of objects told apart by a constant field, then it is a oneOf with that field as its discriminator', () => {
    // Otherwise ajv reports every branch's errors (docs/decisions.md, Requests): mark it with DiscriminatedUnion.
    const constantsOf = (branch: any, field: string): unknown[] | undefined => {
      const property = branch?.properties?.[field];
      if (property?.const !== undefined) return [property.const];
      return Array.isArray(property?.enum) && property.enum.length === 1 ? property.enum : undefined;
    };
    const unions: { where: string; node: any; fields: string[] }[] = [];
    const seen = new Set<unknown>();
    const visit = (node: any, where: string): void => {
      if (node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (typeof node.$ref === 'string') return visit(resolved(node), where);
      const branches = (node.oneOf ?? node.anyOf)?.map(resolved);
      if (branches?.length > 1 && branches.every((branch: any) => branch?.type === 'object' && branch.properties)) {
        const fields = Object.keys(branches[0].properties).filter((field) => branches.every((branch: any) => constantsOf(branch, field)));
        if (fields.length > 0) unions.push({ where, node, fields });
      }
      for (const value of Object.values(node)) visit(value, where);
    };
    for (const { path, method, operation } of operations()) visit(operation.requestBody, `${method.toUpperCase()} ${path}`);

    expect(unions.map(({ where }) => where)).toContain('PUT /groups/{public_id}/edi_profile');
    for (const { where, node, fields } of unions) {
      expect(node.anyOf, where).toBeUndefined();
      expect(fields, where).toContain(node.discriminator?.propertyName);
      const field = node.discriminator.propertyName;
      expect(Object.keys(node.discriminator.mapping).sort(), where).toEqual(node.oneOf.flatMap((branch: any) => constantsOf(resolved(branch), field)).sort());
    }
  });

  it('when the document is made by a server configured without a rate limit, then it is the same, rate-limit headers included', () => {
    // The document and the client generated from it describe the API, not one server's configuration.
    const withoutLimit = JSON.parse(
      execFileSync(process.execPath, ['scripts/openapi-document.mjs'], {
        cwd: new URL('../..', import.meta.url),
        env: { ...process.env, RATE_LIMIT_MAX: '0' },
        encoding: 'utf8',
      }),
    );
    expect(withoutLimit).toEqual(document);
    for (const name of ['XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset']) {
      expect(withoutLimit.components.headers[name].description, name).toContain('sent when rate limiting is on');
    }
    expect(Object.keys(withoutLimit.paths['/employers'].get.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    expect(Object.keys(withoutLimit.components.responses.Error429.headers)).toContain('X-RateLimit-Reset');
  });

  it('when the API reference in docs/api.md is compared with the document, then it is in step', () => {
    // Fails (and says how to regenerate) when a schema or route changed without `node scripts/api-reference.mjs`.
    execFileSync(process.execPath, ['scripts/api-reference.mjs', '--check'], { cwd: new URL('../..', import.meta.url), stdio: 'pipe' });
  });

  it('when compared with the routes the server answers, then the API routes are documented', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
        METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    );
    for (const route of [
      'POST /employers',
      'GET /employers/:public_id',
      'PATCH /carriers/:public_id',
      'GET /groups',
      'POST /business_units',
      'GET /subclasses/:public_id',
      'DELETE /api_keys/:public_id',
    ]) {
      expect(documented, route).toContain(route);
    }
  });
});
