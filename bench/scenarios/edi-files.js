// edi-files: the carrier EDI feed at scale. One edi group of 50,000 covered members (medical, half of them
// with a spouse and a child on it; SSNs encrypted as the service stores them), of whom 5,000 also have a new
// dental election waiting for a file. Times, on the real server, building the full file of everyone covered
// (POST /edi_files kind full: 50,000 subscribers and 50,000 dependents), then the change file of those 5,000
// benefit changes (POST /edi_files kind change; the carrier now holds everyone's demographics, so the change
// file also looks for demographic changes), and downloading the full file (GET .../content, streamed), then
// reads the server's peak RSS. Targets (bench/README.md "Scenarios"): change file <= 1 s, full file <= 3 s,
// server peak RSS <= 300 MB; also stated per 1,000 ceiling req/s.

import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { forEachDatabase, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { memoryOf, timed } from '../lib/processes.js';
import { importDist } from '../lib/service.js';
import { insertRows, memberRow, planRow, secondsSince, seedEmployerGroup, UNCHANGED_COVERAGE_COLUMNS, wholeNumberFrom } from '../lib/seed.js';

export const name = 'edi-files';
export const key = 'edi_files';
export const description = 'X12 834 at 50,000 members: a change file of 5,000 changes, a full file (built and downloaded)';

const DEFAULT_MEMBERS = 50_000;
const DEFAULT_CHANGES = 5_000;
const AS_OF = '2026-06-01';
/** The bench's trading partner (download delivery): our ids (ISA06, GS02 in the 834) and the carrier's. */
export const EDI_PROFILE = {
  interchange_sender: { qualifier: 'ZZ', id: 'BENCHSENDER' },
  interchange_receiver: { qualifier: 'ZZ', id: 'BENCHCARRIER' },
  application_sender_code: 'BENCHSENDER',
  application_receiver_code: 'BENCHCARRIER',
  sponsor: { name: 'Scale Employer Inc', tax_id: '123456789' },
  payer: { name: 'Scale Health', id: '987654321' },
  delivery: { method: 'download' },
};

export async function run({ service, kinds, log, env = process.env }) {
  const members = wholeNumberFrom(env, 'BENCH_EDI_MEMBERS', DEFAULT_MEMBERS, 10);
  const changes = Math.min(members, wholeNumberFrom(env, 'BENCH_EDI_CHANGES', DEFAULT_CHANGES, 1));
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, members, changes, log: (line) => log(`[${kind}] ${line}`) }));
  return { settings: { members, changes, as_of: AS_OF }, ...byDatabase };
}

async function runOn(kind, { service, members, changes, log }) {
  const database = await createBenchDatabase(kind, service);
  const encryptionKey = randomBytes(32);
  try {
    const seedStarted = Date.now();
    const db = database.handle.db;
    const created = await new service.ApiKeyService(db, service.systemClock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const { Encrypter } = await importDist('shared/crypto.js');
    const seeded = await seed(service, db, created.provider, members, changes, new Encrypter(encryptionKey));
    if (kind === 'postgres') await sql`analyze`.execute(db);
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${members} members (${seeded.dependents} dependents), ${changes} changes waiting, in ${seedSeconds} s`);
    await database.closeHandle();

    // The server's own daily sweep must not start during the measurement.
    const server = await startService({
      databaseUrl: database.url,
      env: { BENEFITS_ENCRYPTION_KEY: encryptionKey.toString('hex'), SWEEP_TIME: '23:59', SWEEP_TIME_ZONE: 'Pacific/Kiritimati' },
    });
    const headers = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' };
    const timings = {};
    try {
      timings.server_memory_at_start = memoryOf(server.pid);
      await request(`${server.url}/groups/${seeded.group}/edi_profile`, 'PUT', headers, EDI_PROFILE);

      const full = await timed(() => request(`${server.url}/edi_files`, 'POST', headers, { group: seeded.group, kind: 'full', as_of: AS_OF }));
      if (full.value.member_count !== members) throw new Error(`the full file lists ${full.value.member_count} members, expected ${members}`);
      timings.full_file = { seconds: full.seconds, members, segments: full.value.segment_count, bytes: full.value.byte_count };

      timings.server_memory_after_full = memoryOf(server.pid);
      const change = await timed(() => request(`${server.url}/edi_files`, 'POST', headers, { group: seeded.group, kind: 'change' }));
      if (change.value.benefit_changes.length !== changes)
        throw new Error(`the change file carries ${change.value.benefit_changes.length} changes, expected ${changes}`);
      timings.change_file = { seconds: change.seconds, benefit_changes: changes, members: change.value.member_count, bytes: change.value.byte_count };

      const download = await timed(async () => {
        const response = await fetch(`${server.url}/edi_files/${full.value.id}/content`, { headers, signal: AbortSignal.timeout(120_000) });
        if (response.status !== 200) throw new Error(`GET content answered ${response.status}`);
        let bytes = 0;
        for await (const chunk of response.body) bytes += chunk.length;
        return bytes;
      });
      if (download.value !== full.value.byte_count) throw new Error(`downloaded ${download.value} bytes, the record says ${full.value.byte_count}`);
      timings.full_file_download = { seconds: download.seconds, bytes: download.value };
      timings.server_memory = memoryOf(server.pid);
    } finally {
      await server.stop();
    }
    for (const [label, timing] of Object.entries(timings)) log(`${label}: ${JSON.stringify(timing)}`);
    return {
      data: { seed_s: seedSeconds },
      timings,
      targets: {
        'change_file<=1s': timings.change_file.seconds <= 1,
        'full_file<=3s': timings.full_file.seconds <= 3,
        'server_peak_rss<=300MB': timings.server_memory.peak_rss_mb <= 300,
      },
    };
  } finally {
    await database.destroy();
  }
}

async function request(url, method, headers, body) {
  const response = await fetch(url, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(300_000) });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`${method} ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** One employer and edi group with medical and dental plans for 2026; `count` members covered on medical. */
export async function seed(service, db, providerId, count, changeCount, encrypter) {
  const createdAt = '2025-11-01T00:00:00.000Z';
  const id = (kind) => service.newId(kind);
  const { employer, group } = await seedEmployerGroup(db, id, { providerId, groupNumber: 'EDI-1', connectionMethod: 'edi', createdAt });
  const [medical, dental] = ['medical', 'dental'].map((line) =>
    planRow({
      id: id('plan'),
      providerId,
      employerId: employer,
      groupId: group,
      line,
      name: `Scale ${line}`,
      start: '2026-01-01',
      end: '2026-12-31',
      createdAt,
    }),
  );
  await insertRows(db, 'plans', [medical, dental]);

  const enrollment = (memberId, start) => ({
    id: id('enrollment'),
    provider_id: providerId,
    employer_id: employer,
    member_id: memberId,
    category: 'open_enrollment',
    status: 'approved',
    effective_start: start,
    effective_end: null,
    reason: 'open_enrollment',
    change_date: null,
    qualifying_life_event_documents: '[]',
    metadata: '{}',
    submitted_at: createdAt,
    approved_at: createdAt,
    open_enrollment_window_id: null,
    created_at: createdAt,
  });
  const enrolledPlan = (enrollmentRow, planId, start) => ({
    id: id('enrolled_plan'),
    provider_id: providerId,
    enrollment_id: enrollmentRow.id,
    member_id: enrollmentRow.member_id,
    plan_id: planId,
    position: 0,
    effective_start: start,
    effective_end: '2026-12-31',
    premium_cents: null,
    employer_contribution_cents: null,
    member_contribution_cents: null,
    payroll_provider_external_id: null,
    ...UNCHANGED_COVERAGE_COLUMNS,
    created_at: createdAt,
  });
  const members = [];
  const dependents = [];
  const enrollments = [];
  const enrolledPlans = [];
  const enrolledDependents = [];
  const changes = [];
  for (let i = 0; i < count; i++) {
    // Nine digits the SSA issues (area 100-599, group 01-99, serial from 0001), unique per member.
    const ssn = `${100 + (i % 500)}${String(1 + (Math.floor(i / 500) % 99)).padStart(2, '0')}${String(1 + Math.floor(i / 49_500)).padStart(4, '0')}`;
    const member = {
      ...memberRow({ id: id('member'), providerId, employerId: employer, i, createdAt }),
      ssn_encrypted: encrypter.encrypt(ssn),
      ssn_last_four: ssn.slice(-4),
    };
    members.push(member);
    const medicalEnrollment = enrollment(member.id, '2026-01-01');
    enrollments.push(medicalEnrollment);
    const medicalPlan = enrolledPlan(medicalEnrollment, medical.id, '2026-01-01');
    enrolledPlans.push(medicalPlan);
    if (i % 2 === 0) {
      for (const [relationship, dob, first] of [
        ['spouse', '1981-03-03', 'Spouse'],
        ['child', '2014-07-07', 'Child'],
      ]) {
        const dependent = {
          id: id('dependent'),
          provider_id: providerId,
          employer_id: employer,
          member_id: member.id,
          first_name: `${first}${i}`,
          middle_name: null,
          last_name: member.last_name,
          member_relationship: relationship,
          ssn_last_four: null,
          dob,
          biological_sex: null,
          address: null,
          has_disability: false,
          disability_certified_on: null,
          metadata: '{}',
          created_at: createdAt,
        };
        dependents.push(dependent);
        enrolledDependents.push({
          id: id('enrolled_dependent'),
          provider_id: providerId,
          enrolled_plan_id: medicalPlan.id,
          dependent_id: dependent.id,
          position: enrolledDependents.length,
          ...UNCHANGED_COVERAGE_COLUMNS,
          created_at: createdAt,
        });
      }
    }
    if (i < changeCount) {
      const dentalEnrollment = enrollment(member.id, '2026-07-01');
      enrollments.push(dentalEnrollment);
      const dentalPlan = enrolledPlan(dentalEnrollment, dental.id, '2026-07-01');
      enrolledPlans.push(dentalPlan);
      changes.push({
        id: id('benefit_change'),
        provider_id: providerId,
        employer_id: employer,
        enrollment_id: dentalEnrollment.id,
        member_id: member.id,
        line_of_coverage: 'dental',
        status: 'new',
        changes: '[]',
        previous_enrollment_plan_id: null,
        next_enrollment_plan_id: dentalPlan.id,
        coverage_start: '2026-07-01',
        coverage_end: '2026-12-31',
        group_id: group,
        connection_method: 'edi',
        delivery_state: 'awaiting_file',
        memo: null,
        assignee: null,
        completed_at: null,
        needs_manual_completion: false,
        position: 0,
        created_at: createdAt,
      });
    }
  }
  await insertRows(db, 'members', members, { rowsPerInsert: 400 });
  await insertRows(db, 'dependents', dependents, { rowsPerInsert: 400 });
  await insertRows(db, 'enrollments', enrollments, { rowsPerInsert: 500 });
  await insertRows(db, 'enrolled_plans', enrolledPlans, { rowsPerInsert: 400 });
  await insertRows(db, 'enrolled_dependents', enrolledDependents, { rowsPerInsert: 400 });
  await insertRows(db, 'benefit_changes', changes, { rowsPerInsert: 400 });
  return { group, dependents: dependents.length };
}
