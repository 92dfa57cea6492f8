import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { idsOf, newProviderAdmin } from '../helpers/more-factories.ts';

// Clock: 2026-03-02. Members hired 2026-03-01 get a welcome; setting termination_date adds member_terminated.
let t: TestContext;
let admin: ApiClient;
let employerA: { id: string };
let employerB: { id: string };
let memberA: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  admin = await newProviderAdmin(t, 'notifications');
  employerA = await createEmployer(admin, { legal_name: 'A Corp' });
  employerB = await createEmployer(admin, { legal_name: 'B Corp' });
  memberA = await createMember(admin, { employer: employerA.id, hire_date: '2026-03-01' });
  t.clock.advance(1000);
  await createMember(admin, { employer: employerB.id, hire_date: '2026-03-01' });
  t.clock.advance(1000);
  await admin.patch(`/members/${memberA.id}`, { termination_date: '2026-03-31' });
});
afterAll(async () => {
  await t.close();
});

function typesOf(response: { body: { results: { notification_type: string }[] } }) {
  return response.body.results.map((n) => n.notification_type);
}

describe('GET /notifications', () => {
  it('when listed, then every notification has the documented fields, newest first', async () => {
    const response = await admin.get('/notifications');
    expect(response.status).toBe(200);
    expect(typesOf(response)).toEqual(['member_terminated', 'welcome', 'welcome']);
    expect(response.body.results[0]).toEqual({
      id: expect.stringMatching(/^ntf_/),
      notification_type: 'member_terminated',
      related_object_type: 'member',
      related_object_id: memberA.id,
      payload: { member: memberA.id, employer: employerA.id },
      owner: 'employer',
      created_at: expect.any(String),
    });
  });

  it.each([
    ['a single type', 'notification_type=welcome', ['welcome', 'welcome']],
    ['a repeated parameter', 'notification_type=welcome&notification_type=member_terminated', ['member_terminated', 'welcome', 'welcome']],
    ['comma-separated values', 'notification_type=member_terminated,welcome', ['member_terminated', 'welcome', 'welcome']],
    ['a type with no notifications', 'notification_type=enrollment_approved', []],
  ])('when filtered by %s, then only those types come back', async (_case, query, expected) => {
    const response = await admin.get(`/notifications?${query}`);
    expect(response.status).toBe(200);
    expect(typesOf(response)).toEqual(expected);
  });

  it('when filtered by related object id and type, then only notifications about it come back', async () => {
    const aboutA = await admin.get(`/notifications?related_object_id=${memberA.id}`);
    expect(typesOf(aboutA)).toEqual(['member_terminated', 'welcome']);
    const combined = await admin.get(`/notifications?related_object_id=${memberA.id}&notification_type=welcome&related_object_type=member`);
    expect(typesOf(combined)).toEqual(['welcome']);
    expect(idsOf(await admin.get('/notifications?related_object_type=enrollment'))).toEqual([]);
  });

  it.each([
    ['an unknown type', 'notification_type=welcome,nope'],
    ['an unknown related object type', 'related_object_type=planet'],
    ['a malformed related object id', 'related_object_id=not%20an%20id'],
    ['an unknown parameter', 'owner=member'],
  ])('when given %s, then 400 invalid_request', async (_case, query) => {
    const response = await admin.get(`/notifications?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('invalid_request');
  });

  it('when paged, then the filters are kept in the links and nothing repeats', async () => {
    const first = await admin.get('/notifications?notification_type=welcome&page_size=1');
    expect(first.body.results).toHaveLength(1);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('notification_type')).toBe('welcome');
    const second = await admin.get(`${next.pathname}${next.search}`);
    expect(second.body.results).toHaveLength(1);
    expect(second.body.results[0].id).not.toBe(first.body.results[0].id);
    expect(second.body.next).toBeNull();
  });

  it("when an employer key lists notifications, then it sees only its employer's", async () => {
    const employer = await createEmployer(t.admin);
    const other = await createEmployer(t.admin);
    const mine = await createMember(t.admin, { employer: employer.id, hire_date: '2026-03-01' });
    await createMember(t.admin, { employer: other.id, hire_date: '2026-03-01' });
    const client = await t.client('employer', { employer: employer.id });
    const response = await client.get('/notifications');
    expect(response.body.results.map((n: { related_object_id: string }) => n.related_object_id)).toEqual([mine.id]);
  });

  it("when another provider lists notifications, then it never sees this provider's", async () => {
    const other = await newProviderAdmin(t, 'notifications-other');
    expect(idsOf(await other.get(`/notifications?related_object_id=${memberA.id}`))).toEqual([]);
  });

  it('when called without a key, then 401', async () => {
    expect((await t.anonymous.get('/notifications')).status).toBe(401);
  });
});
