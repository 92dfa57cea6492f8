import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createMember } from '../helpers/factories.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';

// The test clock stands at 2026-03-02T15:00:00Z: "today" is 2026-03-02.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function history(memberId: string) {
  const response = await t.admin.get(`/members/${memberId}/employment_history`);
  expect(response.status).toBe(200);
  return response.body.results as { event_type: string; effective_date: string; details: Record<string, unknown> }[];
}

describe('employment history (docs/decisions.md "Employment history")', () => {
  it('when a member is created, then the history holds the hire, and the original hire date is the hire date', async () => {
    const member = await createMember(t.admin, { hire_date: '2024-01-15' });
    expect(member).toMatchObject({ original_hire_date: '2024-01-15', termination_reason: null, date_of_death: null });
    expect(await history(member.id)).toEqual([expect.objectContaining({ event_type: 'hire', effective_date: '2024-01-15', details: {} })]);
  });

  it('when hours, status and a termination with its reason are recorded, then each is an entry, in order', async () => {
    const member = await createMember(t.admin, { hours_worked: 40, employment_status: 'full_time' });
    expect((await t.admin.patch(`/members/${member.id}`, { hours_worked: 20, employment_status: 'part_time' })).status).toBe(200);
    const terminated = await t.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-31', termination_reason: 'layoff' });
    expect(terminated.status).toBe(200);
    expect(terminated.body).toMatchObject({ termination_date: '2026-03-31', termination_reason: 'layoff' });
    expect(await history(member.id)).toEqual([
      expect.objectContaining({ event_type: 'hire' }),
      expect.objectContaining({ event_type: 'change_of_hours', effective_date: '2026-03-02', details: { hours_before: 40, hours_after: 20 } }),
      expect.objectContaining({
        event_type: 'change_of_status',
        effective_date: '2026-03-02',
        details: { status_before: 'full_time', status_after: 'part_time' },
      }),
      expect.objectContaining({ event_type: 'termination', effective_date: '2026-03-31', details: { termination_reason: 'layoff' } }),
    ]);
    const withdrawn = await t.admin.patch(`/members/${member.id}`, { termination_date: null });
    expect(withdrawn.body).toMatchObject({ termination_date: null, termination_reason: null });
    expect((await history(member.id)).at(-1)).toMatchObject({
      event_type: 'termination',
      effective_date: '2026-03-31',
      details: { termination_reason: 'layoff', withdrawn: true },
    });
  });

  it('when a hire date is corrected before any rehire, then the original hire date follows it', async () => {
    const member = await createMember(t.admin, { hire_date: '2024-01-15' });
    const patched = await t.admin.patch(`/members/${member.id}`, { hire_date: '2024-01-08' });
    expect(patched.body).toMatchObject({ hire_date: '2024-01-08', original_hire_date: '2024-01-08' });
    expect((await history(member.id)).at(-1)).toMatchObject({ event_type: 'hire', effective_date: '2024-01-08', details: { corrected_from: '2024-01-15' } });
  });

  it('when HR records only a date of death, then the employment ends that day by death', async () => {
    const member = await createMember(t.admin);
    const patched = await t.admin.patch(`/members/${member.id}`, { date_of_death: '2026-02-20' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ date_of_death: '2026-02-20', termination_date: '2026-02-20', termination_reason: 'death' });
  });

  it('when HR records a termination with reason death, then the date of death is the termination date', async () => {
    const member = await createMember(t.admin, { termination_date: '2026-02-20', termination_reason: 'death' });
    expect(member).toMatchObject({ date_of_death: '2026-02-20', termination_reason: 'death' });
  });

  it.each([
    [{ termination_reason: 'voluntary' }, ['termination_reason']],
    [{ date_of_death: '2026-03-03' }, ['date_of_death']],
    [{ date_of_death: '1988-04-11' }, ['termination_date', 'date_of_death']],
    [{ date_of_death: '2026-02-20', termination_date: '2026-02-21' }, ['termination_date']],
    [{ date_of_death: '2026-02-20', termination_date: '2026-02-20', termination_reason: 'retirement' }, ['termination_reason']],
    [{ termination_reason: 'fired' }, ['termination_reason']],
  ])('when a member is written with %j, then it is a 400 on %j and nothing is written', async (fields, paths) => {
    const member = await createMember(t.admin);
    const response = await t.admin.patch(`/members/${member.id}`, fields);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(paths);
    expect(await history(member.id)).toHaveLength(1);
  });

  it('when a member died after leaving, then the termination keeps its own reason', async () => {
    const member = await createMember(t.admin, { termination_date: '2026-01-31', termination_reason: 'retirement' });
    const patched = await t.admin.patch(`/members/${member.id}`, { date_of_death: '2026-02-20' });
    expect(patched.body).toMatchObject({ termination_date: '2026-01-31', termination_reason: 'retirement', date_of_death: '2026-02-20' });
  });

  it("when another provider asks for a member's history, then it is a 404", async () => {
    const member = await createMember(t.admin);
    const other = await newProviderAdmin(t);
    expect((await other.get(`/members/${member.id}/employment_history`)).status).toBe(404);
  });
});
