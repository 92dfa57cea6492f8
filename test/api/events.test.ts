import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createCarrier, createEmployer, createMember } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function eventsOf(objectId: string) {
  const rows = await t.database.db.selectFrom('events').selectAll().where('object_id', '=', objectId).orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({ event_type: row.event_type, employer: row.employer_id, data: typeof row.data === 'string' ? (JSON.parse(row.data) as unknown) : (row.data as unknown) }));
}

describe('events of simple resources', () => {
  it('when a carrier, an employer and a member are created, updated and deleted, then each change has its event', async () => {
    const carrier = await createCarrier(t.admin);
    await t.admin.patch(`/carriers/${carrier.id}`, { trade_name: 'x' });
    expect(await eventsOf(carrier.id)).toEqual([
      { event_type: 'carrier.created', employer: null, data: {} },
      { event_type: 'carrier.updated', employer: null, data: {} },
    ]);
    const employer = await createEmployer(t.admin);
    await t.admin.patch(`/employers/${employer.id}`, { trade_name: 'x' });
    expect((await eventsOf(employer.id)).map((e) => e.event_type)).toEqual(['employer.created', 'employer.updated']);
    const member = await createMember(t.admin, { employer: employer.id });
    await t.admin.patch(`/members/${member.id}`, { job_title: 'Nurse' });
    expect((await t.admin.delete(`/members/${member.id}`)).status).toBe(200);
    expect(await eventsOf(member.id)).toEqual(
      ['member.created', 'member.updated', 'member.deleted'].map((event_type) => ({ event_type, employer: employer.id, data: { employer: employer.id } })),
    );
  });
});
