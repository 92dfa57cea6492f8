// payroll: the deduction feed at scale. One employer of 50,000 members covered on medical all 2026 (priced:
// 128.10 a month the member's, 384.30 the employer's), paid semimonthly on the employer's default schedule, with
// a plan configuration naming the deduction code. Times, on the real server, the feed of the pay period of
// 2026-06-15 for everyone as CSV (GET /payroll_deductions?format=csv, streamed), then the run of that pay date
// (POST /payroll_runs: the same feed computed and stored, a line per member), and reads the server's peak RSS.
// Targets (issue "HR and payroll in and out"): deductions <= 2 s, server peak RSS <= 300 MB; also stated per
// 1,000 ceiling req/s (seconds x kceil).

import { sql } from 'kysely';
import { forEachDatabase, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { memoryOf, timed } from '../lib/processes.js';
import { insertCoveredMembers, insertMedicalEmployer, insertRows, secondsSince, wholeNumberFrom } from '../lib/seed.js';

export const name = 'payroll';
export const key = 'payroll';
export const description = 'Payroll deductions at 50,000 members: the feed of one pay date as CSV, then the run that stores it';

const DEFAULT_MEMBERS = 50_000;
const PAY_DATE = '2026-06-15';

export async function run({ service, kinds, log, env = process.env }) {
  const members = wholeNumberFrom(env, 'BENCH_PAYROLL_MEMBERS', DEFAULT_MEMBERS, 10);
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, members, log: (line) => log(`[${kind}] ${line}`) }));
  return { settings: { members, pay_date: PAY_DATE }, ...byDatabase };
}

async function runOn(kind, { service, members, log }) {
  const database = await createBenchDatabase(kind, service);
  try {
    const seedStarted = Date.now();
    const db = database.handle.db;
    const created = await new service.ApiKeyService(db, service.systemClock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const seeded = await seed(service, db, created.provider, members);
    if (kind === 'postgres') await sql`analyze`.execute(db);
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${members} covered members in ${seedSeconds} s`);
    await database.closeHandle();

    const server = await startService({ databaseUrl: database.url, env: { SWEEP_TIME: '23:59', SWEEP_TIME_ZONE: 'Pacific/Kiritimati' } });
    const headers = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' };
    const timings = {};
    try {
      timings.server_memory_at_start = memoryOf(server.pid);
      const feed = await timed(async () => {
        const response = await fetch(`${server.url}/payroll_deductions?employer=${seeded.employer}&pay_date=${PAY_DATE}&format=csv`, {
          headers,
          signal: AbortSignal.timeout(300_000),
        });
        if (response.status !== 200) throw new Error(`GET /payroll_deductions answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
        let lines = 0;
        for await (const chunk of response.body) for (const byte of chunk) if (byte === 10) lines += 1;
        return lines - 1;
      });
      if (feed.value !== members) throw new Error(`the feed has ${feed.value} rows, expected ${members}`);
      timings.deductions_csv = { seconds: feed.seconds, rows: feed.value };

      const paid = await timed(async () => {
        const response = await fetch(`${server.url}/payroll_runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ pay_schedule: seeded.schedule, pay_date: PAY_DATE }),
          signal: AbortSignal.timeout(300_000),
        });
        const text = await response.text();
        if (response.status !== 201) throw new Error(`POST /payroll_runs answered ${response.status}: ${text.slice(0, 500)}`);
        return JSON.parse(text);
      });
      if (paid.value.members !== members) throw new Error(`the run recorded ${paid.value.members} members, expected ${members}`);
      timings.payroll_run = { seconds: paid.seconds, members: paid.value.members };
      timings.server_memory = memoryOf(server.pid);
    } finally {
      await server.stop();
    }
    for (const [label, timing] of Object.entries(timings)) log(`${label}: ${JSON.stringify(timing)}`);
    return {
      data: { seed_s: seedSeconds },
      timings,
      targets: {
        'deductions<=2s': timings.deductions_csv.seconds <= 2,
        'server_peak_rss<=300MB': timings.server_memory.peak_rss_mb <= 300,
      },
    };
  } finally {
    await database.destroy();
  }
}

/** One employer with a 2026 medical plan, its configuration, a semimonthly default schedule and `count` covered members. */
async function seed(service, db, providerId, count) {
  const createdAt = '2025-11-01T00:00:00.000Z';
  const id = (kind) => service.newId(kind);
  const { employer, medical } = await insertMedicalEmployer(db, id, { providerId, groupNumber: 'PAY-1', createdAt });
  await insertRows(db, 'plan_configurations', [
    {
      id: id('plan_configuration'),
      provider_id: providerId,
      employer_id: employer,
      plan_id: medical.id,
      waiting_period_days: 0,
      termination_policy: 'termination_date',
      dependent_age_limit: 26,
      dependent_age_out_rule: 'date_of_birth',
      required_subclass_id: null,
      coverage_start_rule: 'first_of_month_following_waiting_period',
      minimum_hours_per_week: null,
      eligible_employment_statuses: null,
      contribution_strategy: null,
      deduction_code: 'MED',
      tax_treatment: null,
      metadata: '{}',
      created_at: createdAt,
    },
  ]);
  const schedule = id('pay_schedule');
  await insertRows(db, 'pay_schedules', [
    {
      id: schedule,
      provider_id: providerId,
      employer_id: employer,
      name: 'Semimonthly',
      frequency: 'semimonthly',
      first_pay_date: '2026-01-15',
      semimonthly_first_day: 15,
      semimonthly_second_day: 31,
      is_default: true,
      created_at: createdAt,
    },
  ]);
  await insertCoveredMembers(db, { count, providerId, employerId: employer, planId: medical.id, id, createdAt, premiumCents: 51240, employerCents: 38430 });
  return { employer, schedule };
}
