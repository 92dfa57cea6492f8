import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { newProviderAdmin } from '../helpers/more-factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's). The world's medical plan is on a manual group: its changes wait until completed by hand.
let t: TestContext;
let w: EnrollmentWorld;
beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
});
afterAll(async () => {
  await t.close();
});

interface Discrepancy {
  member: string;
  line_of_coverage: string;
  discrepancies: string[];
  ours: { plan: string; effective_start: string | null; effective_end: string | null; dependents: string[] } | null;
  carrier: { plan: string; effective_start: string | null; effective_end: string | null; dependents: string[] } | null;
  pending_benefit_changes: string[];
  pending_since: string | null;
  pending_age_days: number | null;
}

async function reconcile(member: string, date?: string): Promise<Discrepancy[]> {
  const query = new URLSearchParams({ member, ...(date === undefined ? {} : { date }) });
  const body = await ok(w.admin.get(`/groups/${w.groups.manualGroup.id}/reconciliation?${query.toString()}`));
  expect(body).toMatchObject({ object: 'reconciliation', group: w.groups.manualGroup.id, date: date ?? '2026-03-02' });
  return body.results as Discrepancy[];
}

/** A member with medical (a child on it) that the carrier has held since 2026-01-01. */
async function heldMember() {
  const member = await createMember(w.admin, { employer: w.employer.id, dob: '1980-01-01', hire_date: '2020-01-01' });
  const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2015-01-01' });
  await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }],
    }),
    201,
  );
  return { member, child };
}

async function completeChangesOf(enrollment: string): Promise<string[]> {
  const changes = (await ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`))) as { id: string; line_of_coverage: string }[];
  const medical = changes.filter((change) => change.line_of_coverage === 'medical');
  for (const change of medical) await ok(w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: t.clock.now().toISOString() }));
  return medical.map((change) => change.id);
}

describe('GET /groups/{id}/reconciliation (docs/decisions.md "Reconciliation")', () => {
  it('when the carrier holds what we cover, then nothing differs', async () => {
    const { member } = await heldMember();
    expect(await reconcile(member.id)).toEqual([]);
  });

  it('when a spouse is added and the change is not delivered yet, then the dependents differ, pending; once delivered, nothing', async () => {
    const { member, child } = await heldMember();
    const spouse = await createDependent(w.admin, { member: member.id, member_relationship: 'spouse', dob: '1981-01-01' });
    const enrollment = await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'qle',
        reason: 'marriage',
        change_date: '2026-03-01',
        effective_start: '2026-03-01',
        enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }, { dependent: spouse.id }] }],
      }),
      201,
    );
    await ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/approve`));

    const [difference, ...others] = await reconcile(member.id);
    expect(others).toEqual([]);
    expect(difference).toMatchObject({
      member: member.id,
      line_of_coverage: 'medical',
      discrepancies: ['dates', 'dependents'],
      ours: { plan: w.plans.medical.id, effective_start: '2026-03-01', effective_end: null, dependents: [child.id, spouse.id] },
      carrier: { plan: w.plans.medical.id, effective_start: '2026-01-01', effective_end: null, dependents: [child.id] },
      pending_since: t.clock.now().toISOString(),
      pending_age_days: 0,
    });
    // The day before the change, the carrier's picture is still right.
    expect(await reconcile(member.id, '2026-02-28')).toEqual([]);

    const completed = await completeChangesOf(enrollment.id);
    expect(difference!.pending_benefit_changes).toEqual(completed);
    expect(await reconcile(member.id)).toEqual([]);
  });

  it('when a new member is enrolled and the carrier has not heard, then the coverage is missing, pending', async () => {
    const member = await createMember(w.admin, { employer: w.employer.id, dob: '1980-01-01', hire_date: '2020-01-01' });
    const enrollment = await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'qle',
        reason: 'lost_coverage',
        change_date: '2026-03-01',
        other_coverage: 'group_health_plan',
        effective_start: '2026-03-01',
        enrolled_plans: [{ plan: w.plans.medical.id }],
      }),
      201,
    );
    await ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${enrollment.id}/approve`));
    expect(await reconcile(member.id)).toEqual([
      expect.objectContaining({ discrepancies: ['missing'], carrier: null, ours: expect.objectContaining({ effective_start: '2026-03-01' }) }),
    ]);
    await completeChangesOf(enrollment.id);
    expect(await reconcile(member.id)).toEqual([]);
  });

  it('when a terminated member is still held by the carrier, then the coverage is extra until the removal is delivered', async () => {
    const { member } = await heldMember();
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-02-15' }));
    const [difference] = await reconcile(member.id);
    expect(difference).toMatchObject({ discrepancies: ['extra'], ours: null, carrier: expect.objectContaining({ effective_start: '2026-01-01' }) });
    expect(difference!.pending_benefit_changes).toHaveLength(1);
    const terminated = ((await ok(w.admin.get(`/enrollments?member=${member.id}`))).results as { id: string; reason: string }[]).find(
      (e) => e.reason === 'terminated',
    )!;
    await completeChangesOf(terminated.id);
    expect(await reconcile(member.id)).toEqual([]);
    // The carrier was told the last day: on it, both sides agree.
    expect(await reconcile(member.id, '2026-02-15')).toEqual([]);
  });

  it('when another provider asks, then it is a 404; a date that is not one is a 400', async () => {
    const other = await newProviderAdmin(t);
    expect((await other.get(`/groups/${w.groups.manualGroup.id}/reconciliation`)).status).toBe(404);
    expect((await w.admin.get(`/groups/${w.groups.manualGroup.id}/reconciliation?date=2026-02-30`)).status).toBe(400);
    expect((await w.admin.get(`/groups/${w.groups.manualGroup.id}/reconciliation?dates=2026-02-01`)).status).toBe(400);
  });
});
