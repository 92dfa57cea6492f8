import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const MiB = 1024 * 1024;

function documentBody(overrides: Record<string, unknown> = {}) {
  return { name: 'id-card-front.pdf', content_type: 'application/pdf', content_base64: Buffer.from('%PDF-1.7 card').toString('base64'), ...overrides };
}

async function upload(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const response = await client.post('/documents', documentBody(overrides));
  if (response.status !== 201) throw new Error(`POST /documents answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

/** GET /documents/{id}/content as raw bytes (ApiClient reads bodies as text, which would mangle them). */
async function download(client: ApiClient, id: string) {
  const response = await fetch(`${client.baseUrl}/documents/${id}/content`, { headers: { authorization: `Bearer ${client.key}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('documents: upload and read', () => {
  it("when a document about a member is uploaded, then 201 with its size and the member's employer, never the content", async () => {
    const member = await createMember(t.admin);
    const content = Buffer.from('%PDF-1.7 front of the card');
    const response = await t.admin.post('/documents', documentBody({ member: member.id, content_base64: content.toString('base64') }));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^doc_[A-Za-z0-9]{20}$/),
      name: 'id-card-front.pdf',
      content_type: 'application/pdf',
      size: content.length,
      member: member.id,
      employer: member.employer,
      created_at: t.clock.now().toISOString(),
    });
    expect((await t.admin.get(`/documents/${response.body.id}`)).body).toEqual(response.body);
  });

  it('when member and its employer are both given, then 201; an employer alone is kept; neither makes it provider-wide', async () => {
    const member = await createMember(t.admin);
    expect(await upload(t.admin, { member: member.id, employer: member.employer })).toMatchObject({ member: member.id, employer: member.employer });
    expect(await upload(t.admin, { employer: member.employer })).toMatchObject({ member: null, employer: member.employer });
    expect(await upload(t.admin, { member: null, employer: null })).toMatchObject({ member: null, employer: null });
    expect(await upload(t.admin)).toMatchObject({ member: null, employer: null });
  });

  it.each([
    ['application/pdf', randomBytes(4096)],
    ['image/png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), randomBytes(1000), Buffer.alloc(64)])],
    ['text/plain', Buffer.from('Member: Dana Rivera\nPlan: Gold PPO\n')],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', randomBytes(777)],
    ['application/octet-stream', Buffer.alloc(0x100).map((_byte, index) => index)],
  ])('when %s content is uploaded, then /content returns the exact bytes with that Content-Type and Content-Length', async (contentType, bytes) => {
    const document = await upload(t.admin, { content_type: contentType, content_base64: bytes.toString('base64') });
    expect(document.size).toBe(bytes.length);
    const response = await download(t.admin, document.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-disposition')).toContain('attachment');
    expect(response.bytes.equals(bytes)).toBe(true);
  });

  it('when the content is mostly zero bytes, then every byte round-trips, including leading and trailing zeros', async () => {
    const bytes = Buffer.concat([Buffer.alloc(17), randomBytes(300), Buffer.alloc(1000), Buffer.from([0xff, 0x00, 0xfe]), Buffer.alloc(5)]);
    const document = await upload(t.admin, { content_type: 'application/octet-stream', content_base64: bytes.toString('base64') });
    const response = await download(t.admin, document.id);
    expect(response.bytes.equals(bytes)).toBe(true);
    const row = await t.database.db.selectFrom('documents').select(['size', 'content']).where('id', '=', document.id).executeTakeFirstOrThrow();
    expect(Number(row.size)).toBe(bytes.length);
    expect(Buffer.from(row.content).equals(bytes)).toBe(true);
  });

  it('when the name has quotes and non-ASCII characters, then the download names it safely', async () => {
    const document = await upload(t.admin, { name: 'carte "santé".pdf' });
    const response = await download(t.admin, document.id);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="carte _sant__.pdf"; filename*=UTF-8''carte%20%22sant%C3%A9%22.pdf`);
  });

  it('when a document is read, then its content is not part of the record, and HEAD on /content answers the length', async () => {
    const document = await upload(t.admin);
    const read = await t.admin.get(`/documents/${document.id}`);
    expect(read.body).not.toHaveProperty('content_base64');
    expect(read.body).not.toHaveProperty('content');
    const head = await fetch(`${t.baseUrl}/documents/${document.id}/content`, { method: 'HEAD', headers: { authorization: `Bearer ${t.admin.key}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/pdf');
  });
});

describe('documents: validation and size limits', () => {
  it.each([
    ['a missing name', { name: undefined }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name over 255', { name: 'x'.repeat(256) }, 'name'],
    ['a missing content type', { content_type: undefined }, 'content_type'],
    ['a content type without subtype', { content_type: 'pdf' }, 'content_type'],
    ['a content type with parameters', { content_type: 'text/plain; charset=utf-8' }, 'content_type'],
    ['a content type with spaces', { content_type: 'application/ pdf' }, 'content_type'],
    ['a content type over 255', { content_type: `application/${'x'.repeat(244)}` }, 'content_type'],
    ['missing content', { content_base64: undefined }, 'content_base64'],
    ['empty content', { content_base64: '' }, 'content_base64'],
    ['content as a number', { content_base64: 12345678 }, 'content_base64'],
    ['base64 without padding', { content_base64: 'YWJjZA' }, 'content_base64'],
    ['base64 with a space', { content_base64: 'YWJj ZGVm' }, 'content_base64'],
    ['base64 with a line break', { content_base64: 'YWJj\nZGVm' }, 'content_base64'],
    ['URL-safe base64', { content_base64: 'Pz8-Pz8_' }, 'content_base64'],
    ['base64 with a character outside the alphabet', { content_base64: 'YWJj!GVm' }, 'content_base64'],
    ['base64 with padding in the middle', { content_base64: 'YW==YWJj' }, 'content_base64'],
    ['base64 with padding bits set', { content_base64: 'QR==' }, 'content_base64'],
    ['only padding', { content_base64: '====' }, 'content_base64'],
    ['a member id that is not an id', { member: 'mem 1' }, 'member'],
    ['an unknown field', { size: 12 }, 'size'],
  ])('when uploaded with %s, then 400 naming the field', async (_case, overrides, field) => {
    const response = await t.admin.post('/documents', documentBody(overrides));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toContain(field);
  });

  it.each(['APPLICATION/PDF', 'image/svg+xml', 'application/vnd.ms-excel', 'text/x-c++src'])(
    'when the content type is %s, then it is accepted as given',
    async (contentType) => {
      expect((await upload(t.admin, { content_type: contentType })).content_type).toBe(contentType);
    },
  );

  it('when the content is exactly 10 MiB, then 201 and it downloads whole', async () => {
    const bytes = randomBytes(10 * MiB);
    const response = await t.admin.post('/documents', documentBody({ content_type: 'image/png', content_base64: bytes.toString('base64') }));
    expect(response.status).toBe(201);
    expect(response.body.size).toBe(10 * MiB);
    const downloaded = await download(t.admin, response.body.id);
    expect(downloaded.headers.get('content-length')).toBe(String(10 * MiB));
    expect(downloaded.bytes.equals(bytes)).toBe(true);
  });

  it('when the content is 10 MiB and one byte, then 413 payload_too_large and nothing is stored', async () => {
    const admin = await newProviderAdmin(t, 'documents-too-large');
    const response = await admin.post('/documents', documentBody({ content_base64: randomBytes(10 * MiB + 1).toString('base64') }));
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('payload_too_large');
    expect(idsOf(await admin.get('/documents'))).toEqual([]);
  });

  it('when the body is far over the route limit, then 413', async () => {
    const response = await t.admin.post('/documents', documentBody({ content_base64: 'A'.repeat(15 * MiB) }));
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('payload_too_large');
  });

  it('when a 2 MiB document is uploaded, then 201, while a 2 MiB body on another route is still 413', async () => {
    const bytes = randomBytes(2 * MiB);
    const document = await t.admin.post('/documents', documentBody({ content_base64: bytes.toString('base64') }));
    expect(document.status).toBe(201);
    expect(document.body.size).toBe(2 * MiB);
    const employer = await t.admin.post('/employers', { legal_name: 'x'.repeat(2 * MiB), address: {} });
    expect(employer.status).toBe(413);
    expect(employer.body.type).toBe('payload_too_large');
  });

  it('when the body is not JSON, then 415', async () => {
    const response = await t.admin.post('/documents', undefined, { rawBody: '%PDF-1.7', headers: { 'content-type': 'application/pdf' } });
    expect(response.status).toBe(415);
  });
});

describe('documents: references', () => {
  it("when the member is unknown or another provider's, then 400 naming member", async () => {
    const other = await newProviderAdmin(t, 'documents-ref');
    const theirs = await createMember(other);
    for (const member of ['mem_unknown', theirs.id]) {
      const response = await t.admin.post('/documents', documentBody({ member }));
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['member']);
    }
  });

  it("when the employer is unknown or another provider's, then 400 naming employer", async () => {
    const other = await newProviderAdmin(t, 'documents-ref-employer');
    const theirs = await createEmployer(other);
    for (const employer of ['er_unknown', theirs.id]) {
      const response = await t.admin.post('/documents', documentBody({ employer }));
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['employer']);
    }
  });

  it("when the employer is not the member's employer, then 400 naming employer", async () => {
    const member = await createMember(t.admin);
    const other = await createEmployer(t.admin);
    const response = await t.admin.post('/documents', documentBody({ member: member.id, employer: other.id }));
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toEqual([{ field: 'employer', field_path: ['employer'], message: expect.stringContaining("member's employer") }]);
  });

  it('when the member of a document is deleted, then the document stays, still of the employer', async () => {
    const member = await createMember(t.admin);
    const document = await upload(t.admin, { member: member.id });
    expect((await t.admin.delete(`/members/${member.id}`)).status).toBe(200);
    const read = await t.admin.get(`/documents/${document.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ member: null, employer: member.employer });
    expect((await download(t.admin, document.id)).status).toBe(200);
  });
});

describe('documents: lists', () => {
  it('when listed, then newest first, with ?member= and ?employer= filters and pages', async () => {
    const admin = await newProviderAdmin(t, 'documents-list');
    const employer = await createEmployer(admin);
    const member = await createMember(admin, { employer: employer.id });
    const [providerWide, ofEmployer, ofMember, ofMemberAgain] = await createInSequence(t, 4, (index) =>
      upload(admin, [{}, { employer: employer.id }, { member: member.id }, { member: member.id }][index]),
    );
    expect(idsOf(await admin.get('/documents'))).toEqual([ofMemberAgain!.id, ofMember!.id, ofEmployer!.id, providerWide!.id]);
    expect(idsOf(await admin.get(`/documents?member=${member.id}`))).toEqual([ofMemberAgain!.id, ofMember!.id]);
    expect(idsOf(await admin.get(`/documents?employer=${employer.id}`))).toEqual([ofMemberAgain!.id, ofMember!.id, ofEmployer!.id]);

    const first = await admin.get('/documents?page_size=3');
    expect(idsOf(first)).toEqual([ofMemberAgain!.id, ofMember!.id, ofEmployer!.id]);
    expect(first.body.previous).toBeNull();
    const second = await admin.get(first.body.next);
    expect(idsOf(second)).toEqual([providerWide!.id]);
    expect(second.body.next).toBeNull();
  });

  it('when listed, then no record carries its content', async () => {
    const admin = await newProviderAdmin(t, 'documents-list-content');
    await upload(admin);
    const list = await admin.get('/documents');
    expect(Object.keys(list.body.results[0]).sort()).toEqual(['content_type', 'created_at', 'employer', 'id', 'member', 'name', 'size']);
  });

  it('when the list gets an unknown or malformed filter, then 400 invalid_request', async () => {
    expect((await t.admin.get('/documents?owner=x')).status).toBe(400);
    expect((await t.admin.get('/documents?member=not%20an%20id')).status).toBe(400);
    expect((await t.admin.get('/documents?page_size=101')).status).toBe(400);
  });
});

describe('documents: tenancy and roles', () => {
  it("when another provider's document is addressed, then 404 on the record and its content, and it is absent from lists", async () => {
    const other = await newProviderAdmin(t, 'documents-other');
    const theirs = await upload(other, { employer: (await createEmployer(other)).id });
    expect((await t.admin.get(`/documents/${theirs.id}`)).status).toBe(404);
    const content = await download(t.admin, theirs.id);
    expect(content.status).toBe(404);
    expect(content.headers.get('content-type')).toMatch(/^application\/json/);
    expect(idsOf(await t.admin.get('/documents?page_size=100'))).not.toContain(theirs.id);
  });

  it("when an employer key reads another employer's or a provider-wide document, then 404 on the record and its content", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const other = await createEmployer(t.admin);
    const theirs = await upload(t.admin, { employer: other.id });
    const providerWide = await upload(t.admin);
    const own = await upload(t.admin, { employer: employer.id });
    for (const document of [theirs, providerWide]) {
      expect((await client.get(`/documents/${document.id}`)).status).toBe(404);
      expect((await download(client, document.id)).status).toBe(404);
    }
    expect((await client.get(`/documents/${own.id}`)).status).toBe(200);
    expect((await download(client, own.id)).status).toBe(200);
    expect(idsOf(await client.get('/documents?page_size=100'))).toEqual([own.id]);
    expect(idsOf(await client.get(`/documents?employer=${other.id}`))).toEqual([]);
  });

  it("when an employer key uploads, then the document is its employer's; naming another employer or their member is a 400", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(client, { employer: employer.id });
    const otherEmployer = await createEmployer(t.admin);
    const otherMember = await createMember(t.admin, { employer: otherEmployer.id });
    expect(await upload(client)).toMatchObject({ member: null, employer: employer.id });
    expect(await upload(client, { member: own.id })).toMatchObject({ member: own.id, employer: employer.id });
    const wrongEmployer = await client.post('/documents', documentBody({ employer: otherEmployer.id }));
    expect(wrongEmployer.status).toBe(400);
    expect(errorFields(wrongEmployer)).toEqual(['employer']);
    const wrongMember = await client.post('/documents', documentBody({ member: otherMember.id }));
    expect(wrongMember.status).toBe(400);
    expect(errorFields(wrongMember)).toEqual(['member']);
  });

  it('when a read-only key uploads, then 403; it may read and download', async () => {
    const document = await upload(t.admin);
    const readOnly = await t.client('read_only');
    expect((await readOnly.post('/documents', documentBody())).status).toBe(403);
    expect((await readOnly.get(`/documents/${document.id}`)).status).toBe(200);
    expect((await download(readOnly, document.id)).status).toBe(200);
  });

  it("when a read-only key is limited to an employer, then it sees only that employer's documents", async () => {
    const employer = await createEmployer(t.admin);
    const own = await upload(t.admin, { employer: employer.id });
    const providerWide = await upload(t.admin);
    const readOnly = await t.client('read_only', { employer: employer.id });
    expect((await readOnly.get(`/documents/${own.id}`)).status).toBe(200);
    expect((await readOnly.get(`/documents/${providerWide.id}`)).status).toBe(404);
    expect((await download(readOnly, providerWide.id)).status).toBe(404);
  });

  it('when a document is patched or deleted, then 405: documents are immutable; an unknown or malformed id is 404', async () => {
    const document = await upload(t.admin);
    expect((await t.admin.patch(`/documents/${document.id}`, { name: 'x.pdf' })).status).toBe(405);
    expect((await t.admin.delete(`/documents/${document.id}`)).status).toBe(405);
    expect((await t.admin.get('/documents/doc_unknown')).status).toBe(404);
    expect((await t.admin.get('/documents/not%20an%20id/content')).status).toBe(404);
    expect((await t.anonymous.get(`/documents/${document.id}/content`)).status).toBe(401);
  });
});

describe('documents: OpenAPI', () => {
  it('when documented, then /content declares a binary 200 and the upload its errors', async () => {
    const openapi = (await t.anonymous.get('/openapi.json')).body;
    const content = openapi.paths['/documents/{public_id}/content'].get;
    const schemas = Object.values(content.responses['200'].content as Record<string, { schema: unknown }>).map((entry) => entry.schema);
    expect(schemas).toContainEqual(expect.objectContaining({ type: 'string', format: 'binary' }));
    expect(Object.keys(openapi.paths['/documents'].post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413']));
  });
});
