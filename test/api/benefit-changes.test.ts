import { buildChangeCommit } from '../../src/app.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { PermanentJobError } from '../../src/jobs/job-queue.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { diffCoverage, type CoverageItem } from '../../src/modules/benefit-changes/benefit-change-diff.ts';
import { BenefitChangeService, SEND_BENEFIT_CHANGE_JOB } from '../../src/modules/benefit-changes/benefit-change.service.ts';
import type { CarrierAdapter, CarrierChange } from '../../src/modules/carrier-connections/carrier-adapter.ts';
import { carrierJobHandlers } from '../../src/modules/carrier-connections/carrier-sync.job.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import type { EnrollmentStatus } from '../../src/modules/enrollments/enrollment.table.ts';
import type { ConnectionMethod } from '../../src/modules/groups/group.table.ts';
import type { LineOfCoverage } from '../../src/modules/plans/plan.table.ts';
import { newId } from '../../src/shared/ids.ts';
import { approvedEnrollment as approvedThroughApi, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createCarrier, createGroup, createMember } from '../helpers/factories.ts';
import { createEmployerWithKey, errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { insertEnrollment } from '../helpers/rows.ts';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
let worker: JobWorker;
const sandbox = new SandboxCarrierAdapter();
/** Every change the worker's adapter was given, in order. */
const sentToCarrier: CarrierChange[] = [];
const adapter: CarrierAdapter = {
  send: (change) => {
    sentToCarrier.push(change);
    return sandbox.send(change);
  },
};
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  t = await createTestApp();
  const deps = { db: t.database.db, clock: t.clock, changes: buildChangeCommit({ clock: t.clock }), adapter };
  worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers: jobHandlers([carrierJobHandlers(deps)]), log: silent, batchSize: 50 });
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

/** Runs every job that is due now, retries included once their time has come. */
async function runDueJobs(): Promise<void> {
  while ((await worker.runDueJobs()) > 0);
}

/** The day the helper's approved enrollments start: the coverage they replace ends the day before. */
const NEXT_START = '2026-07-01';

/** What an approved enrollment does to one line: 'change' here means new contributions on the same plan. */
interface LineSpec {
  line: LineOfCoverage;
  kind: 'new' | 'change' | 'no_change' | 'removed';
  connection: ConnectionMethod;
  metadata?: Record<string, string>;
}

interface ApprovedEnrollment {
  enrollmentId: string;
  memberId: string;
  employerId: string;
  previous: CoverageItem[];
  next: CoverageItem[];
  /** When approval recorded the changes; the clock is an hour later afterwards. */
  recordedAt: string;
}

async function insertEnrollmentRow(options: { member: string; employer: string; status: EnrollmentStatus }): Promise<string> {
  const id = newId('enrollment');
  const now = t.clock.now().toISOString();
  await t.database.db
    .insertInto('enrollments')
    .values({
      id,
      provider_id: t.providerId,
      employer_id: options.employer,
      member_id: options.member,
      category: 'open_enrollment',
      status: options.status,
      effective_start: NEXT_START,
      effective_end: '2026-12-31',
      reason: 'open_enrollment',
      change_date: null,
      qualifying_life_event_documents: '[]',
      metadata: '{}',
      submitted_at: now,
      approved_at: options.status === 'approved' ? now : null,
      created_at: now,
    })
    .execute();
  return id;
}

async function insertEnrolledPlan(options: {
  enrollment: string;
  member: string;
  plan: { id: string; groupId: string };
  line: LineOfCoverage;
  position: number;
  effectiveStart?: string;
  memberContributionCents?: number;
}): Promise<CoverageItem> {
  const id = newId('enrolled_plan');
  const effectiveStart = options.effectiveStart ?? '2026-01-01';
  const memberContributionCents = options.memberContributionCents ?? 10_000;
  await t.database.db
    .insertInto('enrolled_plans')
    .values({
      id,
      provider_id: t.providerId,
      enrollment_id: options.enrollment,
      member_id: options.member,
      plan_id: options.plan.id,
      position: options.position,
      effective_start: effectiveStart,
      effective_end: '2026-12-31',
      premium_cents: 40_000 + memberContributionCents,
      employer_contribution_cents: 40_000,
      member_contribution_cents: memberContributionCents,
      payroll_provider_external_id: null,
      volume_cents: null,
      requested_volume_cents: null,
      volume_approved_at: null,
      eoi_dismissed_at: null,
      eoi_status: 'not_required',
      primary_care_provider: null,
      member_id_card_id: null,
      created_at: t.clock.now().toISOString(),
    })
    .execute();
  return {
    enrolledPlanId: id,
    planId: options.plan.id,
    groupId: options.plan.groupId,
    previousPlanId: null,
    lineOfCoverage: options.line,
    effectiveStart,
    effectiveEnd: '2026-12-31',
    dependentIds: [],
    volumeCents: null,
    employerContributionCents: 40_000,
    memberContributionCents,
  };
}

/**
 * An approved enrollment of a new member (of `employer`, else a new employer) whose lines are as `lines`
 * say, each line's plan in a group of its own with the given connection; coverage the member had before is a
 * synced enrollment. Its benefit changes are recorded as approval records them, then the clock moves an hour
 * on (so that a person can complete them "earlier" than now but after they were recorded).
 */
async function approvedEnrollment(lines: LineSpec[], options: { employer?: string; client?: ApiClient } = {}): Promise<ApprovedEnrollment> {
  const client = options.client ?? t.admin;
  const member = await createMember(client, options.employer === undefined ? {} : { employer: options.employer });
  const employerId: string = member.employer;
  const plans: { id: string; groupId: string }[] = [];
  for (const spec of lines) {
    const group = await createGroup(client, { employer: employerId, connection_method: spec.connection, metadata: spec.metadata ?? {} });
    plans.push({ id: (await createPlan(client, { group: group.id, line_of_coverage: spec.line })).id, groupId: group.id });
  }

  const previous: CoverageItem[] = [];
  const before = lines.flatMap((spec, index) => (spec.kind === 'new' ? [] : [{ spec, plan: plans[index]! }]));
  if (before.length > 0) {
    const first = before[0]!;
    const earlier = await insertEnrollment(t, { member: member.id, employer: employerId, planId: first.plan.id, status: 'synced' });
    const firstItem = await t.database.db.selectFrom('enrolled_plans').selectAll().where('id', '=', earlier.enrolledPlanId).executeTakeFirstOrThrow();
    previous.push({
      enrolledPlanId: firstItem.id,
      planId: firstItem.plan_id,
      groupId: first.plan.groupId,
      previousPlanId: null,
      lineOfCoverage: first.spec.line,
      effectiveStart: firstItem.effective_start,
      effectiveEnd: firstItem.effective_end,
      dependentIds: [],
      volumeCents: null,
      employerContributionCents: firstItem.employer_contribution_cents,
      memberContributionCents: firstItem.member_contribution_cents,
    });
    for (const [index, { spec, plan }] of before.slice(1).entries()) {
      previous.push(await insertEnrolledPlan({ enrollment: earlier.enrollmentId, member: member.id, plan, line: spec.line, position: index + 1 }));
    }
  }

  const enrollmentId = await insertEnrollmentRow({ member: member.id, employer: employerId, status: 'approved' });
  const next: CoverageItem[] = [];
  for (const [index, spec] of lines.entries()) {
    if (spec.kind === 'removed') continue;
    next.push(
      await insertEnrolledPlan({
        enrollment: enrollmentId,
        member: member.id,
        plan: plans[index]!,
        line: spec.line,
        position: next.length,
        effectiveStart: NEXT_START,
        memberContributionCents: spec.kind === 'change' ? 12_500 : 10_000,
      }),
    );
  }
  const waived = lines.filter((spec) => spec.kind === 'removed').map((spec) => spec.line);
  const changes = diffCoverage(previous, next, waived, NEXT_START);
  expect(changes.map((change) => change.status)).toEqual(
    [...lines.filter((spec) => spec.kind !== 'removed'), ...lines.filter((spec) => spec.kind === 'removed')].map((spec) => spec.kind),
  );

  const service = new BenefitChangeService(t.database.db, t.clock, buildChangeCommit({ clock: t.clock }));
  const recordedAt = t.clock.now().toISOString();
  await t.database.db
    .transaction()
    .execute((trx) => service.recordChanges(trx, { providerId: t.providerId, employerId, enrollmentId, memberId: member.id, changes }));
  t.clock.advance(60 * 60 * 1000);
  return { enrollmentId, memberId: member.id, employerId, previous, next, recordedAt };
}

async function changesOf(enrollmentId: string, client: ApiClient = t.admin): Promise<any[]> {
  const response = await client.get(`/enrollments/${enrollmentId}/benefit_changes`);
  expect(response.status).toBe(200);
  return response.body;
}

async function enrollmentStatus(enrollmentId: string): Promise<EnrollmentStatus> {
  return (await t.database.db.selectFrom('enrollments').select('status').where('id', '=', enrollmentId).executeTakeFirstOrThrow()).status;
}

async function jobsOf(benefitChangeId: string) {
  const jobs = await t.database.db.selectFrom('jobs').selectAll().where('kind', '=', SEND_BENEFIT_CHANGE_JOB).execute();
  return jobs.filter((job) => (JSON.parse(job.payload) as { benefit_change?: string }).benefit_change === benefitChangeId);
}

const earlier = (minutes: number) => new Date(t.clock.now().getTime() - minutes * 60_000).toISOString();

describe('GET /enrollments/{id}/benefit_changes', () => {
  it('when an enrollment touches several lines, then every change is listed in line order with every field', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'new', connection: 'manual' },
      { line: 'dental', kind: 'change', connection: 'edi' },
      { line: 'vision', kind: 'no_change', connection: 'api' },
      { line: 'life', kind: 'removed', connection: 'manual' },
    ]);
    const now = approved.recordedAt;
    const [medicalNext, dentalNext, visionNext] = approved.next;
    const [dentalBefore, visionBefore, lifeBefore] = approved.previous;
    const common = { id: expect.stringMatching(/^bc_[A-Za-z0-9]{20}$/), enrollment: approved.enrollmentId, assignee: null, created_at: now };

    const list = await changesOf(approved.enrollmentId);
    expect(list).toEqual([
      {
        ...common,
        line_of_coverage: 'medical',
        status: 'new',
        changes: [],
        previous_enrollment_plan: null,
        next_enrollment_plan: medicalNext!.enrolledPlanId,
        coverage_start: NEXT_START,
        coverage_end: '2026-12-31',
        connection_method: 'manual',
        memo: null,
        completed_at: null,
        needs_manual_completion: true,
        delivery_state: 'manual',
      },
      {
        ...common,
        line_of_coverage: 'dental',
        status: 'change',
        changes: ['contribution_change'],
        previous_enrollment_plan: dentalBefore!.enrolledPlanId,
        next_enrollment_plan: dentalNext!.enrolledPlanId,
        coverage_start: NEXT_START,
        coverage_end: '2026-12-31',
        connection_method: 'edi',
        memo: null,
        completed_at: null,
        needs_manual_completion: false,
        delivery_state: 'awaiting_file',
      },
      {
        ...common,
        line_of_coverage: 'vision',
        status: 'no_change',
        changes: [],
        previous_enrollment_plan: visionBefore!.enrolledPlanId,
        next_enrollment_plan: visionNext!.enrolledPlanId,
        coverage_start: NEXT_START,
        coverage_end: '2026-12-31',
        connection_method: 'api',
        memo: 'No change to send.',
        completed_at: now,
        needs_manual_completion: false,
        delivery_state: 'completed',
      },
      {
        ...common,
        line_of_coverage: 'life',
        status: 'removed',
        changes: [],
        previous_enrollment_plan: lifeBefore!.enrolledPlanId,
        next_enrollment_plan: null,
        // The removed coverage, up to the day before the enrollment's coverage starts.
        coverage_start: '2026-01-01',
        coverage_end: '2026-06-30',
        connection_method: 'manual',
        memo: null,
        completed_at: null,
        needs_manual_completion: true,
        delivery_state: 'manual',
      },
    ]);
    for (const change of list) {
      const fetched = await t.admin.get(`/benefit_changes/${change.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(change);
    }
    // A no_change has nothing to send, even on an api group: no job for it.
    expect(await jobsOf(list[2].id)).toEqual([]);
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('approved');
  });

  it('when the enrollment changed nothing (only unchanged lines), then its change is completed and it is synced at once', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'no_change', connection: 'manual' },
      { line: 'dental', kind: 'no_change', connection: 'edi' },
    ]);
    const list = await changesOf(approved.enrollmentId);
    expect(list.map((change) => [change.status, change.delivery_state, change.completed_at, change.memo])).toEqual([
      ['no_change', 'completed', approved.recordedAt, 'No change to send.'],
      ['no_change', 'completed', approved.recordedAt, 'No change to send.'],
    ]);
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });

  it('when a no_change change is refused (POST /benefit_changes/{id}/refuse), then 409: the carrier was sent nothing to refuse', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'no_change', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const response = await t.admin.post(`/benefit_changes/${change.id}/refuse`, { reason: 'Not on file' });
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toContain('no_change');
    expect(await changesOf(approved.enrollmentId)).toEqual([change]);
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });

  it('when the enrollment touches no line at all (it waives a line the member never had), then it has no changes and is synced', async () => {
    const member = await createMember(t.admin);
    const enrollmentId = await insertEnrollmentRow({ member: member.id, employer: member.employer, status: 'approved' });
    const changes = diffCoverage([], [], ['dental'], NEXT_START);
    await t.database.db.transaction().execute((trx) =>
      new BenefitChangeService(t.database.db, t.clock, buildChangeCommit({ clock: t.clock })).recordChanges(trx, {
        providerId: t.providerId,
        employerId: member.employer,
        enrollmentId,
        memberId: member.id,
        changes,
      }),
    );
    expect(await changesOf(enrollmentId)).toEqual([]);
    expect(await enrollmentStatus(enrollmentId)).toBe('synced');
  });

  it('when an enrollment has no benefit changes yet (not approved), then the list is empty', async () => {
    const member = await createMember(t.admin);
    const enrollmentId = await insertEnrollmentRow({ member: member.id, employer: member.employer, status: 'pending' });
    expect(await changesOf(enrollmentId)).toEqual([]);
  });

  it('when the enrollment does not exist or the id is malformed, then 404', async () => {
    expect((await t.admin.get('/enrollments/enr_doesnotexist/benefit_changes')).status).toBe(404);
    expect((await t.admin.get('/enrollments/not%20an%20id/benefit_changes')).body.type).toBe('not_found');
    expect((await t.admin.get('/benefit_changes/bc_doesnotexist')).status).toBe(404);
  });
});

describe('manual connections', () => {
  it('when a person completes every manual change with PATCH, then each is completed and the enrollment becomes synced with the last', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'new', connection: 'manual' },
      { line: 'dental', kind: 'removed', connection: 'manual' },
    ]);
    const [medical, dental] = await changesOf(approved.enrollmentId);

    const first = await t.admin.patch(`/benefit_changes/${medical.id}`, {
      completed_at: earlier(30),
      memo: 'Faxed to Blue Shield',
      assignee: 'ops@broker.example',
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      ...medical,
      completed_at: earlier(30),
      memo: 'Faxed to Blue Shield',
      assignee: 'ops@broker.example',
      delivery_state: 'completed',
    });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('approved');

    const second = await t.admin.patch(`/benefit_changes/${dental.id}`, { completed_at: earlier(5) });
    expect(second.body).toMatchObject({ delivery_state: 'completed', completed_at: earlier(5), memo: null });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
    expect(await changesOf(approved.enrollmentId)).toEqual([first.body, second.body]);
  });

  it('when completed_at has an offset or more precision, then it is stored in UTC with milliseconds', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const instant = new Date(Date.parse(approved.recordedAt) + 30 * 60_000 + 123);
    // The same instant written as local time two hours ahead of UTC, with microseconds.
    const local = new Date(instant.getTime() + 2 * 60 * 60_000).toISOString().replace('Z', '456+02:00');
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: local });
    expect(response.status).toBe(200);
    expect(response.body.completed_at).toBe(instant.toISOString());
  });

  it('when two changes of one enrollment are completed at the same moment, then the enrollment still becomes synced', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'new', connection: 'manual' },
      { line: 'dental', kind: 'new', connection: 'manual' },
      { line: 'vision', kind: 'new', connection: 'manual' },
    ]);
    const list = await changesOf(approved.enrollmentId);
    const responses = await Promise.all(list.map((change) => t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(1) })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });

  it('when a completed manual change is reopened (completed_at null) while the enrollment is approved, then it waits for a person again', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'new', connection: 'manual' },
      { line: 'dental', kind: 'new', connection: 'edi' },
    ]);
    const [medical, dental] = await changesOf(approved.enrollmentId);
    await t.admin.patch(`/benefit_changes/${medical.id}`, { completed_at: earlier(10) });
    const reopened = await t.admin.patch(`/benefit_changes/${medical.id}`, { completed_at: null });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ completed_at: null, delivery_state: 'manual' });

    await t.admin.patch(`/benefit_changes/${dental.id}`, { completed_at: earlier(10) });
    expect((await t.admin.patch(`/benefit_changes/${dental.id}`, { completed_at: null })).body).toMatchObject({
      completed_at: null,
      delivery_state: 'awaiting_file',
    });
    // Reopening an open change changes nothing.
    expect((await t.admin.patch(`/benefit_changes/${dental.id}`, { completed_at: null })).body).toMatchObject({
      completed_at: null,
      delivery_state: 'awaiting_file',
    });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('approved');
  });

  it('when a completed change of a synced enrollment is reopened, then 409 and nothing changes', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const completed = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(10) });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: null, memo: 'oops' });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('invalid_state');
    expect(response.body.message).toContain('synced');
    expect((await t.admin.get(`/benefit_changes/${change.id}`)).body).toEqual(completed.body);
  });

  it('when a completed manual change gets a corrected completed_at, then it keeps completed with the new time', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(10) });
    const corrected = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(3) });
    expect(corrected.body).toMatchObject({ completed_at: earlier(3), delivery_state: 'completed' });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });
});

describe('api connections (carrier adapter jobs)', () => {
  it('when the change is recorded, then its delivery job is written with it; when the carrier accepts, then it is completed and the enrollment synced', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'change', connection: 'api' }]);
    const [change] = await changesOf(approved.enrollmentId);
    expect(change).toMatchObject({
      status: 'change',
      changes: ['contribution_change'],
      delivery_state: 'queued',
      needs_manual_completion: false,
      completed_at: null,
    });
    const [job] = await jobsOf(change.id);
    expect(job).toMatchObject({ state: 'queued', attempts: 0 });
    expect(JSON.parse(job!.payload)).toEqual({ benefit_change: change.id });

    await runDueJobs();
    const [after] = await changesOf(approved.enrollmentId);
    expect(after).toEqual({
      ...change,
      delivery_state: 'completed',
      completed_at: t.clock.now().toISOString(),
      memo: `Accepted by carrier: sandbox-${change.id}`,
    });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
    expect((await jobsOf(change.id))[0]).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('when the carrier rejects the change (sandbox_reject), then it is rejected with the reason as memo and the enrollment fails', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'new', connection: 'api', metadata: { sandbox_reject: 'Member not eligible: missing hire date on file' } },
      { line: 'dental', kind: 'new', connection: 'manual' },
    ]);
    await runDueJobs();
    const [medical, dental] = await changesOf(approved.enrollmentId);
    expect(medical).toMatchObject({ delivery_state: 'rejected', memo: 'Member not eligible: missing hire date on file', completed_at: null });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('failed');
    // A rejection is the carrier's answer, not a job failure.
    expect((await jobsOf(medical.id))[0]).toMatchObject({ state: 'done' });

    // The manual change can still be recorded as done; the enrollment stays failed.
    expect((await t.admin.patch(`/benefit_changes/${dental.id}`, { completed_at: earlier(1) })).body.delivery_state).toBe('completed');
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('failed');
  });

  it('when the carrier fails transiently (sandbox_transient_failures), then the job is retried with backoff until the carrier accepts', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'api', metadata: { sandbox_transient_failures: '2' } }]);
    const [change] = await changesOf(approved.enrollmentId);

    await runDueJobs();
    expect((await changesOf(approved.enrollmentId))[0].delivery_state).toBe('sent');
    expect((await jobsOf(change.id))[0]).toMatchObject({ state: 'queued', attempts: 1, last_error: 'Sandbox carrier: simulated transient failure 1 of 2.' });

    t.clock.advance(2 * 60 * 60 * 1000);
    await runDueJobs();
    expect((await jobsOf(change.id))[0]).toMatchObject({ state: 'queued', attempts: 2, last_error: 'Sandbox carrier: simulated transient failure 2 of 2.' });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('approved');

    t.clock.advance(2 * 60 * 60 * 1000);
    await runDueJobs();
    expect((await jobsOf(change.id))[0]).toMatchObject({ state: 'done', attempts: 3 });
    expect((await changesOf(approved.enrollmentId))[0]).toMatchObject({ delivery_state: 'completed', memo: `Accepted by carrier: sandbox-${change.id}` });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });

  it('when the job runs again after the change was settled, then nothing changes (jobs run at least once)', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'api' }]);
    await runDueJobs();
    const [change] = await changesOf(approved.enrollmentId);
    expect(change.delivery_state).toBe('completed');
    t.clock.advance(60_000);
    const handler = carrierJobHandlers({
      db: t.database.db,
      clock: t.clock,
      changes: buildChangeCommit({ clock: t.clock }),
      adapter: { send: () => Promise.reject(new Error('must not be called')) },
    })[SEND_BENEFIT_CHANGE_JOB]!;
    await handler({ benefit_change: change.id }, { jobId: 'job_again', attempt: 2 });
    expect((await changesOf(approved.enrollmentId))[0]).toEqual(change);
  });

  it('when a job names no benefit change or an unknown one, then it fails permanently', async () => {
    const handler = carrierJobHandlers({ db: t.database.db, clock: t.clock, changes: buildChangeCommit({ clock: t.clock }), adapter })[
      SEND_BENEFIT_CHANGE_JOB
    ]!;
    await expect(handler({}, { jobId: 'job_x', attempt: 1 })).rejects.toBeInstanceOf(PermanentJobError);
    await expect(handler({ benefit_change: 'bc_doesnotexist' }, { jobId: 'job_x', attempt: 1 })).rejects.toBeInstanceOf(PermanentJobError);
  });

  it('when the adapter is called, then it gets ids, codes and the coverage dates only', async () => {
    const approved = await approvedEnrollment([{ line: 'vision', kind: 'change', connection: 'api', metadata: { carrier_plan_code: 'VSN-22' } }]);
    const [change] = await changesOf(approved.enrollmentId);
    const seen: unknown[] = [];
    const handler = carrierJobHandlers({
      db: t.database.db,
      clock: t.clock,
      changes: buildChangeCommit({ clock: t.clock }),
      adapter: {
        send: async (sent) => {
          seen.push(sent);
          return { accepted: true, reference: 'CONF-1' };
        },
      },
    })[SEND_BENEFIT_CHANGE_JOB]!;
    await handler({ benefit_change: change.id }, { jobId: 'job_y', attempt: 1 });
    const group = await t.database.db
      .selectFrom('benefit_changes')
      .innerJoin('carrier_groups', 'carrier_groups.id', 'benefit_changes.group_id')
      .select(['carrier_groups.carrier_id', 'carrier_groups.group_number'])
      .where('benefit_changes.id', '=', change.id)
      .executeTakeFirstOrThrow();
    expect(seen).toEqual([
      {
        benefitChange: change.id,
        enrollment: approved.enrollmentId,
        member: approved.memberId,
        lineOfCoverage: 'vision',
        status: 'change',
        changes: ['contribution_change'],
        coverageStart: NEXT_START,
        coverageEnd: '2026-12-31',
        carrier: group.carrier_id,
        groupNumber: group.group_number,
        groupMetadata: { carrier_plan_code: 'VSN-22' },
      },
    ]);
    expect((await changesOf(approved.enrollmentId))[0]).toMatchObject({ delivery_state: 'completed', memo: 'Accepted by carrier: CONF-1' });
  });
});

describe('edi connections', () => {
  it('when jobs run, then an edi change stays awaiting its file until a person completes it', async () => {
    const approved = await approvedEnrollment([{ line: 'dental', kind: 'new', connection: 'edi' }]);
    await runDueJobs();
    const [change] = await changesOf(approved.enrollmentId);
    expect(change).toMatchObject({ delivery_state: 'awaiting_file', completed_at: null, needs_manual_completion: false });
    expect(await jobsOf(change.id)).toEqual([]);
    const completed = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(1), memo: 'Sent in the weekly 834' });
    expect(completed.body).toMatchObject({ delivery_state: 'completed', memo: 'Sent in the weekly 834' });
    expect(await enrollmentStatus(approved.enrollmentId)).toBe('synced');
  });
});

describe('moves between carrier groups and coverage dates, through approval', () => {
  // The world's clock stands at 2026-03-02; its first coverage starts 2026-04-01, the change below 2026-06-01.
  const lifeEvent = { category: 'qle', reason: 'employment_change', change_date: '2026-02-20', effective_start: '2026-06-01' };

  /** A plan of another carrier (carrier B) for the world's employer, in a group of its own, ready to enroll in. */
  async function otherCarrierPlan(w: EnrollmentWorld, connection_method: ConnectionMethod, line_of_coverage: LineOfCoverage) {
    const carrier = await createCarrier(w.admin, { legal_name: 'Carrier B Health', trade_name: 'Carrier B' });
    const group = await createGroup(w.admin, { employer: w.employer.id, carrier: carrier.id, connection_method, group_number: `B-${connection_method}` });
    const plan = await createPlan(w.admin, {
      group: group.id,
      plan_name: 'Carrier B Plan',
      line_of_coverage,
      premium_type: 'composite',
      composite_rates: compositeRates(),
    });
    const configuration = await createPlanConfiguration(w.admin, { plan: plan.id, waiting_period_days: 0 });
    expect((await w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy())).status).toBe(200);
    return { carrier, group, plan };
  }

  const sentFor = (benefitChangeId: string) => sentToCarrier.filter((sent) => sent.benefitChange === benefitChangeId);

  it("when a line moves from carrier A's manual group to carrier B's api group, then A gets a removed change ending the day before, B a new one sent by the api job, and the enrollment is synced only once both are completed", async () => {
    const w = await createEnrollmentWorld(t);
    const b = await otherCarrierPlan(w, 'api', 'medical');
    const first = await approvedThroughApi(w, { effective_start: '2026-04-01', enrolled_plans: [{ plan: w.plans.medical.id }] });
    const moved = await approvedThroughApi(w, { ...lifeEvent, enrolled_plans: [{ plan: b.plan.id }] });

    const changes = await changesOf(moved.id, w.admin);
    expect(changes).toEqual([
      expect.objectContaining({
        line_of_coverage: 'medical',
        status: 'removed',
        changes: [],
        previous_enrollment_plan: first.enrolled_plans[0].id,
        next_enrollment_plan: null,
        connection_method: 'manual',
        needs_manual_completion: true,
        delivery_state: 'manual',
        coverage_start: '2026-04-01',
        coverage_end: '2026-05-31',
      }),
      expect.objectContaining({
        line_of_coverage: 'medical',
        status: 'new',
        changes: [],
        previous_enrollment_plan: null,
        next_enrollment_plan: moved.enrolled_plans[0].id,
        connection_method: 'api',
        needs_manual_completion: false,
        delivery_state: 'queued',
        coverage_start: '2026-06-01',
        coverage_end: '2026-12-31',
      }),
    ]);
    const [removed, added] = changes;
    expect(await jobsOf(removed.id)).toEqual([]);
    expect(await jobsOf(added.id)).toHaveLength(1);

    await runDueJobs();
    expect(sentFor(added.id)).toEqual([
      expect.objectContaining({ status: 'new', carrier: b.carrier.id, groupNumber: 'B-api', coverageStart: '2026-06-01', coverageEnd: '2026-12-31' }),
    ]);
    expect((await t.database.db.selectFrom('benefit_changes').select('group_id').where('id', '=', removed.id).executeTakeFirstOrThrow()).group_id).toBe(
      w.groups.manualGroup.id,
    );
    expect(await changesOf(moved.id, w.admin)).toEqual([
      removed,
      { ...added, delivery_state: 'completed', completed_at: t.clock.now().toISOString(), memo: `Accepted by carrier: sandbox-${added.id}` },
    ]);
    // Carrier A has not been told yet: the enrollment waits for it.
    expect(await enrollmentStatus(moved.id)).toBe('approved');

    const completed = await w.admin.patch(`/benefit_changes/${removed.id}`, {
      completed_at: t.clock.now().toISOString(),
      memo: 'Termination faxed to carrier A',
    });
    expect(completed.body).toMatchObject({ delivery_state: 'completed', coverage_end: '2026-05-31' });
    expect(await enrollmentStatus(moved.id)).toBe('synced');
  });

  it("when a line moves from carrier A's api group to carrier B's edi group, then A's removed change goes through the api job and B's new one waits for the 834 file", async () => {
    const w = await createEnrollmentWorld(t);
    const b = await otherCarrierPlan(w, 'edi', 'dental');
    const first = await approvedThroughApi(w, { effective_start: '2026-04-01', enrolled_plans: [{ plan: w.plans.dental.id }] });
    const moved = await approvedThroughApi(w, { ...lifeEvent, enrolled_plans: [{ plan: b.plan.id }] });

    const [removed, added] = await changesOf(moved.id, w.admin);
    expect(
      [removed, added].map((change) => [
        change.status,
        change.connection_method,
        change.delivery_state,
        change.previous_enrollment_plan,
        change.next_enrollment_plan,
      ]),
    ).toEqual([
      ['removed', 'api', 'queued', first.enrolled_plans[0].id, null],
      ['new', 'edi', 'awaiting_file', null, moved.enrolled_plans[0].id],
    ]);
    expect(await jobsOf(removed.id)).toHaveLength(1);
    expect(await jobsOf(added.id)).toEqual([]);

    await runDueJobs();
    expect(sentFor(removed.id)).toEqual([
      expect.objectContaining({ status: 'removed', lineOfCoverage: 'dental', groupNumber: 'G-api', coverageStart: '2026-04-01', coverageEnd: '2026-05-31' }),
    ]);
    expect((await changesOf(moved.id, w.admin))[0].delivery_state).toBe('completed');
    expect(await enrollmentStatus(moved.id)).toBe('approved');

    const awaiting = (await changesOf(moved.id, w.admin)).filter((change) => change.delivery_state === 'awaiting_file');
    expect(awaiting.map((change) => [change.id, change.coverage_start, change.coverage_end])).toEqual([[added.id, '2026-06-01', '2026-12-31']]);
    expect((await w.admin.patch(`/benefit_changes/${added.id}`, { completed_at: t.clock.now().toISOString(), memo: 'Sent in the weekly 834' })).status).toBe(
      200,
    );
    expect(await enrollmentStatus(moved.id)).toBe('synced');
  });

  it('when a plan changes within one group, then it stays one change with plan_change, dated by the new coverage', async () => {
    const w = await createEnrollmentWorld(t);
    const first = await approvedThroughApi(w, { effective_start: '2026-04-01', enrolled_plans: [{ plan: w.plans.medical.id }] });
    const switched = await approvedThroughApi(w, {
      ...lifeEvent,
      enrolled_plans: [{ plan: w.plans.medicalSilver.id, primary_care_provider: { full_name: 'Dr. C' } }],
    });
    const changes = await changesOf(switched.id, w.admin);
    expect(changes).toEqual([
      expect.objectContaining({
        status: 'change',
        changes: expect.arrayContaining(['plan_change']),
        previous_enrollment_plan: first.enrolled_plans[0].id,
        next_enrollment_plan: switched.enrolled_plans[0].id,
        connection_method: 'manual',
        coverage_start: '2026-06-01',
        coverage_end: '2026-12-31',
      }),
    ]);
  });

  it('when an enrollment adds, changes, keeps and waives lines, then every change carries its coverage dates: the new coverage, or the removed one up to its last day', async () => {
    const w = await createEnrollmentWorld(t);
    await approvedThroughApi(w, {
      effective_start: '2026-04-01',
      enrolled_plans: [{ plan: w.plans.medical.id }, { plan: w.plans.dental.id }, { plan: w.plans.vision.id, premium: '10.00' }],
    });
    const second = await approvedThroughApi(w, {
      ...lifeEvent,
      enrolled_plans: [
        { plan: w.plans.medical.id },
        { plan: w.plans.dental.id, enrolled_dependents: [{ dependent: w.family.spouse.id }] },
        { plan: w.plans.life.id, requested_volume: '20000.00' },
      ],
      coverage_waivers: [{ line_of_coverage: 'vision', reason: 'covered_by_spouse' }],
    });
    const changes = await changesOf(second.id, w.admin);
    expect(changes.map((change) => [change.line_of_coverage, change.status, change.coverage_start, change.coverage_end])).toEqual([
      ['medical', 'no_change', '2026-06-01', '2026-12-31'],
      ['dental', 'change', '2026-06-01', '2026-12-31'],
      ['life', 'new', '2026-06-01', '2026-12-31'],
      ['vision', 'removed', '2026-04-01', '2026-05-31'],
    ]);
    for (const change of changes) expect((await w.admin.get(`/benefit_changes/${change.id}`)).body).toEqual(change);
  });
});

describe('PATCH /benefit_changes/{id} rules', () => {
  it('when completed_at is set (or cleared) on an api change, then 409: the carrier adapter completes it', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'api' }]);
    const [change] = await changesOf(approved.enrollmentId);
    for (const completed_at of [earlier(1), null]) {
      const response = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at });
      expect(response.status).toBe(409);
      expect(response.body.type).toBe('invalid_state');
      expect(response.body.message).toContain('carrier adapter completes it');
    }
  });

  it('when memo and assignee are set on an api change, then they are kept; null clears them', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'api' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const set = await t.admin.patch(`/benefit_changes/${change.id}`, { memo: 'Watch this one', assignee: 'Jordan' });
    expect(set.body).toEqual({ ...change, memo: 'Watch this one', assignee: 'Jordan' });
    const partial = await t.admin.patch(`/benefit_changes/${change.id}`, { assignee: null });
    expect(partial.body).toEqual({ ...change, memo: 'Watch this one', assignee: null });
    expect((await t.admin.patch(`/benefit_changes/${change.id}`, {})).body).toEqual(partial.body);
  });

  it('when completed_at is set on a no_change change, then 409: it was completed at approval', async () => {
    const approved = await approvedEnrollment([
      { line: 'medical', kind: 'no_change', connection: 'manual' },
      { line: 'dental', kind: 'new', connection: 'manual' },
    ]);
    const [unchanged] = await changesOf(approved.enrollmentId);
    for (const completed_at of [earlier(1), null]) {
      const response = await t.admin.patch(`/benefit_changes/${unchanged.id}`, { completed_at });
      expect(response.status).toBe(409);
      expect(response.body.type).toBe('invalid_state');
    }
  });

  it.each([
    ['in the future', () => new Date(t.clock.now().getTime() + 60_000).toISOString()],
    ['before the change was recorded', () => '2020-01-01T00:00:00.000Z'],
    ['not a date-time', () => '2026-03-01'],
    ['not a calendar date', () => '2026-02-30T10:00:00Z'],
    ['without a time zone', () => '2026-03-01T10:00:00'],
  ])('when completed_at is %s, then 400 naming completed_at', async (_name, value) => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, { completed_at: value() });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['completed_at']);
    expect((await t.admin.get(`/benefit_changes/${change.id}`)).body).toEqual(change);
  });

  it.each([
    ['memo longer than 2000 characters', { memo: 'x'.repeat(2001) }, 'memo'],
    ['assignee longer than 255 characters', { assignee: 'x'.repeat(256) }, 'assignee'],
    ['memo not a string', { memo: 42 }, 'memo'],
    ['an unknown field', { status: 'removed' }, 'status'],
    ['a read-only field', { needs_manual_completion: false }, 'needs_manual_completion'],
  ])('when the body has %s, then 400 naming it', async (_name, body, field) => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain(field);
  });

  it.each([
    ['coverage_start', { coverage_start: '2026-08-01' }],
    ['coverage_end', { coverage_end: '2026-09-30' }],
    ['coverage_end beside a memo', { memo: 'Carrier asked for an earlier end', coverage_end: '2026-09-30' }],
  ])('when the body sets the read-only %s, then 400 in the error body naming the field, and the change is unchanged', async (_name, body) => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    expect([change.coverage_start, change.coverage_end]).toEqual([NEXT_START, '2026-12-31']);
    const field = 'coverage_start' in body ? 'coverage_start' : 'coverage_end';
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      type: 'validation_error',
      message: expect.any(String),
      input_errors: [expect.objectContaining({ field })],
      request_id: expect.any(String),
    });
    expect((await t.admin.get(`/benefit_changes/${change.id}`)).body).toEqual(change);
  });

  it('when memo and assignee are at their bounds, then they are accepted', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const response = await t.admin.patch(`/benefit_changes/${change.id}`, { memo: 'm'.repeat(2000), assignee: 'a'.repeat(255) });
    expect(response.status).toBe(200);
    expect(response.body.memo).toHaveLength(2000);
    expect(response.body.assignee).toHaveLength(255);
  });
});

describe('tenancy and roles', () => {
  it("when another provider's key asks, then the enrollment's changes and each change are 404, and PATCH is 404", async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [change] = await changesOf(approved.enrollmentId);
    const other = await newProviderAdmin(t);
    expect((await other.get(`/enrollments/${approved.enrollmentId}/benefit_changes`)).status).toBe(404);
    expect((await other.get(`/benefit_changes/${change.id}`)).status).toBe(404);
    const patched = await other.patch(`/benefit_changes/${change.id}`, { completed_at: earlier(1) });
    expect(patched.status).toBe(404);
    expect((await t.admin.get(`/benefit_changes/${change.id}`)).body.delivery_state).toBe('manual');
  });

  it("when an employer key asks, then it sees and completes its employer's changes and gets 404 for another employer's", async () => {
    const { employer, client } = await createEmployerWithKey(t);
    const own = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }], { employer: employer.id });
    const foreign = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const [ownChange] = await changesOf(own.enrollmentId, client);
    expect(ownChange.enrollment).toBe(own.enrollmentId);
    expect((await client.get(`/benefit_changes/${ownChange.id}`)).status).toBe(200);
    expect((await client.patch(`/benefit_changes/${ownChange.id}`, { completed_at: earlier(1) })).body.delivery_state).toBe('completed');
    expect(await enrollmentStatus(own.enrollmentId)).toBe('synced');

    const [foreignChange] = await changesOf(foreign.enrollmentId);
    expect((await client.get(`/enrollments/${foreign.enrollmentId}/benefit_changes`)).status).toBe(404);
    expect((await client.get(`/benefit_changes/${foreignChange.id}`)).status).toBe(404);
    expect((await client.patch(`/benefit_changes/${foreignChange.id}`, { memo: 'mine now' })).status).toBe(404);
    expect((await t.admin.get(`/benefit_changes/${foreignChange.id}`)).body.memo).toBeNull();
  });

  it('when a read_only key asks, then it reads the changes but gets 403 on PATCH, even with an invalid body', async () => {
    const approved = await approvedEnrollment([{ line: 'medical', kind: 'new', connection: 'manual' }]);
    const readOnly = await t.client('read_only');
    const [change] = await changesOf(approved.enrollmentId, readOnly);
    expect((await readOnly.get(`/benefit_changes/${change.id}`)).status).toBe(200);
    for (const body of [{ completed_at: earlier(1) }, { nonsense: true }]) {
      const response = await readOnly.patch(`/benefit_changes/${change.id}`, body);
      expect(response.status).toBe(403);
      expect(response.body.type).toBe('permission_error');
    }
    expect((await t.admin.get(`/benefit_changes/${change.id}`)).body).toEqual(change);
  });

  it('when no key is sent, then 401', async () => {
    expect((await t.anonymous.get('/benefit_changes/bc_doesnotexist')).status).toBe(401);
    expect((await t.anonymous.get('/enrollments/enr_doesnotexist/benefit_changes')).status).toBe(401);
  });
});
