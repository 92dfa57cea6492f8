import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createCarrier, createEmployer, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, createInSequence, errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { cardOfCoverage, insertEnrolledCoverage } from '../helpers/card-factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function uploadDocument(client: ApiClient, fields: Record<string, unknown>) {
  const response = await client.post('/documents', {
    name: 'card-front.png',
    content_type: 'image/png',
    content_base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64'),
    ...fields,
  });
  if (response.status !== 201) throw new Error(`POST /documents answered ${response.status}: ${response.text}`);
  return response.body;
}

async function createCard(client: ApiClient, body: Record<string, unknown>) {
  const response = await client.post('/member_id_cards', body);
  if (response.status !== 201) throw new Error(`POST /member_id_cards answered ${response.status}: ${response.text}`);
  return response.body;
}

const sorted = (ids: string[]) => [...ids].sort();
const fieldPaths = (body: { input_errors?: { field_path: string[] }[] }) => (body.input_errors ?? []).map((error) => error.field_path.join('.'));

describe('member ID cards: create and read', () => {
  it('when a card is created with every field, then 201 echoes them and the coverage points at the card', async () => {
    const member = await createMember(t.admin);
    const carrier = await createCarrier(t.admin);
    const document = await uploadDocument(t.admin, { member: member.id });
    const coverage = await insertEnrolledCoverage(t, { member: member.id, plans: 2, dependents: 2 });
    const body = {
      member: member.id,
      carrier: carrier.id,
      member_number: 'XJH123456789',
      group_number: 'GRP-1001',
      document: document.id,
      enrolled_plans: coverage.enrolledPlanIds,
      enrolled_dependents: coverage.enrolledDependentIds,
    };
    const response = await t.admin.post('/member_id_cards', body);
    expect(response.status).toBe(201);
    expect({ ...response.body, enrolled_dependents: sorted(response.body.enrolled_dependents) }).toEqual({
      ...body,
      enrolled_dependents: sorted(coverage.enrolledDependentIds),
      id: expect.stringMatching(/^mic_[A-Za-z0-9]{20}$/),
      created_at: t.clock.now().toISOString(),
    });
    const fetched = await t.admin.get(`/member_id_cards/${response.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
    const cards = await cardOfCoverage(t, { enrolledPlans: coverage.enrolledPlanIds, enrolledDependents: coverage.enrolledDependentIds });
    expect(cards).toEqual(Array(6).fill(response.body.id));
    const row = await t.database.db.selectFrom('member_id_cards').select('employer_id').where('id', '=', response.body.id).executeTakeFirstOrThrow();
    expect(row.employer_id).toBe(member.employer);
  });

  it('when optional fields are left out or null, then they read as null and the assignments as []', async () => {
    const member = await createMember(t.admin);
    const expected = { member: member.id, carrier: null, member_number: null, group_number: null, document: null, enrolled_plans: [], enrolled_dependents: [] };
    expect(await createCard(t.admin, { member: member.id })).toMatchObject(expected);
    expect(await createCard(t.admin, { member: member.id, carrier: null, member_number: null, group_number: null, document: null })).toMatchObject(expected);
  });

  it("when the document is the employer's rather than the member's, then it may be linked too", async () => {
    const member = await createMember(t.admin);
    const document = await uploadDocument(t.admin, { employer: member.employer });
    expect((await createCard(t.admin, { member: member.id, document: document.id })).document).toBe(document.id);
  });

  it.each([
    ['no member', { member: undefined }, 'member'],
    ['a member that is not an id', { member: 'mem 1' }, 'member'],
    ['an empty member number', { member_number: '' }, 'member_number'],
    ['a member number over 255', { member_number: 'x'.repeat(256) }, 'member_number'],
    ['a group number over 255', { group_number: 'x'.repeat(256) }, 'group_number'],
    ['a group number as a number', { group_number: 1001 }, 'group_number'],
    ['a carrier that is not an id', { carrier: 'carr/1' }, 'carrier'],
    ['duplicate enrolled plans', { enrolled_plans: ['ep_a', 'ep_a'] }, 'enrolled_plans'],
    ['more than 100 enrolled plans', { enrolled_plans: Array.from({ length: 101 }, (_v, i) => `ep_${i}`) }, 'enrolled_plans'],
    ['enrolled plans that are not a list', { enrolled_plans: 'ep_a' }, 'enrolled_plans'],
    ['duplicate enrolled dependents', { enrolled_dependents: ['ed_a', 'ed_a'] }, 'enrolled_dependents'],
    ['more than 100 enrolled dependents', { enrolled_dependents: Array.from({ length: 101 }, (_v, i) => `ed_${i}`) }, 'enrolled_dependents'],
    ['an unknown field', { employer: 'er_1' }, 'employer'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const member = await createMember(t.admin);
    const response = await t.admin.post('/member_id_cards', { member: member.id, ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toContain(field);
  });
});

describe('member ID cards: references and assignments', () => {
  it("when the member, carrier or document is unknown or another provider's, then 400 naming each field", async () => {
    const other = await newProviderAdmin(t, 'cards-ref');
    const theirMember = await createMember(other);
    const theirCarrier = await createCarrier(other);
    const theirDocument = await uploadDocument(other, { member: theirMember.id });
    const member = await createMember(t.admin);

    const unknown = await t.admin.post('/member_id_cards', { member: 'mem_unknown', carrier: 'carr_unknown', document: 'doc_unknown' });
    expect(unknown.status).toBe(400);
    expect(fieldPaths(unknown.body)).toEqual(['member', 'carrier', 'document']);
    const foreign = await t.admin.post('/member_id_cards', { member: member.id, carrier: theirCarrier.id, document: theirDocument.id });
    expect(fieldPaths(foreign.body)).toEqual(['carrier', 'document']);
    const foreignMember = await t.admin.post('/member_id_cards', { member: theirMember.id });
    expect(fieldPaths(foreignMember.body)).toEqual(['member']);
  });

  it("when the document is another member's, another employer's or provider-wide, then 400 naming document", async () => {
    const member = await createMember(t.admin);
    const colleague = await createMember(t.admin, { employer: member.employer });
    const otherEmployer = await createEmployer(t.admin);
    const documents = [
      await uploadDocument(t.admin, { member: colleague.id }),
      await uploadDocument(t.admin, { employer: otherEmployer.id }),
      await uploadDocument(t.admin, {}),
    ];
    for (const document of documents) {
      const response = await t.admin.post('/member_id_cards', { member: member.id, document: document.id });
      expect(response.status).toBe(400);
      expect(response.body.input_errors).toEqual([{ field: 'document', field_path: ['document'], message: expect.stringContaining('member') }]);
    }
  });

  it("when the card names another member's enrolled plans or dependents, then 400 naming each item, and nothing changes", async () => {
    const member = await createMember(t.admin);
    const sibling = await createMember(t.admin, { employer: member.employer });
    const own = await insertEnrolledCoverage(t, { member: member.id, dependents: 1 });
    const theirs = await insertEnrolledCoverage(t, { member: sibling.id, dependents: 1 });
    const before = await t.admin.get(`/member_id_cards?member=${member.id}`);

    const response = await t.admin.post('/member_id_cards', {
      member: member.id,
      enrolled_plans: [own.enrolledPlanIds[0], theirs.enrolledPlanIds[0], 'ep_unknown'],
      enrolled_dependents: [theirs.enrolledDependentIds[0], own.enrolledDependentIds[0]],
    });
    expect(response.status).toBe(400);
    expect(fieldPaths(response.body)).toEqual(['enrolled_plans.1', 'enrolled_plans.2', 'enrolled_dependents.0']);
    expect(idsOf(await t.admin.get(`/member_id_cards?member=${member.id}`))).toEqual(idsOf(before));
    expect(await cardOfCoverage(t, { enrolledPlans: own.enrolledPlanIds, enrolledDependents: own.enrolledDependentIds })).toEqual([null, null]);
  });

  it("when an enrolled dependent of the member's own dependent sits on another member's enrolled plan, then 400", async () => {
    const member = await createMember(t.admin);
    const other = await createMember(t.admin, { employer: member.employer });
    const theirs = await insertEnrolledCoverage(t, { member: other.id, dependents: 1 });
    const response = await t.admin.post('/member_id_cards', { member: member.id, enrolled_dependents: theirs.enrolledDependentIds });
    expect(fieldPaths(response.body)).toEqual(['enrolled_dependents.0']);
  });

  it('when coverage already has a card, then a new card takes it over and the old one no longer lists it', async () => {
    const member = await createMember(t.admin);
    const coverage = await insertEnrolledCoverage(t, { member: member.id, plans: 2, dependents: 1 });
    const old = await createCard(t.admin, { member: member.id, enrolled_plans: coverage.enrolledPlanIds, enrolled_dependents: coverage.enrolledDependentIds });
    const replacement = await createCard(t.admin, {
      member: member.id,
      enrolled_plans: [coverage.enrolledPlanIds[1]],
      enrolled_dependents: [coverage.enrolledDependentIds[1]],
    });
    expect(replacement).toMatchObject({ enrolled_plans: [coverage.enrolledPlanIds[1]], enrolled_dependents: [coverage.enrolledDependentIds[1]] });
    const oldNow = await t.admin.get(`/member_id_cards/${old.id}`);
    expect(oldNow.body).toMatchObject({ enrolled_plans: [coverage.enrolledPlanIds[0]], enrolled_dependents: [coverage.enrolledDependentIds[0]] });
  });
});

describe('member ID cards: DELETE /member_id_cards/{id}', () => {
  it('when a card is deleted, then 200 {id, object, deleted}, it is 404, its coverage is unassigned and its document stays', async () => {
    const member = await createMember(t.admin);
    const document = await uploadDocument(t.admin, { member: member.id });
    const coverage = await insertEnrolledCoverage(t, { member: member.id, plans: 2, dependents: 2 });
    const card = await createCard(t.admin, {
      member: member.id,
      document: document.id,
      enrolled_plans: coverage.enrolledPlanIds,
      enrolled_dependents: coverage.enrolledDependentIds,
    });
    const untouched = await createCard(t.admin, { member: member.id });

    const response = await t.admin.delete(`/member_id_cards/${card.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: card.id, object: 'member_id_card', deleted: true });
    expect((await t.admin.get(`/member_id_cards/${card.id}`)).status).toBe(404);
    expect((await t.admin.delete(`/member_id_cards/${card.id}`)).status).toBe(404);
    expect(idsOf(await t.admin.get(`/member_id_cards?member=${member.id}`))).toEqual([untouched.id]);

    const cards = await cardOfCoverage(t, { enrolledPlans: coverage.enrolledPlanIds, enrolledDependents: coverage.enrolledDependentIds });
    expect(cards).toEqual(Array(6).fill(null));
    const enrolledPlans = await t.database.db.selectFrom('enrolled_plans').select('id').where('id', 'in', coverage.enrolledPlanIds).execute();
    expect(enrolledPlans).toHaveLength(2);
    const documentNow = await t.admin.get(`/documents/${document.id}`);
    expect(documentNow.status).toBe(200);
    expect(documentNow.body.member).toBe(member.id);
  });

  it('when the member of a card is deleted, then the card goes with them', async () => {
    const member = await createMember(t.admin);
    const coverage = await insertEnrolledCoverage(t, { member: member.id });
    const card = await createCard(t.admin, { member: member.id, enrolled_plans: coverage.enrolledPlanIds });
    expect((await t.admin.delete(`/members/${member.id}`)).status).toBe(200);
    expect((await t.admin.get(`/member_id_cards/${card.id}`)).status).toBe(404);
  });
});

describe('member ID cards: lists', () => {
  it('when listed, then newest first with ?member= and pages, each card with its assignments', async () => {
    const admin = await newProviderAdmin(t, 'cards-list');
    const member = await createMember(admin);
    const other = await createMember(admin, { employer: member.employer });
    const coverage = await insertEnrolledCoverage(t, { member: member.id, client: admin, plans: 3, dependents: 0 });
    const [first, second, third] = await createInSequence(t, 3, (index) =>
      createCard(admin, { member: member.id, enrolled_plans: [coverage.enrolledPlanIds[index]] }),
    );
    t.clock.advance(1000);
    const ofOther = await createCard(admin, { member: other.id });

    const all = await admin.get('/member_id_cards');
    expect(idsOf(all)).toEqual([ofOther.id, third!.id, second!.id, first!.id]);
    const page = await admin.get(`/member_id_cards?member=${member.id}&page_size=2`);
    expect(idsOf(page)).toEqual([third!.id, second!.id]);
    expect(page.body.results.map((card: { enrolled_plans: string[] }) => card.enrolled_plans)).toEqual([
      [coverage.enrolledPlanIds[2]],
      [coverage.enrolledPlanIds[1]],
    ]);
    const next = await admin.get(page.body.next);
    expect(idsOf(next)).toEqual([first!.id]);
    expect(next.body.results[0].enrolled_plans).toEqual([coverage.enrolledPlanIds[0]]);
    expect(next.body.next).toBeNull();
  });

  it('when the list gets an unknown filter, then 400 invalid_request', async () => {
    const response = await t.admin.get('/member_id_cards?employer=er_1');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
  });
});

describe('member ID cards: tenancy and roles', () => {
  it("when another provider's card is addressed, then 404 and it is absent from lists", async () => {
    const other = await newProviderAdmin(t, 'cards-other');
    const theirMember = await createMember(other);
    const theirs = await createCard(other, { member: theirMember.id });
    expect((await t.admin.get(`/member_id_cards/${theirs.id}`)).status).toBe(404);
    expect((await t.admin.delete(`/member_id_cards/${theirs.id}`)).status).toBe(404);
    expect(idsOf(await t.admin.get(`/member_id_cards?member=${theirMember.id}`))).toEqual([]);
    expect((await other.get(`/member_id_cards/${theirs.id}`)).status).toBe(200);
  });

  it("when an employer key reaches for another employer's card, then 404; naming their member or a provider-wide document is a 400", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await createMember(client, { employer: employer.id });
    const otherEmployer = await createEmployer(t.admin);
    const otherMember = await createMember(t.admin, { employer: otherEmployer.id });
    const theirs = await createCard(t.admin, { member: otherMember.id });
    const providerWide = await uploadDocument(t.admin, {});
    const ownDocument = await uploadDocument(client, { member: own.id });
    const ownCoverage = await insertEnrolledCoverage(t, { member: own.id });

    const mine = await createCard(client, { member: own.id, document: ownDocument.id, enrolled_plans: ownCoverage.enrolledPlanIds });
    expect((await client.get(`/member_id_cards/${theirs.id}`)).status).toBe(404);
    expect((await client.delete(`/member_id_cards/${theirs.id}`)).status).toBe(404);
    expect(idsOf(await client.get('/member_id_cards?page_size=100'))).toEqual([mine.id]);
    expect(idsOf(await client.get(`/member_id_cards?member=${otherMember.id}`))).toEqual([]);

    const foreignMember = await client.post('/member_id_cards', { member: otherMember.id });
    expect(foreignMember.status).toBe(400);
    expect(errorFields(foreignMember)).toEqual(['member']);
    const hiddenDocument = await client.post('/member_id_cards', { member: own.id, document: providerWide.id });
    expect(hiddenDocument.status).toBe(400);
    expect(errorFields(hiddenDocument)).toEqual(['document']);
    expect((await t.admin.get(`/member_id_cards/${theirs.id}`)).status).toBe(200);
    expect((await client.delete(`/member_id_cards/${mine.id}`)).status).toBe(200);
  });

  it('when a read-only key writes cards, then 403; it may read them', async () => {
    const member = await createMember(t.admin);
    const card = await createCard(t.admin, { member: member.id });
    const readOnly = await t.client('read_only');
    expect((await readOnly.get(`/member_id_cards/${card.id}`)).status).toBe(200);
    expect((await readOnly.post('/member_id_cards', { member: member.id })).status).toBe(403);
    expect((await readOnly.delete(`/member_id_cards/${card.id}`)).status).toBe(403);
    expect((await t.admin.get(`/member_id_cards/${card.id}`)).status).toBe(200);
  });

  it('when a card is patched, then 405: cards are replaced, not edited; a malformed id is 404', async () => {
    const member = await createMember(t.admin);
    const card = await createCard(t.admin, { member: member.id });
    expect((await t.admin.patch(`/member_id_cards/${card.id}`, { member_number: 'x' })).status).toBe(405);
    expect((await t.admin.get('/member_id_cards/not%20an%20id')).status).toBe(404);
    expect((await t.admin.delete('/member_id_cards/mic_unknown')).status).toBe(404);
  });
});
