import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailySweep } from '../../src/app.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { activeWindow, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// A divorce or dissolution ends the former spouse's or partner's coverage (docs/decisions.md "Dependents,
// beneficiaries and pay rates", A divorce or dissolution ends coverage): the relationship_end_date is the last
// day covered, the day after the first day without. A date already past is carried out by the PATCH, a later one
// by the daily sweep of its first day out. The test clock stands at 2026-03-02; the sweep is given its day.

let t: TestContext;
let sweep: DailySweep;
beforeAll(async () => {
  t = await createTestApp();
  sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
});
afterAll(async () => {
  await t.close();
});

interface Enrollment {
  id: string;
  reason: string;
  status: string;
  effective_start: string;
  change_date: string | null;
}

interface BenefitChange {
  line_of_coverage: string;
  status: string;
  changes: string[];
  coverage_start: string | null;
}

/** A member of a new world covered since 2026-01-01 (held by the carriers) on medical and dental with `partner` and a child. */
async function coveredFamily(partner: 'spouse' | 'domestic_partner' | 'civil_union') {
  const w = await createEnrollmentWorld(t);
  const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Pat', dob: '1980-01-01', hire_date: '2020-01-01' });
  const former = await createDependent(w.admin, { member: member.id, member_relationship: partner, first_name: 'Jo', dob: '1982-02-02' });
  const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Kim', dob: '2015-06-01' });
  const both = [{ dependent: former.id }, { dependent: child.id }];
  await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: both },
        { plan: w.plans.dental.id, enrolled_dependents: both },
      ],
    }),
    201,
  );
  return { w, member, former, child };
}

async function dependentsOn(w: EnrollmentWorld, member: string, date: string): Promise<Record<string, string[]>> {
  const coverage = (await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as { line_of_coverage: string; dependents: string[] }[];
  return Object.fromEntries(coverage.map((line) => [line.line_of_coverage, line.dependents]));
}

async function enrollmentsOf(w: EnrollmentWorld, member: string, reason: string): Promise<Enrollment[]> {
  return ((await ok(w.admin.get(`/enrollments?member=${member}&page_size=100`))).results as Enrollment[]).filter((e) => e.reason === reason);
}

async function cobraEventsOf(w: EnrollmentWorld, member: string) {
  return (await ok(w.admin.get(`/cobra_events?member=${member}`))).results as Record<string, unknown>[];
}

async function benefitChangesOf(w: EnrollmentWorld, enrollment: string) {
  return ((await ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`))) as BenefitChange[])
    .map((c) => [c.line_of_coverage, c.status, c.changes.includes('dependent_change'), c.coverage_start])
    .sort();
}

describe('a divorce date already past', () => {
  it("when PATCH records it, then the ex-spouse's coverage ends on that day on every line, the carriers get a change, COBRA records divorce_or_legal_separation; again, and the sweep, change nothing", async () => {
    const { w, member, former, child } = await coveredFamily('spouse');
    const patched = await w.admin.patch(`/dependents/${former.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-02-20' });
    expect(patched.status, patched.text).toBe(200);

    // The divorce date is the last day covered; the day after, the first day without.
    expect(await dependentsOn(w, member.id, '2026-02-20')).toEqual({ medical: [former.id, child.id], dental: [former.id, child.id] });
    expect(await dependentsOn(w, member.id, '2026-02-21')).toEqual({ medical: [child.id], dental: [child.id] });

    const [divorce, ...others] = await enrollmentsOf(w, member.id, 'divorce');
    expect(others).toEqual([]);
    expect(divorce).toMatchObject({ status: 'approved', effective_start: '2026-02-21', change_date: '2026-02-20' });
    // Both carriers are told, each a change of the family's coverage from the first day without the ex-spouse.
    expect(await benefitChangesOf(w, divorce!.id)).toEqual([
      ['dental', 'change', true, '2026-02-21'],
      ['medical', 'change', true, '2026-02-21'],
    ]);
    // 29 U.S.C. 1163(3): the divorce is the qualifying event of the ex-spouse.
    expect(await cobraEventsOf(w, member.id)).toEqual([
      expect.objectContaining({
        event_type: 'divorce_or_legal_separation',
        event_date: '2026-02-20',
        coverage_lost_date: '2026-02-21',
        lines_of_coverage: ['medical', 'dental'],
        dependents: [former.id],
        member_lost_coverage: false,
        enrollment: divorce!.id,
      }),
    ]);

    // Idempotent: the same date again, and the sweep after it, end nothing more.
    await ok(w.admin.patch(`/dependents/${former.id}`, { relationship_end_date: '2026-02-20', first_name: 'Joanne' }));
    await sweep.run('2026-03-02');
    await sweep.run('2026-03-03');
    expect(await enrollmentsOf(w, member.id, 'divorce')).toHaveLength(1);
    expect(await cobraEventsOf(w, member.id)).toHaveLength(1);
  });

  it('when the divorce date is today, then nothing ends yet: the sweep of tomorrow ends the coverage on today', async () => {
    const { w, member, former, child } = await coveredFamily('spouse');
    await ok(w.admin.patch(`/dependents/${former.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-03-02' }));
    expect(await enrollmentsOf(w, member.id, 'divorce')).toEqual([]);
    await sweep.run('2026-03-02');
    expect(await enrollmentsOf(w, member.id, 'divorce')).toEqual([]);
    await sweep.run('2026-03-03');
    expect(await dependentsOn(w, member.id, '2026-03-02')).toEqual({ medical: [former.id, child.id], dental: [former.id, child.id] });
    expect(await dependentsOn(w, member.id, '2026-03-03')).toEqual({ medical: [child.id], dental: [child.id] });
  });
});

describe('a divorce date in the future', () => {
  it('when PATCH records it, then coverage goes on until the sweep of the day after it, which ends it on that date once', async () => {
    const { w, member, former, child } = await coveredFamily('spouse');
    await ok(w.admin.patch(`/dependents/${former.id}`, { relationship_end_date: '2026-04-15' }));
    expect(await enrollmentsOf(w, member.id, 'divorce')).toEqual([]);
    expect(await dependentsOn(w, member.id, '2026-04-16')).toEqual({ medical: [former.id, child.id], dental: [former.id, child.id] });

    expect((await sweep.run('2026-04-15')).relationship_coverage_ended).toBe(0);
    expect((await sweep.run('2026-04-16')).relationship_coverage_ended).toBe(1);
    expect((await sweep.run('2026-04-16')).relationship_coverage_ended).toBe(0);
    expect((await sweep.run('2026-04-17')).relationship_coverage_ended).toBe(0);

    expect(await dependentsOn(w, member.id, '2026-04-15')).toEqual({ medical: [former.id, child.id], dental: [former.id, child.id] });
    expect(await dependentsOn(w, member.id, '2026-04-16')).toEqual({ medical: [child.id], dental: [child.id] });
    const [divorce, ...others] = await enrollmentsOf(w, member.id, 'divorce');
    expect(others).toEqual([]);
    expect(divorce).toMatchObject({ status: 'approved', effective_start: '2026-04-16', change_date: '2026-04-15' });
    expect(await benefitChangesOf(w, divorce!.id)).toEqual([
      ['dental', 'change', true, '2026-04-16'],
      ['medical', 'change', true, '2026-04-16'],
    ]);
    expect(await cobraEventsOf(w, member.id)).toEqual([
      expect.objectContaining({
        event_type: 'divorce_or_legal_separation',
        event_date: '2026-04-15',
        coverage_lost_date: '2026-04-16',
        dependents: [former.id],
      }),
    ]);
  });

  it('when the date is cleared before it took effect, then nothing ends; when moved later, coverage ends on the later date', async () => {
    const cleared = await coveredFamily('spouse');
    await ok(cleared.w.admin.patch(`/dependents/${cleared.former.id}`, { relationship_end_date: '2026-05-05' }));
    const undone = await cleared.w.admin.patch(`/dependents/${cleared.former.id}`, { relationship_end_date: null });
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.relationship_end_date).toBeNull();

    const moved = await coveredFamily('spouse');
    await ok(moved.w.admin.patch(`/dependents/${moved.former.id}`, { relationship_end_date: '2026-05-05' }));
    await ok(moved.w.admin.patch(`/dependents/${moved.former.id}`, { relationship_end_date: '2026-05-20' }));

    await sweep.run('2026-05-06');
    await sweep.run('2026-05-21');
    const family = (w: { former: { id: string }; child: { id: string } }) => ({ medical: [w.former.id, w.child.id], dental: [w.former.id, w.child.id] });
    expect(await dependentsOn(cleared.w, cleared.member.id, '2026-06-01')).toEqual(family(cleared));
    expect(await enrollmentsOf(cleared.w, cleared.member.id, 'divorce')).toEqual([]);
    expect(await cobraEventsOf(cleared.w, cleared.member.id)).toEqual([]);

    expect(await dependentsOn(moved.w, moved.member.id, '2026-05-20')).toEqual(family(moved));
    expect(await dependentsOn(moved.w, moved.member.id, '2026-05-21')).toEqual({ medical: [moved.child.id], dental: [moved.child.id] });
    expect(await enrollmentsOf(moved.w, moved.member.id, 'divorce')).toEqual([
      expect.objectContaining({ effective_start: '2026-05-21', change_date: '2026-05-20' }),
    ]);
  });
});

describe('a domestic partnership dissolved', () => {
  it.each(['domestic_partner', 'civil_union'] as const)(
    "when a %s's dissolution date is recorded, then the coverage ends on it and the carriers are told, with no COBRA event (not a qualified beneficiary, 29 U.S.C. 1167(3))",
    async (partner) => {
      const { w, member, former, child } = await coveredFamily(partner);
      await ok(w.admin.patch(`/dependents/${former.id}`, { relationship_end_date: '2026-02-14' }));
      expect(await dependentsOn(w, member.id, '2026-02-14')).toEqual({ medical: [former.id, child.id], dental: [former.id, child.id] });
      expect(await dependentsOn(w, member.id, '2026-02-15')).toEqual({ medical: [child.id], dental: [child.id] });
      expect(await enrollmentsOf(w, member.id, 'divorce')).toEqual([]);
      const [dissolution, ...others] = await enrollmentsOf(w, member.id, 'domestic_partnership');
      expect(others).toEqual([]);
      expect(dissolution).toMatchObject({ status: 'approved', effective_start: '2026-02-15', change_date: '2026-02-14' });
      expect(await benefitChangesOf(w, dissolution!.id)).toEqual([
        ['dental', 'change', true, '2026-02-15'],
        ['medical', 'change', true, '2026-02-15'],
      ]);
      expect(await cobraEventsOf(w, member.id)).toEqual([]);
    },
  );
});

const at = (date: string) => t.clock.set(`${date}T15:00:00.000Z`);

describe("every coverage of the ex-spouse ends, a later plan year's too", () => {
  it('when the 2027 election already covers the spouse, then the divorce ends the 2026 coverage on its date and the 2027 coverage from its first day, with one COBRA event', async () => {
    at('2026-03-02');
    const w = await createEnrollmentWorld(t);
    const medical2027 = await ok(w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31' }), 201);
    const member = await createMember(w.admin, { employer: w.employer.id, dob: '1988-08-08', hire_date: '2020-01-01' });
    const spouse = await createDependent(w.admin, { member: member.id, member_relationship: 'spouse', dob: '1989-09-09' });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }] }],
      }),
      201,
    );
    at('2026-11-02');
    await activeWindow(w.admin, {
      employer: w.employer.id,
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      renewal_date: '2027-01-01',
      plans: [medical2027.id],
    });
    const openEnrollment = await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'open_enrollment',
        reason: 'open_enrollment',
        effective_start: '2027-01-01',
        enrolled_plans: [{ plan: medical2027.id, enrolled_dependents: [{ dependent: spouse.id }] }],
      }),
      201,
    );
    await ok(w.admin.post(`/enrollments/${openEnrollment.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${openEnrollment.id}/approve`));
    expect((await dependentsOn(w, member.id, '2027-01-01')).medical).toEqual([spouse.id]);

    at('2026-11-05');
    await ok(w.admin.patch(`/dependents/${spouse.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-10-31' }));
    const medicalOn = async (date: string) => (await dependentsOn(w, member.id, date)).medical;
    expect([await medicalOn('2026-10-31'), await medicalOn('2026-11-01'), await medicalOn('2027-01-01')]).toEqual([[spouse.id], [], []]);
    const divorces = await enrollmentsOf(w, member.id, 'divorce');
    expect(divorces.map((e) => [e.effective_start, e.change_date]).sort()).toEqual([
      ['2026-11-01', '2026-10-31'],
      ['2027-01-01', '2026-10-31'],
    ]);
    expect(await cobraEventsOf(w, member.id)).toEqual([
      expect.objectContaining({
        event_type: 'divorce_or_legal_separation',
        event_date: '2026-10-31',
        coverage_lost_date: '2026-11-01',
        dependents: [spouse.id],
      }),
    ]);
    // The sweep after it finds nothing left.
    expect((await sweep.run('2026-11-06')).relationship_coverage_ended).toBe(0);
    at('2026-03-02');
  });
});

describe('later plan years respect the end date (one rule with renewal: dependents/spouse-rules.ts)', () => {
  it('when a marriage reaches forward to the approved 2027 election, then a spouse whose relationship ends before 2027 is not added there; one without an end date is', async () => {
    const story = async (relationshipEndDate: string | null) => {
      at('2026-03-02');
      const w = await createEnrollmentWorld(t);
      const medical2027 = await ok(w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31' }), 201);
      const member = await createMember(w.admin, { employer: w.employer.id, dob: '1988-08-08', hire_date: '2020-01-01' });
      await ok(
        w.admin.post('/enrollments', {
          member: member.id,
          category: 'carrier_sync',
          effective_start: '2026-01-01',
          enrolled_plans: [{ plan: w.plans.medical.id }],
        }),
        201,
      );
      at('2026-11-02');
      await activeWindow(w.admin, {
        employer: w.employer.id,
        start_date: '2026-11-01',
        end_date: '2026-11-30',
        renewal_date: '2027-01-01',
        plans: [medical2027.id],
      });
      const openEnrollment = await ok(
        w.admin.post('/enrollments', {
          member: member.id,
          category: 'open_enrollment',
          reason: 'open_enrollment',
          effective_start: '2027-01-01',
          enrolled_plans: [{ plan: medical2027.id }],
        }),
        201,
      );
      await ok(w.admin.post(`/enrollments/${openEnrollment.id}/save_and_submit`));
      await ok(w.admin.post(`/enrollments/${openEnrollment.id}/approve`));
      const spouse = await createDependent(w.admin, {
        member: member.id,
        member_relationship: 'spouse',
        dob: '1989-09-09',
        relationship_end_date: relationshipEndDate,
      });
      const marriage = await ok(
        w.admin.post('/enrollments', {
          member: member.id,
          category: 'qle',
          reason: 'marriage',
          change_date: '2026-10-20',
          effective_start: '2026-11-01',
          enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }] }],
        }),
        201,
      );
      await ok(w.admin.post(`/enrollments/${marriage.id}/save_and_submit`));
      await ok(w.admin.post(`/enrollments/${marriage.id}/approve`));
      const on = async (date: string) => (await dependentsOn(w, member.id, date)).medical;
      const covered = { '2026-11-01': await on('2026-11-01'), '2027-01-01': await on('2027-01-01') };
      at('2026-03-02');
      return { spouse: spouse.id, covered };
    };

    const ending = await story('2026-12-31');
    expect(ending.covered).toEqual({ '2026-11-01': [ending.spouse], '2027-01-01': [] });
    const lasting = await story(null);
    expect(lasting.covered).toEqual({ '2026-11-01': [lasting.spouse], '2027-01-01': [lasting.spouse] });
  });
});
