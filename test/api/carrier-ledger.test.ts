import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierBelief } from '../../src/modules/carrier-ledger/carrier-ledger.ts';
import { createCarrier, createGroup, createMember } from '../helpers/factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { activeWindow, createEnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02, moved to 2026-11-02 for the 2027 open enrollment.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Change {
  line_of_coverage: string;
  status: string;
  changes: string[];
  previous_enrollment_plan: string | null;
  next_enrollment_plan: string | null;
  coverage_start: string | null;
  coverage_end: string | null;
  connection_method: string;
}

/**
 * A 2026 medical plan of carrier A ("Aetna", the world's manual group) renewed into 2027, and a 2027 medical
 * plan of carrier B ("Kaiser", a group of its own), both offered at the 2027 open enrollment; members covered
 * all 2026 on carrier A's plan (coverage the carrier holds: carrier_sync).
 */
async function planYearWorld() {
  const w = await createEnrollmentWorld(t);
  const aetna2027 = await ok(w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31' }), 201);
  const kaiser = await createCarrier(w.admin, { legal_name: 'Kaiser Health Co' });
  const kaiserGroup = await createGroup(w.admin, { employer: w.employer.id, carrier: kaiser.id, connection_method: 'manual', group_number: 'K-1' });
  const kaiser2027 = await createPlan(w.admin, {
    group: kaiserGroup.id,
    plan_name: 'Kaiser HMO 2027',
    line_of_coverage: 'medical',
    effective_start: '2027-01-01',
    effective_end: '2027-12-31',
    premium_type: 'composite',
    composite_rates: compositeRates(),
  });
  const configuration = await createPlanConfiguration(w.admin, { plan: kaiser2027.id, waiting_period_days: 0 });
  await ok(w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
  const coveredMember = async (first_name: string) => {
    const member = await createMember(w.admin, { employer: w.employer.id, first_name, dob: '1980-01-01', hire_date: '2020-01-01' });
    const synced = await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id }],
      }),
      201,
    );
    return { member, enrolledPlan: synced.enrolled_plans[0].id as string };
  };
  const switcher = await coveredMember('Switcher');
  const waiver = await coveredMember('Waiver');
  const window = await activeWindow(w.admin, {
    employer: w.employer.id,
    start_date: '2026-11-01',
    end_date: '2026-11-30',
    renewal_date: '2027-01-01',
    plans: [aetna2027.id, kaiser2027.id],
  });
  return { w, aetna2027, kaiserGroup, kaiser2027, switcher, waiver, window };
}

async function approvedOpenEnrollment(w: Awaited<ReturnType<typeof planYearWorld>>['w'], member: string, body: Record<string, unknown>) {
  const created = await ok(
    w.admin.post('/enrollments', { member, category: 'open_enrollment', reason: 'open_enrollment', effective_start: '2027-01-01', ...body }),
    201,
  );
  await ok(w.admin.post(`/enrollments/${created.id}/save_and_submit`));
  await ok(w.admin.post(`/enrollments/${created.id}/approve`));
  return (await ok(w.admin.get(`/enrollments/${created.id}/benefit_changes`))) as Change[];
}

describe('plan-year open enrollment: a carrier holds coverage across the renewal until told otherwise', () => {
  it('when a member switches to another carrier at the renewal, then the old carrier is told the coverage ends on the last day of the plan year, and the new one gets an add', async () => {
    const r = await planYearWorld();
    t.clock.set('2026-11-02T15:00:00.000Z');
    try {
      const changes = await approvedOpenEnrollment(r.w, r.switcher.member.id, { enrolled_plans: [{ plan: r.kaiser2027.id }] });
      expect(changes.map((c) => [c.line_of_coverage, c.status, c.previous_enrollment_plan, c.coverage_start, c.coverage_end])).toEqual([
        ['medical', 'removed', r.switcher.enrolledPlan, '2026-01-01', '2026-12-31'],
        ['medical', 'new', null, '2027-01-01', '2027-12-31'],
      ]);
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
  });

  it('when a member waives the line at the renewal, then its carrier is told the coverage ends on the last day of the plan year', async () => {
    const r = await planYearWorld();
    t.clock.set('2026-11-02T15:00:00.000Z');
    try {
      const changes = await approvedOpenEnrollment(r.w, r.waiver.member.id, {
        coverage_waivers: [{ line_of_coverage: 'medical', reason: 'covered_by_spouse' }],
      });
      expect(changes.map((c) => [c.line_of_coverage, c.status, c.previous_enrollment_plan, c.coverage_end, c.connection_method])).toEqual([
        ['medical', 'removed', r.waiver.enrolledPlan, '2026-12-31', 'manual'],
      ]);
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
  });

  it('when a member elects the successor plan, then its carrier gets a change, never an add or a termination', async () => {
    const r = await planYearWorld();
    t.clock.set('2026-11-02T15:00:00.000Z');
    try {
      const changes = await approvedOpenEnrollment(r.w, r.switcher.member.id, { enrolled_plans: [{ plan: r.aetna2027.id }] });
      expect(changes.map((c) => [c.line_of_coverage, c.status, c.previous_enrollment_plan])).toEqual([['medical', 'change', r.switcher.enrolledPlan]]);
      expect(changes[0]!.changes).not.toContain('plan_change');
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
  });
});

describe('carrierBelief: what carrier group G believes about member M on day D', () => {
  it('when changes reach the carrier (completed by hand), then its belief follows them; before that it believes what it held', async () => {
    const r = await planYearWorld();
    const aetnaGroup = r.w.groups.manualGroup.id;
    const belief = async (groupId: string, day: string) =>
      (await carrierBelief(t.database.db, { providerId: await providerOf(r.w), groupId, memberId: r.switcher.member.id, day })).map((line) => [
        line.lineOfCoverage,
        line.planId,
        line.start,
        line.end,
      ]);
    // Held before the year: told (carrier_sync), open-ended across the renewal.
    expect(await belief(aetnaGroup, '2025-12-31')).toEqual([]);
    expect(await belief(aetnaGroup, '2026-01-01')).toEqual([['medical', r.w.plans.medical.id, '2026-01-01', null]]);
    expect(await belief(aetnaGroup, '2027-06-01')).toEqual([['medical', r.w.plans.medical.id, '2026-01-01', null]]);

    t.clock.set('2026-11-02T15:00:00.000Z');
    try {
      const changes = await approvedOpenEnrollment(r.w, r.switcher.member.id, { enrolled_plans: [{ plan: r.kaiser2027.id }] });
      // Recorded, not yet told: the carriers believe what they held.
      expect(await belief(aetnaGroup, '2027-01-01')).toEqual([['medical', r.w.plans.medical.id, '2026-01-01', null]]);
      expect(await belief(r.kaiserGroup.id, '2027-01-01')).toEqual([]);
      const enrollmentChanges = (await ok(r.w.admin.get(`/enrollments?member=${r.switcher.member.id}&status=approved`))).results[0];
      const stored = await ok(r.w.admin.get(`/enrollments/${enrollmentChanges.id}/benefit_changes`));
      expect(stored).toHaveLength(changes.length);
      for (const change of stored) await ok(r.w.admin.patch(`/benefit_changes/${change.id}`, { completed_at: '2026-11-02T15:00:00.000Z' }));
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
    // Told: carrier A covers through 2026-12-31 (last day in) and not on 2027-01-01 (first day out); carrier B from 2027-01-01.
    expect(await belief(aetnaGroup, '2026-12-31')).toEqual([['medical', r.w.plans.medical.id, '2026-01-01', '2026-12-31']]);
    expect(await belief(aetnaGroup, '2027-01-01')).toEqual([]);
    expect(await belief(r.kaiserGroup.id, '2026-12-31')).toEqual([]);
    expect(await belief(r.kaiserGroup.id, '2027-01-01')).toEqual([['medical', r.kaiser2027.id, '2027-01-01', null]]);
  });
});

async function providerOf(w: Awaited<ReturnType<typeof planYearWorld>>['w']): Promise<string> {
  const row = await t.database.db.selectFrom('employers').select('provider_id').where('id', '=', w.employer.id).executeTakeFirstOrThrow();
  return row.provider_id;
}
