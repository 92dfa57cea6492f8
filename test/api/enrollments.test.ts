import { buildChangeCommit } from '../../src/app.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';
import { approvedEnrollment, createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEmployer } from '../helpers/factories.ts';

// Clock: 2026-03-02. Plan year 2026. The member was hired 2025-01-01.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const fieldPaths = (response: { body: { input_errors?: { field_path: string[] }[] } }) =>
  (response.body.input_errors ?? []).map((error) => error.field_path.join('.'));

describe('creating and pricing', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });

  it('when created, then it is not_started with nested ids, back-references and every field', async () => {
    const enrollment = await createEnrollment(w, {
      enrolled_plans: [
        {
          plan: w.plans.medical.id,
          enrolled_dependents: [{ dependent: w.family.spouse.id }],
          primary_care_provider: { full_name: 'Dr. Ada Lee', provider_id_number: '1234567890' },
        },
      ],
      coverage_waivers: [{ line_of_coverage: 'vision', reason: 'covered_by_spouse' }],
      metadata: { source: 'test' },
    });
    expect(enrollment).toMatchObject({
      id: expect.stringMatching(/^enr_/),
      member: w.member.id,
      employer: w.employer.id,
      category: 'open_enrollment',
      status: 'not_started',
      effective_start: '2026-04-01',
      metadata: { source: 'test' },
      submitted_at: null,
      approved_at: null,
    });
    const [plan] = enrollment.enrolled_plans;
    expect(plan).toMatchObject({
      id: expect.stringMatching(/^ep_/),
      enrollment: enrollment.id,
      plan: w.plans.medical.id,
      effective_start: '2026-04-01',
      effective_end: '2026-12-31',
      eoi_status: 'not_required',
    });
    expect(plan.primary_care_provider).toEqual({
      id: expect.stringMatching(/^pcp_/),
      full_name: 'Dr. Ada Lee',
      is_existing_patient: false,
      provider_id_number: '1234567890',
    });
    expect(plan.enrolled_dependents[0]).toMatchObject({ id: expect.stringMatching(/^ed_/), plan: w.plans.medical.id, dependent: w.family.spouse.id });
    expect(enrollment.coverage_waivers).toEqual([
      { id: expect.any(String), line_of_coverage: 'vision', reason: 'covered_by_spouse', member: w.member.id, dependent: null },
    ]);
    expect((await w.admin.get(`/enrollments/${enrollment.id}`)).body).toEqual(enrollment);
  });

  it.each([
    ['no dependents', [], '512.40', '512.40', '0.00'],
    ['a spouse', ['spouse'], '1080.00', '810.00', '270.00'],
    ['one child', ['child'], '905.15', '678.86', '226.29'],
    ['two children', ['child', 'secondChild'], '1210.00', '726.00', '484.00'],
    ['spouse and child', ['spouse', 'child'], '1650.75', '833.63', '817.12'],
  ] as const)('when priced with %s, then the tier rate and the strategy split apply', async (_case, who, premium, employer, member) => {
    const enrollment = await createEnrollment(w, {
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: who.map((name) => ({ dependent: w.family[name].id })) }],
    });
    expect(enrollment.enrolled_plans[0]).toMatchObject({ premium, employer_contribution: employer, member_contribution: member });
  });

  it('when a plan has no rates, then the client figures are taken as given; with rates they are refused', async () => {
    const noRates = await createEnrollment(w, {
      enrolled_plans: [{ plan: w.plans.vision.id, premium: '12.00', employer_contribution: '10.00', member_contribution: '2.00' }],
    });
    expect(noRates.enrolled_plans[0]).toMatchObject({ premium: '12.00', employer_contribution: '10.00', member_contribution: '2.00' });
    const refused = await w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'open_enrollment',
      enrolled_plans: [{ plan: w.plans.medical.id, premium: '1.00' }],
    });
    expect(refused.status).toBe(400);
    expect(fieldPaths(refused)).toEqual(['enrolled_plans.0.premium']);
  });

  it('when a volume above guaranteed issue is requested, then EOI is pending at the guaranteed amount; approval raises it, denial keeps it', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.life.id, requested_volume: '100000.00' }] });
    expect(enrollment.enrolled_plans[0]).toMatchObject({ eoi_status: 'pending', volume: '50000.00', requested_volume: '100000.00', volume_approved_at: null });
    const approved = await w.admin.patch(`/enrollments/${enrollment.id}`, {
      enrolled_plans: [{ id: enrollment.enrolled_plans[0].id, eoi_status: 'approved' }],
    });
    expect(approved.status).toBe(200);
    expect(approved.body.enrolled_plans[0]).toMatchObject({ eoi_status: 'approved', volume: '100000.00', volume_approved_at: t.clock.now().toISOString() });
    const again = await w.admin.patch(`/enrollments/${enrollment.id}`, { enrolled_plans: [{ id: enrollment.enrolled_plans[0].id, eoi_status: 'approved' }] });
    expect(again.status).toBe(400);

    const other = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.life.id, requested_volume: '75000.00' }] });
    const denied = await w.admin.patch(`/enrollments/${other.id}`, { enrolled_plans: [{ id: other.enrolled_plans[0].id, eoi_status: 'denied' }] });
    expect(denied.body.enrolled_plans[0]).toMatchObject({ eoi_status: 'denied', volume: '50000.00', volume_approved_at: null });

    const within = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.life.id, requested_volume: '50000.00' }] });
    expect(within.enrolled_plans[0]).toMatchObject({ eoi_status: 'not_required', volume: '50000.00' });
  });

  it("when references are unknown or not the member's, then 400 naming them", async () => {
    const other = await createEnrollmentWorld(t);
    const response = await w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'open_enrollment',
      enrolled_plans: [{ plan: other.plans.medical.id }, { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: 'dep_nobody' }] }],
    });
    expect(response.status).toBe(400);
    expect(fieldPaths(response)).toEqual(['enrolled_plans.0.plan', 'enrolled_plans.1.enrolled_dependents.0.dependent']);
    expect((await w.admin.post('/enrollments', { member: 'mem_nobody', category: 'qle' })).status).toBe(400);
  });

  it('when patched while not_started, then elections are replaced and repriced; once pending, edits are 409', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    const patched = await w.admin.patch(`/enrollments/${enrollment.id}`, {
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.spouse.id }] }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.enrolled_plans[0].premium).toBe('1080.00');
    expect((await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`)).status).toBe(200);
    const refused = await w.admin.patch(`/enrollments/${enrollment.id}`, { metadata: { a: '1' } });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('invalid_state');
  });
});

describe('submission rules', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t, { waitingPeriodDays: 30 });
  });

  async function submitErrors(body: Record<string, unknown>) {
    const enrollment = await createEnrollment(w, body);
    const response = await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
    expect(response.status).toBe(400);
    expect((await w.admin.get(`/enrollments/${enrollment.id}`)).body.status).toBe('not_started');
    return fieldPaths(response);
  }

  it('when two plans share a line of coverage, then the second is named', async () => {
    expect(
      await submitErrors({ enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.medicalSilver.id, primary_care_provider: { full_name: 'Dr. B' } }] }),
    ).toEqual(['enrolled_plans.1.plan']);
  });

  it('when a line is both elected and waived, then the waiver is named', async () => {
    expect(await submitErrors({ enrolled_plans: [{ plan: w.plans.medical.id }], coverage_waivers: [{ line_of_coverage: 'medical', reason: 'cost' }] })).toEqual(
      ['coverage_waivers.0.line_of_coverage'],
    );
  });

  it('when coverage starts outside the plan year, then effective_start is named', async () => {
    expect(await submitErrors({ effective_start: '2027-01-01', enrolled_plans: [{ plan: w.plans.medical.id }] })).toContain('enrolled_plans.0.effective_start');
  });

  it('when a child is past the age limit on the coverage start, then that dependent is named', async () => {
    expect(
      await submitErrors({
        enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.child.id }, { dependent: w.family.grownChild.id }] }],
      }),
    ).toEqual(['enrolled_plans.0.enrolled_dependents.1.dependent']);
  });

  it('when a disabled child past the age limit has no current certification on the coverage start, then that dependent is named; certified through it, the child is accepted', async () => {
    const disabled = (extra: Record<string, unknown>) =>
      createDependent(w.admin, { member: w.member.id, member_relationship: 'child', dob: '1990-01-01', has_disability: true, ...extra });
    // Coverage starts 2026-04-01: certified 2025-04-02 counts through 2026-04-01 (last day in); 2025-04-01 through 2026-03-31 (first day out).
    const uncertified = await disabled({});
    const lapsed = await disabled({ disability_certified_on: '2025-04-01' });
    const current = await disabled({ disability_certified_on: '2025-04-02' });
    expect(
      await submitErrors({
        enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [uncertified, lapsed, current].map((d) => ({ dependent: d.id })) }],
      }),
    ).toEqual(['enrolled_plans.0.enrolled_dependents.0.dependent', 'enrolled_plans.0.enrolled_dependents.1.dependent']);
  });

  it('when the plan requires a primary care provider and none is given, then it is named', async () => {
    expect(await submitErrors({ enrolled_plans: [{ plan: w.plans.medicalSilver.id }] })).toEqual(['enrolled_plans.0.primary_care_provider']);
  });

  it('when the effective_start is missing, then it is named', async () => {
    expect(await submitErrors({ effective_start: null, enrolled_plans: [{ plan: w.plans.medical.id, effective_start: '2026-04-01' }] })).toEqual([
      'effective_start',
    ]);
  });

  it('when coverage would start before the waiting period ends, then effective_start is named', async () => {
    const newHire = await w.admin.post('/members', {
      employer: w.employer.id,
      first_name: 'New',
      last_name: 'Hire',
      dob: '1990-01-01',
      address: w.member.address,
      hire_date: '2026-03-15',
    });
    const enrollment = await w.admin.post('/enrollments', {
      member: newHire.body.id,
      category: 'qle',
      reason: 'new_hire',
      change_date: '2026-03-01',
      effective_start: '2026-04-01',
      enrolled_plans: [{ plan: w.plans.medical.id }],
    });
    const response = await w.admin.post(`/enrollments/${enrollment.body.id}/save_and_submit`);
    expect(response.status).toBe(400);
    expect(fieldPaths(response)).toEqual(['enrolled_plans.0.effective_start']);
    expect(response.body.input_errors[0].message).toContain('2026-04-14');
  });

  it.each([
    ['no reason', { reason: null, change_date: '2026-02-20' }, ['reason']],
    ['open_enrollment as the reason', { reason: 'open_enrollment', change_date: '2026-02-20' }, ['reason']],
    ['no change_date', { reason: 'marriage', change_date: null }, ['change_date']],
    ['a marriage 31 days ago', { reason: 'marriage', change_date: '2026-01-30' }, ['change_date']],
    ['a lost coverage 61 days ago', { reason: 'lost_coverage', change_date: '2025-12-31' }, ['change_date']],
  ])('when a qle enrollment has %s, then it is refused', async (_case, qle, expected) => {
    expect(await submitErrors({ category: 'qle', ...qle, enrolled_plans: [{ plan: w.plans.medical.id }] })).toEqual(expected);
  });

  it.each([
    ['a marriage exactly 30 days ago', { reason: 'marriage', change_date: '2026-01-31' }],
    ['a lost Medicaid coverage 60 days ago', { reason: 'lost_coverage', change_date: '2026-01-01', other_coverage: 'medicaid' }],
  ])('when a qle enrollment reports %s, then it is accepted', async (_case, qle) => {
    const enrollment = await createEnrollment(w, { category: 'qle', ...qle, enrolled_plans: [{ plan: w.plans.medical.id }] });
    expect((await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`)).status).toBe(200);
  });
});

describe('lifecycle', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });

  it('when submitted, reopened, submitted and approved, then each step is allowed once and notifications follow', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    expect((await w.admin.post(`/enrollments/${enrollment.id}/approve`)).status).toBe(409);
    const submitted = await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
    expect(submitted.body).toMatchObject({ status: 'pending', submitted_at: t.clock.now().toISOString() });
    expect((await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`)).status).toBe(409);
    expect((await w.admin.post(`/enrollments/${enrollment.id}/reopen`)).body.status).toBe('not_started');
    expect((await w.admin.post(`/enrollments/${enrollment.id}/reopen`)).status).toBe(409);
    t.clock.advance(1000);
    await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
    t.clock.advance(1000);
    const approved = await w.admin.post(`/enrollments/${enrollment.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect((await w.admin.post(`/enrollments/${enrollment.id}/cancel`)).status).toBe(409);
    const notifications = (await w.admin.get(`/notifications?related_object_id=${enrollment.id}`)).body.results;
    expect(notifications.map((n: { notification_type: string; owner: string }) => [n.notification_type, n.owner])).toEqual([
      ['enrollment_approved', 'member'],
      ['enrollment_submitted', 'employer'],
      ['enrollment_submitted', 'employer'],
    ]);
  });

  it('when cancelled from not_started or pending, then it is cancelled and final', async () => {
    const first = await createEnrollment(w, {});
    expect((await w.admin.post(`/enrollments/${first.id}/cancel`)).body.status).toBe('cancelled');
    const second = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    await w.admin.post(`/enrollments/${second.id}/save_and_submit`);
    expect((await w.admin.post(`/enrollments/${second.id}/cancel`)).body.status).toBe('cancelled');
    expect((await w.admin.post(`/enrollments/${second.id}/reopen`)).status).toBe(409);
  });

  it('when ten approvals of one enrollment race, then exactly one succeeds, with one set of changes and one notification', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.vision.id }] });
    await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
    const responses = await Promise.all(Array.from({ length: 10 }, () => w.admin.post(`/enrollments/${enrollment.id}/approve`)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const changes = await w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`);
    expect(changes.body).toHaveLength(2);
    const approvedNotifications = await w.admin.get(`/notifications?related_object_id=${enrollment.id}&notification_type=enrollment_approved`);
    expect(approvedNotifications.body.results).toHaveLength(1);
  });

  it('when a carrier_sync enrollment is created, then it is synced coverage at once', async () => {
    const synced = await createEnrollment(w, {
      category: 'carrier_sync',
      reason: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.vision.id }],
    });
    expect(synced.status).toBe('synced');
  });

  it('when listed with filters, then only matching enrollments come back', async () => {
    const list = await w.admin.get(`/enrollments?member=${w.member.id}&status=cancelled`);
    expect(list.status).toBe(200);
    expect(list.body.results.every((e: { status: string }) => e.status === 'cancelled')).toBe(true);
    expect(list.body.results.length).toBeGreaterThan(0);
  });

  it("when another provider or another employer's key reaches for the enrollment, then 404", async () => {
    const enrollment = await createEnrollment(w, {});
    const stranger = await t.client('admin', { provider: 'enrollment-stranger' });
    expect((await stranger.get(`/enrollments/${enrollment.id}`)).status).toBe(404);
    expect((await stranger.post(`/enrollments/${enrollment.id}/cancel`)).status).toBe(404);
    expect((await stranger.post('/enrollments', { member: w.member.id, category: 'qle' })).status).toBe(400);
  });
});

describe('approval: coverage and benefit changes', () => {
  it('when coverage is added, dropped, switched, given new dependents and a new volume, then each line gets its benefit change and old coverage ends the day before', async () => {
    const w = await createEnrollmentWorld(t);
    const first = await approvedEnrollment(w, {
      effective_start: '2026-04-01',
      enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.vision.id, premium: '10.00' }, { plan: w.plans.life.id, requested_volume: '20000.00' }],
    });
    const initial = (await w.admin.get(`/enrollments/${first.id}/benefit_changes`)).body;
    expect(initial.map((c: { line_of_coverage: string; status: string }) => [c.line_of_coverage, c.status])).toEqual([
      ['medical', 'new'],
      ['vision', 'new'],
      ['life', 'new'],
    ]);
    expect(initial.map((c: { connection_method: string }) => c.connection_method)).toEqual(['manual', 'edi', 'manual']);
    expect(initial[0]).toMatchObject({ needs_manual_completion: true, previous_enrollment_plan: null, next_enrollment_plan: first.enrolled_plans[0].id });
    // edi: waiting for the carrier file, not completed.
    expect(initial[1]).toMatchObject({ needs_manual_completion: false, delivery_state: 'awaiting_file', completed_at: null });

    t.clock.advance(1000);
    const second = await approvedEnrollment(w, {
      category: 'qle',
      reason: 'employment_change',
      change_date: '2026-02-20',
      effective_start: '2026-06-01',
      enrolled_plans: [
        { plan: w.plans.medicalSilver.id, primary_care_provider: { full_name: 'Dr. C' } },
        { plan: w.plans.life.id, requested_volume: '30000.00', enrolled_dependents: [{ dependent: w.family.spouse.id }] },
      ],
      coverage_waivers: [{ line_of_coverage: 'vision', reason: 'covered_by_spouse' }],
    });
    const changes = (await w.admin.get(`/enrollments/${second.id}/benefit_changes`)).body;
    expect(changes.map((c: { line_of_coverage: string; status: string; changes: string[] }) => [c.line_of_coverage, c.status, c.changes])).toEqual([
      ['medical', 'change', ['plan_change', 'contribution_change']],
      ['life', 'change', ['dependent_change', 'volume_change']],
      ['vision', 'removed', []],
    ]);
    expect(changes[0].previous_enrollment_plan).toBe(first.enrolled_plans[0].id);
    const firstAfter = (await w.admin.get(`/enrollments/${first.id}`)).body;
    expect(firstAfter.enrolled_plans.map((p: { effective_end: string }) => p.effective_end)).toEqual(['2026-05-31', '2026-05-31', '2026-05-31']);

    // The member's coverage on any date: before the change, after it, and before any coverage.
    const coverageOn = async (date: string) =>
      (await w.admin.get(`/members/${w.member.id}/coverage?date=${date}`)).body.coverage.map((c: { line_of_coverage: string; plan: string }) => [
        c.line_of_coverage,
        c.plan,
      ]);
    expect(await coverageOn('2026-05-31')).toEqual([
      ['life', w.plans.life.id],
      ['medical', w.plans.medical.id],
      ['vision', w.plans.vision.id],
    ]);
    expect(await coverageOn('2026-06-01')).toEqual([
      ['life', w.plans.life.id],
      ['medical', w.plans.medicalSilver.id],
    ]);
    expect(await coverageOn('2026-03-31')).toEqual([]);
    const life = (await w.admin.get(`/members/${w.member.id}/coverage?date=2026-07-01`)).body.coverage[0];
    expect(life).toMatchObject({ volume: '30000.00', dependents: [w.family.spouse.id], enrollment: second.id });
    expect((await w.admin.get(`/members/${w.member.id}/coverage?date=2026-02-30`)).status).toBe(400);
    expect((await w.admin.get('/members/mem_missing/coverage')).status).toBe(404);
  });

  it("when another provider's admin or another employer's key asks for a member's coverage, then 404, as for a member that does not exist", async () => {
    const w = await createEnrollmentWorld(t);
    await approvedEnrollment(w, { effective_start: '2026-04-01', enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00' }] });
    const path = `/members/${w.member.id}/coverage?date=2026-04-01`;
    expect((await w.admin.get(path)).body.coverage).toHaveLength(1);
    const otherProvider = await t.client('admin', { provider: 'coverage-provider-b' });
    const otherEmployer = await t.client('employer', { employer: (await createEmployer(t.admin)).id });
    for (const client of [otherProvider, otherEmployer]) {
      const response = await client.get(path);
      expect(response.status).toBe(404);
      expect(response.body.type).toBe('not_found');
    }
  });

  it('when approved coverage needs no change, then the change is completed at once and the enrollment is synced', async () => {
    const w = await createEnrollmentWorld(t);
    await approvedEnrollment(w, { effective_start: '2026-04-01', enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00' }] });
    const renewal = await approvedEnrollment(w, {
      category: 'qle',
      reason: 'employment_change',
      change_date: '2026-02-27',
      effective_start: '2026-05-01',
      enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00' }],
    });
    const [change] = (await w.admin.get(`/enrollments/${renewal.id}/benefit_changes`)).body;
    expect(change).toMatchObject({ status: 'no_change', changes: [] });
    expect(change.completed_at).not.toBeNull();
    expect((await w.admin.get(`/enrollments/${renewal.id}`)).body.status).toBe('synced');
  });

  it('when every manual change is completed by a person, then the enrollment is synced', async () => {
    const w = await createEnrollmentWorld(t);
    const enrollment = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    const [change] = (await w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`)).body;
    const completed = await w.admin.patch(`/benefit_changes/${change.id}`, {
      completed_at: t.clock.now().toISOString(),
      memo: 'Entered in carrier portal',
      assignee: 'ops@broker.example',
    });
    expect(completed.status).toBe(200);
    expect((await w.admin.get(`/enrollments/${enrollment.id}`)).body.status).toBe('synced');
  });

  it('when an api carrier accepts the change, then after the worker runs the enrollment is synced; when it rejects, failed with the reason', async () => {
    const w = await createEnrollmentWorld(t);
    const accepted = await approvedEnrollment(w, { enrolled_plans: [{ plan: w.plans.dental.id }] });
    const member2 = await w.admin.post('/members', {
      employer: w.employer.id,
      first_name: 'Ria',
      last_name: 'Q',
      dob: '1990-01-01',
      address: w.member.address,
      hire_date: '2025-01-01',
    });
    const rejectedEnrollment = await w.admin.post('/enrollments', {
      member: member2.body.id,
      category: 'open_enrollment',
      effective_start: '2026-04-01',
      enrolled_plans: [{ plan: w.plans.dentalRejected.id }],
    });
    await w.admin.post(`/enrollments/${rejectedEnrollment.body.id}/save_and_submit`);
    await w.admin.post(`/enrollments/${rejectedEnrollment.body.id}/approve`);
    await runJobs();
    expect((await w.admin.get(`/enrollments/${accepted.id}`)).body.status).toBe('synced');
    const failed = await w.admin.get(`/enrollments/${rejectedEnrollment.body.id}`);
    expect(failed.body.status).toBe('failed');
    const [change] = (await w.admin.get(`/enrollments/${rejectedEnrollment.body.id}/benefit_changes`)).body;
    expect(change.memo).toContain('Member not found in carrier roster');
  });
});

describe('who may see and act on enrollments', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });

  it("when an employer key works on enrollments, then only its employer's members and enrollments exist for it", async () => {
    const mine = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    const other = await createEnrollmentWorld(t);
    const theirs = await createEnrollment(other, {});
    // The employer key belongs to the world's own provider.
    const keyResponse = await w.admin.post('/api_keys', { role: 'employer', employer: w.employer.id });
    const employerKey = new ApiClient(t.baseUrl, keyResponse.body.key);
    expect((await employerKey.get(`/enrollments/${mine.id}`)).status).toBe(200);
    expect((await employerKey.get(`/enrollments/${theirs.id}`)).status).toBe(404);
    expect((await employerKey.post(`/enrollments/${theirs.id}/approve`)).status).toBe(404);
    expect((await employerKey.get(`/enrollments/${theirs.id}/benefit_changes`)).status).toBe(404);
    const list = await employerKey.get('/enrollments?page_size=100');
    expect(list.body.results.every((e: { employer: string }) => e.employer === w.employer.id)).toBe(true);
    const created = await employerKey.post('/enrollments', { member: w.member.id, category: 'open_enrollment', effective_start: '2026-04-01' });
    expect(created.status).toBe(201);
    const refused = await employerKey.post('/enrollments', { member: other.member.id, category: 'open_enrollment' });
    expect(refused.status).toBe(400);
    expect(fieldPaths(refused)).toEqual(['member']);
  });

  it('when a read-only key acts on enrollments, then every write is 403 and reads work', async () => {
    const enrollment = await createEnrollment(w, {});
    const keyResponse = await w.admin.post('/api_keys', { role: 'read_only' });
    const readOnly = new ApiClient(t.baseUrl, keyResponse.body.key);
    expect((await readOnly.get(`/enrollments/${enrollment.id}`)).status).toBe(200);
    expect((await readOnly.get(`/enrollments/${enrollment.id}/benefit_changes`)).status).toBe(200);
    expect((await readOnly.post('/enrollments', { member: w.member.id, category: 'qle' })).status).toBe(403);
    expect((await readOnly.patch(`/enrollments/${enrollment.id}`, {})).status).toBe(403);
    for (const action of ['save_and_submit', 'reopen', 'cancel', 'approve']) {
      expect((await readOnly.post(`/enrollments/${enrollment.id}/${action}`)).status, action).toBe(403);
    }
  });

  it('when an enrollment does not exist, then every route answers 404', async () => {
    expect((await w.admin.get('/enrollments/enr_missing')).status).toBe(404);
    expect((await w.admin.patch('/enrollments/enr_missing', {})).status).toBe(404);
    expect((await w.admin.get('/enrollments/enr_missing/benefit_changes')).status).toBe(404);
    for (const action of ['save_and_submit', 'reopen', 'cancel', 'approve']) {
      expect((await w.admin.post(`/enrollments/enr_missing/${action}`)).status, action).toBe(404);
    }
  });
});

/** Runs every due job once, as the server's worker would. */
async function runJobs() {
  const { JobWorker } = await import('../../src/jobs/job-worker.ts');
  const { jobHandlers } = await import('../../src/jobs/handlers.ts');
  const { carrierJobHandlers } = await import('../../src/modules/carrier-connections/carrier-sync.job.ts');
  const { SandboxCarrierAdapter } = await import('../../src/modules/carrier-connections/sandbox-adapter.ts');
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const worker = new JobWorker({
    db: t.database.db,
    clock: t.clock,
    handlers: jobHandlers([
      carrierJobHandlers({ db: t.database.db, clock: t.clock, changes: buildChangeCommit({ clock: t.clock }), adapter: new SandboxCarrierAdapter() }),
    ]),
    log: silent,
  });
  while ((await worker.runDueJobs()) > 0) {
    // until nothing is due
  }
}
