// open-enrollment-scale: one employer of 50,000 members, half of them enrolled in a closed open enrollment
// window. Times, on the real server, the full CSV incomplete members report (25,000 rows), the change report
// (25,000 summaries) and completing the window, then two daily sweeps, each in a process of its own:
// - the changes day (2026-12-18): for 5% of the members it changes coverage, ending the
//   coverage of 1,250 members terminated the day before (and recording their COBRA events) and taking 1,250
//   children whose last covered day it is off their parent's medical, re-priced, through the enrollment engine;
// - the reminder day (2026-12-24): the same again for another 5%, and a reminder to each of the 47,500 eligible
//   members of a second, active window that ends 7 days later: the heaviest day of the year.
// Targets on SQLite: each <= 2 s, peak RSS <= 300 MB (the server's, and each sweep's).

import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { forEachDatabase, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { importDist } from '../lib/service.js';
import { memoryOf, PROJECT_ROOT, round, timed } from '../lib/processes.js';
import { insertRows, memberRow, planRow, secondsSince, seedEmployerGroup, UNCHANGED_COVERAGE_COLUMNS, wholeNumberFrom } from '../lib/seed.js';

export const name = 'open-enrollment-scale';
export const key = 'open_enrollment_scale';
export const description =
  'open enrollment at 50,000 members: complete, change_report, CSV incomplete_members_report, the sweeps of a changes day and a reminder day';

const DEFAULT_MEMBERS = 50_000;
/** The share of members whose coverage each swept day changes: half terminated the day before, half with a child ageing out. */
const CHANGING_SHARE = 0.05;
const MAX_SECONDS = 2;
const MAX_RSS_MB = 300;
/** The day whose only work is the 5% changing (no reminder is due). */
const CHANGES_DAY = '2026-12-18';
/** Seven days before the active window ends: every eligible member who has not enrolled is reminded, and another 5% change. */
const REMINDER_DAY = '2026-12-24';

export async function run({ service, settings: _settings, kinds, log, env = process.env }) {
  const members = wholeNumberFrom(env, 'BENCH_OE_MEMBERS', DEFAULT_MEMBERS, 10);
  const enrollmentType = env.BENCH_OE_TYPE?.trim() || 'active';
  if (!['active', 'passive'].includes(enrollmentType)) throw new Error(`BENCH_OE_TYPE must be active or passive (got "${enrollmentType}")`);
  const share = Number(env.BENCH_OE_CHANGING_SHARE?.trim() || CHANGING_SHARE);
  // Each of the two swept days changes `share` of the members, out of the half that is enrolled.
  if (!(share >= 0 && share <= 0.25)) throw new Error(`BENCH_OE_CHANGING_SHARE must be a share between 0 and 0.25 (got "${env.BENCH_OE_CHANGING_SHARE}")`);
  const changing = Math.round((members * share) / 2);
  const result = {
    settings: {
      members,
      enrolled: Math.floor(members / 2),
      enrollment_type: enrollmentType,
      terminated_with_coverage_per_day: changing,
      children_ageing_out_per_day: changing,
      changes_day: CHANGES_DAY,
      reminder_day: REMINDER_DAY,
    },
  };
  const byDatabase = await forEachDatabase(kinds, log, (kind) =>
    runOn(kind, { service, members, changing, enrollmentType, log: (line) => log(`[${kind}] ${line}`) }),
  );
  return { ...result, ...byDatabase };
}

async function runOn(kind, { service, members, changing, enrollmentType, log }) {
  const database = await createBenchDatabase(kind, service);
  try {
    const seedStarted = Date.now();
    const db = database.handle.db;
    const created = await new service.ApiKeyService(db, service.systemClock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const seeded = await seed(service, db, created.provider, members, enrollmentType, changing);
    if (kind === 'postgres') await sql`analyze`.execute(db);
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${members} members, ${seeded.enrolled} enrolled, in ${seedSeconds} s`);
    await database.closeHandle();

    // The server's own daily run must not start during the measurement.
    const server = await startService({ databaseUrl: database.url, env: { SWEEP_TIME: '23:59', SWEEP_TIME_ZONE: 'Pacific/Kiritimati' } });
    const headers = { authorization: `Bearer ${created.key}` };
    const windowPath = `${server.url}/open_enrollment_windows/${seeded.closedWindow}`;
    const timings = {};
    try {
      const csv = await timed(() => fetchText(`${windowPath}/incomplete_members_report?format=csv`, { headers }));
      const csvRows = csv.value.trimEnd().split('\n').length - 1;
      if (csvRows !== members - seeded.enrolled) throw new Error(`the CSV report has ${csvRows} rows, expected ${members - seeded.enrolled}`);
      timings.incomplete_members_csv = { seconds: csv.seconds, rows: csvRows, bytes: Buffer.byteLength(csv.value) };

      const report = await timed(async () => JSON.parse(await fetchText(`${windowPath}/change_report`, { headers })));
      if (report.value.summaries.length !== seeded.enrolled)
        throw new Error(`the change report has ${report.value.summaries.length} summaries, expected ${seeded.enrolled}`);
      timings.change_report = { seconds: report.seconds, summaries: report.value.summaries.length };

      const complete = await timed(async () => JSON.parse(await fetchText(`${windowPath}/complete`, { method: 'POST', headers })));
      const counts = [complete.value.completed_member_count, complete.value.incomplete_member_count];
      if (complete.value.status !== 'completed' || counts[0] !== seeded.enrolled || counts[1] !== members - seeded.enrolled) {
        throw new Error(`complete answered ${JSON.stringify({ status: complete.value.status, counts })}`);
      }
      timings.complete = { seconds: complete.seconds, completed_member_count: counts[0], incomplete_member_count: counts[1] };
      if (enrollmentType === 'passive') {
        // The carry-over runs as a background job of the server: done when no member is incomplete any more.
        const started = performance.now();
        for (;;) {
          const page = JSON.parse(await fetchText(`${windowPath}/incomplete_members_report?page_size=1`, { headers }));
          if (page.results.length === 0) break;
          if (performance.now() - started > 600_000) throw new Error('the passive carry-over did not finish within 10 minutes');
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        timings.passive_carry_over = { seconds: round((performance.now() - started) / 1000, 3), members: seeded.carried };
      }
      timings.server_memory = memoryOf(server.pid);
    } finally {
      await server.stop();
    }

    // BENCH_OE_KEEP_SQLITE=FILE keeps a copy of the database as the sweep finds it, to time the sweep again by hand.
    const keep = process.env.BENCH_OE_KEEP_SQLITE?.trim();
    if (keep && kind === 'sqlite') {
      const copy = new DatabaseSync(database.path);
      copy.prepare('vacuum into ?').run(keep);
      copy.close();
      log(`kept the database before the sweep in ${keep}`);
    }
    // Members terminated before the active window's renewal date are not eligible for it: they get no reminder.
    const sweeps = [
      ['sweep_changes', CHANGES_DAY, 0],
      ['sweep_reminders', REMINDER_DAY, members - 2 * changing],
    ];
    for (const [label, day, reminders] of sweeps) {
      const sweep = await runSweepChild(database.url, day);
      const { summary } = sweep;
      if (summary.open_enrollment_reminder !== reminders || summary.coverage_ended !== changing || summary.dependent_coverage_ended !== changing) {
        throw new Error(`the sweep of ${day} did ${JSON.stringify(sweep.summary)}`);
      }
      timings[label] = { seconds: round(sweep.ms / 1000, 3), max_rss_mb: sweep.max_rss_mb, ...summary };
    }
    for (const [label, timing] of Object.entries(timings)) log(`${label}: ${JSON.stringify(timing)}`);

    const block = { data: { seed_s: seedSeconds }, timings };
    if (kind === 'sqlite') {
      block.targets = {
        'complete<=2s': timings.complete.seconds <= MAX_SECONDS,
        'change_report<=2s': timings.change_report.seconds <= MAX_SECONDS,
        'incomplete_members_csv<=2s': timings.incomplete_members_csv.seconds <= MAX_SECONDS,
        'sweep_changes<=2s': timings.sweep_changes.seconds <= MAX_SECONDS,
        'sweep_reminders<=2s': timings.sweep_reminders.seconds <= MAX_SECONDS,
        'server_peak_rss<=300MB': timings.server_memory.peak_rss_mb <= MAX_RSS_MB,
        'sweep_peak_rss<=300MB': Math.max(timings.sweep_changes.max_rss_mb, timings.sweep_reminders.max_rss_mb) <= MAX_RSS_MB,
      };
    }
    return block;
  } finally {
    await database.destroy();
  }
}

async function fetchText(url, init) {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return text;
}

function runSweepChild(databaseUrl, day) {
  return new Promise((resolve, reject) => {
    // BENCH_PROFILE=DIR profiles the sweep too, into DIR/sweep/ (see bench/profile-summary.js).
    const profile = process.env.BENCH_PROFILE?.trim() ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.BENCH_PROFILE.trim(), 'sweep')}`] : [];
    const child = spawn(process.execPath, [...profile, join(PROJECT_ROOT, 'bench', 'sweep-child.js'), day], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the sweep process exited ${code}: ${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
    });
  });
}

/**
 * One employer, `count` members (hired 2024), medical and dental plans running 2026-2027, a closed window
 * (January 2026) in which every other member has an approved enrollment with one benefit change, an active
 * window ending 2026-12-31 in which nobody has enrolled yet. For each swept day (CHANGES_DAY, REMINDER_DAY),
 * `changing` enrolled members were terminated the day before with their coverage still running, and
 * `changing` others cover a child whose last covered day it is (age limit 26, date_of_birth: a child born
 * 2000-12-25 is last covered on 2026-12-24).
 */
async function seed(service, db, providerId, count, enrollmentType, changing) {
  const { addDays } = await importDist('shared/dates.js');
  const at = (offsetSeconds) => new Date(Date.parse('2025-06-01T00:00:00.000Z') + offsetSeconds * 1000).toISOString();
  const id = (kind) => service.newId(kind);
  const { employer, group } = await seedEmployerGroup(db, id, { providerId, groupNumber: 'S-1', connectionMethod: 'manual', createdAt: at(0) });
  const plans = ['medical', 'dental'].map((line) =>
    planRow({
      id: id('plan'),
      providerId,
      employerId: employer,
      groupId: group,
      line,
      name: `Scale ${line}`,
      start: '2026-01-01',
      end: '2027-12-31',
      createdAt: at(0),
    }),
  );
  await insertRows(db, 'plans', plans);
  await insertRows(
    db,
    'plan_configurations',
    plans.map((plan) => ({
      id: id('plan_configuration'),
      provider_id: providerId,
      employer_id: employer,
      plan_id: plan.id,
      waiting_period_days: 0,
      termination_policy: 'termination_date',
      dependent_age_limit: 26,
      dependent_age_out_rule: 'date_of_birth',
      required_subclass_id: null,
      contribution_strategy: null,
      metadata: '{}',
      created_at: at(0),
    })),
  );
  const window = (status, start, end, renewal, type = 'active') => ({
    id: id('open_enrollment_window'),
    provider_id: providerId,
    employer_id: employer,
    start_date: start,
    end_date: end,
    renewal_date: renewal,
    status,
    enrollment_type: type,
    completed_member_count: null,
    incomplete_member_count: null,
    completed_at: null,
    activated_at: at(1),
    closed_at: status === 'closed' ? at(2) : null,
    metadata: '{}',
    created_at: at(1),
  });
  const closedWindow = window('closed', '2026-01-05', '2026-01-20', '2026-02-01', enrollmentType);
  const activeWindow = window('active', '2026-10-01', '2026-12-31', '2027-01-01');
  await insertRows(db, 'open_enrollment_windows', [closedWindow, activeWindow]);
  await insertRows(
    db,
    'open_enrollment_window_plans',
    [closedWindow, activeWindow].flatMap((w) => plans.map((plan, position) => ({ window_id: w.id, plan_id: plan.id, position }))),
  );

  const enrollmentRow = (member, category, status, windowId, createdAt) => ({
    id: id('enrollment'),
    provider_id: providerId,
    employer_id: employer,
    member_id: member.id,
    category,
    status,
    effective_start: '2026-02-01',
    effective_end: null,
    reason: 'open_enrollment',
    change_date: null,
    qualifying_life_event_documents: '[]',
    metadata: '{}',
    submitted_at: createdAt,
    approved_at: createdAt,
    open_enrollment_window_id: windowId,
    created_at: createdAt,
  });
  const enrolledPlanRow = (enrollment, member, planId) => ({
    id: id('enrolled_plan'),
    provider_id: providerId,
    enrollment_id: enrollment.id,
    member_id: member.id,
    plan_id: planId,
    position: 0,
    effective_start: '2026-02-01',
    effective_end: '2027-12-31',
    premium_cents: null,
    employer_contribution_cents: null,
    member_contribution_cents: null,
    payroll_provider_external_id: null,
    ...UNCHANGED_COVERAGE_COLUMNS,
    created_at: enrollment.created_at,
  });

  const members = [];
  const enrollments = [];
  const enrolledPlans = [];
  const changes = [];
  const carried = [];
  const carriedPlans = [];
  const dependents = [];
  const enrolledDependents = [];
  // The enrolled members in order: per swept day, `changing` terminated the day before, then `changing` with
  // a child whose last covered day it is.
  const days = [CHANGES_DAY, REMINDER_DAY];
  let enrolledSoFar = 0;
  for (let i = 0; i < count; i++) {
    const enrolled = i % 2 === 0;
    const slot = enrolled ? Math.floor(enrolledSoFar / changing) : -1;
    const day = changing > 0 && slot >= 0 && slot < 2 * days.length ? days[Math.floor(slot / 2)] : undefined;
    const isTerminated = day !== undefined && slot % 2 === 0;
    const hasChildAgeingOut = day !== undefined && slot % 2 === 1;
    if (enrolled) enrolledSoFar += 1;
    const member = memberRow({
      id: id('member'),
      providerId,
      employerId: employer,
      i,
      lastName: i % 7 === 0 ? `O'Last, ${i}` : `Last${i}`,
      terminationDate: isTerminated ? addDays(day, -1) : null,
      createdAt: at(10 + i),
    });
    members.push(member);
    if (!enrolled) {
      // With BENCH_OE_TYPE=passive, the members who do nothing hold dental coverage that complete carries on.
      if (enrollmentType === 'passive') {
        const held = {
          ...enrollmentRow(member, 'carrier_sync', 'synced', null, at(i)),
          reason: 'carrier_sync',
          effective_start: '2026-01-01',
          submitted_at: null,
        };
        carried.push(held);
        carriedPlans.push({ ...enrolledPlanRow(held, member, plans[1].id), effective_start: '2026-01-01' });
      }
      continue;
    }
    const enrollment = enrollmentRow(member, 'open_enrollment', 'approved', closedWindow.id, at(count + 10 + i));
    enrollments.push(enrollment);
    const enrolledPlan = enrolledPlanRow(enrollment, member, plans[0].id);
    enrolledPlans.push(enrolledPlan);
    if (hasChildAgeingOut) {
      const child = {
        id: id('dependent'),
        provider_id: providerId,
        employer_id: employer,
        member_id: member.id,
        first_name: `Child${i}`,
        middle_name: null,
        last_name: member.last_name,
        member_relationship: 'child',
        ssn_last_four: null,
        dob: addDays(`${Number(day.slice(0, 4)) - 26}${day.slice(4)}`, 1),
        biological_sex: null,
        address: null,
        has_disability: false,
        disability_certified_on: null,
        metadata: '{}',
        created_at: member.created_at,
      };
      dependents.push(child);
      enrolledDependents.push({
        id: id('enrolled_dependent'),
        provider_id: providerId,
        enrolled_plan_id: enrolledPlan.id,
        dependent_id: child.id,
        position: 0,
        ...UNCHANGED_COVERAGE_COLUMNS,
        created_at: enrollment.created_at,
      });
    }
    changes.push({
      id: id('benefit_change'),
      provider_id: providerId,
      employer_id: employer,
      enrollment_id: enrollment.id,
      member_id: member.id,
      line_of_coverage: 'medical',
      status: 'new',
      changes: '[]',
      previous_enrollment_plan_id: null,
      next_enrollment_plan_id: enrolledPlan.id,
      group_id: group,
      connection_method: 'manual',
      delivery_state: 'manual',
      memo: null,
      assignee: null,
      completed_at: null,
      needs_manual_completion: true,
      position: 0,
      created_at: enrollment.created_at,
    });
  }
  await insertRows(db, 'members', members, { rowsPerInsert: 400 });
  await insertRows(db, 'enrollments', [...enrollments, ...carried], { rowsPerInsert: 500 });
  await insertRows(db, 'enrolled_plans', [...enrolledPlans, ...carriedPlans], { rowsPerInsert: 400 });
  await insertRows(db, 'dependents', dependents, { rowsPerInsert: 400 });
  await insertRows(db, 'enrolled_dependents', enrolledDependents, { rowsPerInsert: 400 });
  await insertRows(db, 'benefit_changes', changes, { rowsPerInsert: 400 });
  return { closedWindow: closedWindow.id, activeWindow: activeWindow.id, enrolled: enrollments.length, carried: carried.length };
}
