import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACK_SPOOFS, INTERNAL_HOSTS, ack999, ssrfRequests, type TradingPartner } from '../../bench/lib/carrier-channel.js';
import { operationBodyCases, operationsWithJsonBodies, refusedBodyCases, type OperationLimits, type RequestCase } from '../../bench/lib/hostile-bodies.js';
import { BODY_LIMIT_BYTES } from '../../src/app.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, jsonShape } from '../../src/http/json-body.ts';
import { DOCUMENT_BODY_LIMIT_BYTES, MAX_DOCUMENT_BYTES } from '../../src/modules/documents/document.schemas.ts';
import { readAcknowledgement } from '../../src/modules/edi/x12-acknowledgement.ts';
import { approvedEnrollment, createEnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createCarrier, createGroup } from '../helpers/factories.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

/*
 * The hostile-clients bench's generators, run against the test app so that a change to the document, the
 * routes or the schemas that breaks them fails here, not only in `npm run bench`:
 * - its bodies (bench/lib/hostile-bodies.js), made for every operation of the OpenAPI document; the
 *   operations' bodies for smaller limits than the service's (the same code, a fraction of the bytes), the
 *   bodies refused before parsing at the service's own;
 * - its carrier channel clients (bench/lib/carrier-channel.js): the SSRF client's requests are well-formed but
 *   for the address they point at, and the 999s are well-formed (the spoofs and the unchanged control).
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
    for (const { method, path, schema } of operations) {
      const own = made.filter(({ request }) => request.name.startsWith(`${method} ${path} `));
      const where = `${method} ${path}`;
      // Every field filled with long strings (where it has any: an action may take only a flag), and unknown keys
      // at the top and in the deepest object.
      const hasStrings = JSON.stringify(schema).includes('"type":"string"');
      for (const kind of [...(hasStrings ? ['strings_letters'] : []), 'unknown_keys', 'unknown_keys_deepest']) {
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

describe('the hostile-clients carrier channel clients', () => {
  const PARTNER: TradingPartner = {
    sender: { qualifier: 'ZZ', id: 'BENCHSENDER' },
    receiver: { qualifier: 'ZZ', id: 'BENCHCARRIER' },
    applicationSender: 'BENCHSENDER',
    applicationReceiver: 'BENCHCARRIER',
  };

  it('when the SSRF client sends its requests, then each is refused at its address or port only, or accepted: never refused for anything else', async () => {
    const group = (await createGroup(t.admin, { connection_method: 'edi' })).id;
    const requests = ssrfRequests(group);
    for (const host of INTERNAL_HOSTS) {
      expect(requests.filter(({ name }) => name.startsWith('sftp ') && name.includes(host)).length, host).toBeGreaterThan(0);
      expect(requests.filter(({ name }) => name.startsWith('webhook ') && name.includes(host.replace(/^::1$/, '[::1]'))).length, host).toBeGreaterThan(0);
    }
    for (const request of requests) {
      const response = await t.admin.request(request.method, request.path, { body: request.body });
      if (response.status === 201 && request.path === '/webhook_endpoints') await ok(t.admin.delete(`/webhook_endpoints/${response.body.id}`));
      if (response.status < 300) continue;
      expect(response.status, `${request.name}: ${response.text}`).toBe(400);
      const fields = (response.body.input_errors ?? []).map((error: { field_path: string[] }) => error.field_path.join('.'));
      expect(fields.length, `${request.name}: ${response.text}`).toBeGreaterThan(0);
      for (const field of fields) expect(field, `${request.name}: ${response.text}`).toMatch(/^(delivery(\.sftp)?\.(host|port)|url)$/);
    }
  });

  it('when the spoofer writes its 999s, then each reads as a 999 with an element changed, and the control settles a delivered file', async () => {
    const file = { id: 'edi_x', group_control_number: 17 };
    const control = ack999(file, PARTNER);
    expect(readAcknowledgement(control).groupAcknowledgements).toHaveLength(1);
    for (const [name, spoof] of Object.entries(ACK_SPOOFS)) {
      const overrides = spoof(file);
      expect(Object.keys(overrides).length, name).toBeGreaterThan(0);
      expect(() => readAcknowledgement(ack999(file, PARTNER, overrides)), name).not.toThrow();
    }
    expect(ack999(file, PARTNER, ACK_SPOOFS.control_number_hex!(file))).toContain('AK1*BE*0x11*');

    const w = await createEnrollmentWorld(t);
    await ok(w.admin.patch(`/members/${w.member.id}`, { ssn: '521443817' }));
    await ok(
      w.admin.request('PUT', `/groups/${w.groups.ediGroup.id}/edi_profile`, {
        body: {
          interchange_sender: PARTNER.sender,
          interchange_receiver: PARTNER.receiver,
          application_sender_code: PARTNER.applicationSender,
          application_receiver_code: PARTNER.applicationReceiver,
          sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
          payer: { name: 'World Health Co', id: '987654321' },
          delivery: { method: 'download' },
        },
      }),
    );
    await approvedEnrollment(w, { member: w.member.id, enrolled_plans: [{ plan: w.plans.vision.id }] });
    const built = await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' }), 201);
    await ok(w.admin.post(`/edi_files/${built.id}/deliver`));
    await ok(w.admin.post(`/edi_files/${built.id}/acknowledgements`, { content: ack999(built, PARTNER) }));
    expect((await ok(w.admin.get(`/edi_files/${built.id}`))).status).toBe('accepted');
  });
});
