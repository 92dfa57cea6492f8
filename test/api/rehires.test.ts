import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { errorFields } from '../helpers/more-factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's). The worlds' plans run 2026-01-01..2026-12-31.
let t: TestContext;
let w: EnrollmentWorld;
let waiting: EnrollmentWorld;
beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
  waiting = await createEnrollmentWorld(t, { waitingPeriodDays: 30 });
});
afterAll(async () => {
  await t.close();
});

interface Coverage {
  line_of_coverage: string;
  plan: string;
  effective_start: string;
  effective_end: string | null;
  dependents: string[];
}

async function coverageOn(world: EnrollmentWorld, member: string, date: string): Promise<Coverage[]> {
  return (await ok(world.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as Coverage[];
}

/** A member with medical (a child on it) and dental held since 2026-01-01, terminated on `terminationDate` (past: applied at once). */
async function terminatedMember(world: EnrollmentWorld, terminationDate: string) {
  const member = await createMember(world.admin, { employer: world.employer.id, dob: '1980-01-01', hire_date: '2020-01-01' });
  const child = await createDependent(world.admin, { member: member.id, member_relationship: 'child', dob: '2015-01-01' });
  await ok(
    world.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: world.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }, { plan: world.plans.dental.id }],
    }),
    201,
  );
  await ok(world.admin.patch(`/members/${member.id}`, { termination_date: terminationDate, termination_reason: 'voluntary' }));
  return { member, child };
}

describe('rehires (docs/decisions.md "Employment history", Rehires)', () => {
  it('when a member is rehired 15 days after a termination that took effect, then the prior elections go on from the rehire date and the carriers are told', async () => {
    const { member, child } = await terminatedMember(w, '2026-02-10');
    expect(await coverageOn(w, member.id, '2026-02-11')).toEqual([]);

    const rehired = await ok(w.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-02-25' }));
    expect(rehired).toMatchObject({
      hire_date: '2026-02-25',
      original_hire_date: '2020-01-01',
      termination_date: null,
      termination_reason: null,
      rehire_rule: 'reinstated',
    });

    expect(await coverageOn(w, member.id, '2026-02-24')).toEqual([]);
    const back = await coverageOn(w, member.id, '2026-02-25');
    expect(back.map((c) => [c.line_of_coverage, c.plan, c.effective_start, c.effective_end, c.dependents]).sort()).toEqual([
      ['dental', w.plans.dental.id, '2026-02-25', '2026-12-31', []],
      ['medical', w.plans.medical.id, '2026-02-25', '2026-12-31', [child.id]],
    ]);
    const enrollments = (await ok(w.admin.get(`/enrollments?member=${member.id}&page_size=100`))).results as {
      id: string;
      reason: string;
      status: string;
      effective_start: string;
    }[];
    const reinstatement = enrollments.find((e) => e.reason === 'rehire')!;
    expect(reinstatement).toMatchObject({ status: 'approved', effective_start: '2026-02-25' });
    const changes = (await ok(w.admin.get(`/enrollments/${reinstatement.id}/benefit_changes`))) as {
      line_of_coverage: string;
      status: string;
      coverage_start: string;
    }[];
    expect(changes.map((c) => [c.line_of_coverage, c.status, c.coverage_start])).toEqual([
      ['medical', 'new', '2026-02-25'],
      ['dental', 'new', '2026-02-25'],
    ]);
    const history = (await ok(w.admin.get(`/members/${member.id}/employment_history`))).results as {
      event_type: string;
      effective_date: string;
      details: object;
    }[];
    expect(history.map((e) => e.event_type)).toEqual(['hire', 'termination', 'rehire']);
    expect(history[2]).toMatchObject({
      effective_date: '2026-02-25',
      details: { previous_termination_date: '2026-02-10', days_away: 15, rehire_rule: 'reinstated', elections: 'reinstate' },
    });
  });

  it('when a rehire is recorded before the termination took effect, then the termination is withdrawn and coverage goes on without a break', async () => {
    const { member } = await terminatedMember(w, '2026-03-20');
    const rehired = await ok(w.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-03-30' }));
    expect(rehired).toMatchObject({ rehire_rule: 'reinstated', termination_date: null });
    expect((await coverageOn(w, member.id, '2026-03-25')).map((c) => [c.line_of_coverage, c.effective_start]).sort()).toEqual([
      ['dental', '2026-01-01'],
      ['medical', '2026-01-01'],
    ]);
    const enrollments = (await ok(w.admin.get(`/enrollments?member=${member.id}&page_size=100`))).results as { reason: string }[];
    expect(enrollments.map((e) => e.reason)).toEqual(['carrier_sync']);
  });

  it('when the member elects anew, then nothing is reinstated and a rehire enrollment may start on the rehire date (no new waiting period)', async () => {
    const { member } = await terminatedMember(waiting, '2026-02-10');
    const rehired = await ok(waiting.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-02-25', elections: 'elect_anew' }));
    expect(rehired.rehire_rule).toBe('reinstated');
    expect(await coverageOn(waiting, member.id, '2026-02-25')).toEqual([]);
    const enrollment = await ok(
      waiting.admin.post('/enrollments', {
        member: member.id,
        category: 'qle',
        reason: 'rehire',
        change_date: '2026-02-25',
        effective_start: '2026-02-25',
        enrolled_plans: [{ plan: waiting.plans.dental.id }],
      }),
      201,
    );
    await ok(waiting.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
  });

  it('when a member is rehired 31 days after (first day out of reinstatement), then they are a continuing employee: no reinstatement, no new waiting period', async () => {
    const { member } = await terminatedMember(waiting, '2026-01-15');
    const rehired = await ok(waiting.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-02-15' }));
    expect(rehired.rehire_rule).toBe('continuing_employee');
    expect(await coverageOn(waiting, member.id, '2026-02-15')).toEqual([]);
    const enrollment = await ok(
      waiting.admin.post('/enrollments', {
        member: member.id,
        category: 'qle',
        reason: 'rehire',
        change_date: '2026-02-15',
        effective_start: '2026-02-15',
        enrolled_plans: [{ plan: waiting.plans.dental.id }],
      }),
      201,
    );
    await ok(waiting.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
  });

  it('when a member is rehired exactly 30 days after (last day in), then prior elections are reinstated', async () => {
    const { member } = await terminatedMember(w, '2026-01-20');
    const rehired = await ok(w.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-02-19' }));
    expect(rehired.rehire_rule).toBe('reinstated');
    expect((await coverageOn(w, member.id, '2026-02-19')).map((c) => c.line_of_coverage).sort()).toEqual(['dental', 'medical']);
  });

  it('when a member comes back after 13 weeks or more, then they are a new hire: a new waiting period, unless an admin waives it where the configuration allows', async () => {
    const member = await createMember(waiting.admin, { employer: waiting.employer.id, hire_date: '2020-01-01', termination_date: '2025-11-01' });
    const rehired = await ok(waiting.admin.post(`/members/${member.id}/rehire`, { rehire_date: '2026-02-20', hours_worked: 40 }));
    expect(rehired).toMatchObject({ rehire_rule: 'new_hire', hire_date: '2026-02-20', original_hire_date: '2020-01-01', hours_worked: 40 });
    const body = {
      member: member.id,
      category: 'qle',
      reason: 'rehire',
      change_date: '2026-02-20',
      effective_start: '2026-02-20',
      enrolled_plans: [{ plan: waiting.plans.vision.id }],
    };
    const refused = await ok(waiting.admin.post('/enrollments', body), 201);
    const submitted = await waiting.admin.post(`/enrollments/${refused.id}/save_and_submit`);
    expect(submitted.status).toBe(400);
    expect(submitted.text).toContain('expected 2026-03-22');

    // An override alone does not waive a waiting period...
    const overridden = await ok(
      waiting.admin.post('/enrollments', { ...body, rules_override: { reason: 'Returning manager, waiting period waived by HR' } }),
      201,
    );
    expect((await waiting.admin.post(`/enrollments/${overridden.id}/save_and_submit`)).status).toBe(400);
    // ...unless the configuration allows it.
    const configuration = (await ok(waiting.admin.get(`/plan_configurations?plan=${waiting.plans.vision.id}`))).results[0];
    expect(configuration.waiting_period_waiver_allowed).toBe(false);
    await ok(waiting.admin.patch(`/plan_configurations/${configuration.id}`, { waiting_period_waiver_allowed: true }));
    const waived = await ok(waiting.admin.post(`/enrollments/${overridden.id}/save_and_submit`));
    expect(waived.rules_override).toMatchObject({ reason: 'Returning manager, waiting period waived by HR' });
    await ok(waiting.admin.patch(`/plan_configurations/${configuration.id}`, { waiting_period_waiver_allowed: false }));
  });

  it.each([
    [{ rehire_date: '2026-02-10' }, 400, ['rehire_date']],
    [{ rehire_date: '2026-06-01', elections: 'reinstate' }, 400, ['elections']],
    [{ rehire_date: 'soon' }, 400, ['rehire_date']],
  ])('when a rehire is sent as %j, then it is a %i on %j and nothing changes', async (body, status, fields) => {
    const member = await createMember(w.admin, { employer: w.employer.id, hire_date: '2020-01-01', termination_date: '2026-02-10' });
    const response = await w.admin.post(`/members/${member.id}/rehire`, body);
    expect(response.status).toBe(status);
    expect(errorFields(response)).toEqual(fields);
    expect(await ok(w.admin.get(`/members/${member.id}`))).toMatchObject({ termination_date: '2026-02-10', hire_date: '2020-01-01' });
  });

  it('when a member who is not terminated, or who died, is rehired, then it is a 409', async () => {
    const active = await createMember(w.admin, { employer: w.employer.id });
    expect((await w.admin.post(`/members/${active.id}/rehire`, { rehire_date: '2026-02-10' })).status).toBe(409);
    const died = await createMember(w.admin, { employer: w.employer.id, date_of_death: '2026-01-10' });
    expect((await w.admin.post(`/members/${died.id}/rehire`, { rehire_date: '2026-02-10' })).status).toBe(409);
  });
});

describe('leaves of absence', () => {
  it('when a leave and the return are recorded, then both are in the history with the leave type', async () => {
    const member = await createMember(w.admin, { employer: w.employer.id, hire_date: '2020-01-01' });
    const leave = await ok(
      w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'leave_of_absence', effective_date: '2026-02-01', leave_type: 'fmla' }),
      201,
    );
    expect(leave).toMatchObject({ event_type: 'leave_of_absence', effective_date: '2026-02-01', details: { leave_type: 'fmla' } });
    expect(
      (await w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'leave_of_absence', effective_date: '2026-02-03', leave_type: 'medical' }))
        .status,
    ).toBe(409);
    const early = await w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'return_from_leave', effective_date: '2026-01-31' });
    expect(early.status).toBe(400);
    expect(errorFields(early)).toEqual(['effective_date']);
    await ok(w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'return_from_leave', effective_date: '2026-02-20' }), 201);
    expect((await w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'return_from_leave', effective_date: '2026-02-21' })).status).toBe(409);
    const history = (await ok(w.admin.get(`/members/${member.id}/employment_history`))).results as { event_type: string; details: object }[];
    expect(history.map((e) => [e.event_type, e.details])).toEqual([
      ['hire', {}],
      ['leave_of_absence', { leave_type: 'fmla' }],
      ['return_from_leave', { leave_type: 'fmla' }],
    ]);
  });

  it('when a leave has no leave_type, then it is a 400 on leave_type', async () => {
    const member = await createMember(w.admin, { employer: w.employer.id });
    const response = await w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'leave_of_absence', effective_date: '2026-02-01' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['leave_type']);
  });
});
