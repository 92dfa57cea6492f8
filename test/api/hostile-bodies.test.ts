import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationBodyCases, operationsWithJsonBodies, refusedBodyCases, type OperationLimits, type RequestCase } from '../../bench/lib/hostile-bodies.js';
import { BODY_LIMIT_BYTES } from '../../src/app.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, jsonShape } from '../../src/http/json-body.ts';
import { DOCUMENT_BODY_LIMIT_BYTES, MAX_DOCUMENT_BYTES } from '../../src/modules/documents/document.schemas.ts';
import { createCarrier } from '../helpers/factories.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

/*
 * The hostile-clients bench's bodies (bench/lib/hostile-bodies.js), made for every operation of the OpenAPI
 * document and sent to the test app: a change to the document or the routes that breaks the generator fails
 * here, not only in `npm run bench`. The operations' bodies are made for smaller limits than the service's
 * (the same code, a fraction of the bytes); the bodies refused before parsing at the service's own.
 */

const SMALL_LIMITS: OperationLimits = {
  bodyLimit: 32 * 1024,
  documentBodyLimit: 64 * 1024,
  maxDocumentBytes: 16 * 1024,
  maxDepth: MAX_JSON_DEPTH,
  maxValues: 500,
  jsonShape,
};
const SERVICE_LIMITS: OperationLimits = {
  bodyLimit: BODY_LIMIT_BYTES,
  documentBodyLimit: DOCUMENT_BODY_LIMIT_BYTES,
  maxDocumentBytes: MAX_DOCUMENT_BYTES,
  maxDepth: MAX_JSON_DEPTH,
  maxValues: MAX_JSON_VALUES,
  jsonShape,
};
const MISSING_ID = 'zzz_00000000000000000000';
const CONCURRENCY = 4;

let t: TestContext;
let openapi: Parameters<typeof operationBodyCases>[0]['openapi'];
let carrier: string;
beforeAll(async () => {
  t = await createTestApp();
  openapi = (await t.anonymous.get('/openapi.json')).body;
  carrier = (await createCarrier(t.admin)).id;
});
afterAll(async () => {
  await t.close();
});

/** Each case's body sent as the bench sends it: { case, status }. */
async function sendAll(cases: { request: RequestCase; body: string }[]): Promise<{ name: string; status: number }[]> {
  const answers: { name: string; status: number }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const { request, body } = cases[next++]!;
      const response = await fetch(`${t.baseUrl}${request.path}`, {
        method: request.method,
        headers: { 'content-type': 'application/json', ...(request.authorization ? { authorization: request.authorization } : {}) },
        body,
      });
      await response.arrayBuffer();
      answers.push({ name: request.name, status: response.status });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return answers;
}

describe('the hostile-clients bodies', () => {
  it('when made for every operation with a JSON body, then each operation gets its bodies, each a JSON object within the limits, and none is answered 5xx', async () => {
    const authorization = `Bearer ${t.admin.key}`;
    const idFor = (path: string) => (path.startsWith('/carriers/') ? carrier : MISSING_ID);
    const operations = operationsWithJsonBodies(openapi);
    expect(operations.length).toBeGreaterThan(30);

    const made: { request: RequestCase; body: string }[] = [];
    for (const request of operationBodyCases({ openapi, idFor, authorization, limits: SMALL_LIMITS })) {
      const body = request.make();
      if (body !== undefined) made.push({ request, body });
    }
    for (const { method, path } of operations) {
      const own = made.filter(({ request }) => request.name.startsWith(`${method} ${path} `));
      const where = `${method} ${path}`;
      // Every field filled with long strings, and unknown keys at the top and in the deepest object.
      for (const kind of ['strings_letters', 'unknown_keys', 'unknown_keys_deepest']) {
        expect(
          own.some(({ request }) => request.name.endsWith(` ${kind}`)),
          `${where} ${kind}`,
        ).toBe(true);
      }
      for (const { request, body } of own) {
        const limit = request.group === 'document' ? SMALL_LIMITS.documentBodyLimit : SMALL_LIMITS.bodyLimit;
        expect(Buffer.byteLength(body), request.name).toBeLessThanOrEqual(limit);
        const parsed: unknown = JSON.parse(body);
        expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), request.name).toBe(true);
      }
    }

    const answers = await sendAll(made);
    expect(answers).toHaveLength(made.length);
    expect(answers.filter(({ status }) => status >= 500)).toEqual([]);
  });

  it('when the bodies refused before parsing are sent at the service limits, then each is refused with a 4xx', async () => {
    const cases = refusedBodyCases({ authorization: `Bearer ${t.admin.key}`, limits: SERVICE_LIMITS }).map((request) => ({
      request,
      body: request.make()!,
    }));
    expect(cases.length).toBeGreaterThanOrEqual(6);
    const answers = await sendAll(cases);
    expect(answers.filter(({ status }) => status < 400 || status >= 500)).toEqual([]);
  });
});
