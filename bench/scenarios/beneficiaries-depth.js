// beneficiaries-depth: GET /beneficiaries, the first page against the page 1,000 pages deep, on the real
// server. Keyset pagination should make a page cost the same wherever it is (docs/decisions.md "Pagination");
// the target is that the deep page cost no more than 1.5x the first. The same with ?member= on a member with as
// many beneficiaries. Page 2 is measured too: it carries a cursor like the deep page but is not deep, which
// tells depth from cursor costs.
// Targets on SQLite: rps_first/rps_deep <= 1.5 and p50_deep/p50_first <= 1.5, both unfiltered and by member.
//
// Seeded: one provider and employer, 1,001 members and 2 x 25,025 beneficiaries (page size 25, 1,000 pages
// deep, one page more so that page 1,000 is full and has a next link). Half belong to one member, the other
// half are spread over the other 1,000 members, and the two halves interleave in time (distinct created_at),
// so that the member filter cannot just read a contiguous stretch of the provider's list. The deep page's URL
// is reached by following `next` links from the first page through the server (the cursors are signed).

import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { benchVariants, getJson, forEachDatabase, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { explainQuery } from '../lib/plans.js';
import { round } from '../lib/processes.js';
import { employerRow, insertRows, memberRow, secondsSince, wholeNumberFrom } from '../lib/seed.js';
import { importDist } from '../lib/service.js';

export const name = 'beneficiaries-depth';
export const key = 'beneficiaries_depth';
export const description = 'GET /beneficiaries: first page vs the page 1,000 pages deep (also ?member=)';

const PAGE_SIZE = 25;
const DEFAULT_DEPTH = 1000;
const OTHER_MEMBERS = 1000;
const FIRST_CREATED_AT = Date.parse('2025-01-01T00:00:00.000Z');
const RELATIONSHIPS = ['spouse', 'child', 'child', 'parent', 'sibling', 'domestic_partner', 'estate', 'trust', 'charity', 'friend'];
const MAX_COST = 1.5;

const SQLITE_TARGETS = {
  'rps_first/rps_deep<=1.5': (f) => f.rps_first_over_deep <= MAX_COST,
  'p50_deep/p50_first<=1.5': (f) => f.p50_deep_over_first <= MAX_COST,
  'member rps_first/rps_deep<=1.5': (f) => f.member_rps_first_over_deep <= MAX_COST,
  'member p50_deep/p50_first<=1.5': (f) => f.member_p50_deep_over_first <= MAX_COST,
};

export async function run({ service, settings, kinds, log, env = process.env }) {
  const depth = wholeNumberFrom(env, 'BENCH_DEPTH_PAGES', DEFAULT_DEPTH, 2);
  const perList = (depth + 1) * PAGE_SIZE;
  const result = {
    settings: {
      page_size: PAGE_SIZE,
      depth_pages: depth,
      beneficiaries: 2 * perList,
      members: OTHER_MEMBERS + 1,
      member_filter_beneficiaries: perList,
      duration_s: settings.duration,
      connections: settings.connections,
      warmup_s: settings.warmup,
      rounds: settings.rounds,
      rate_limit: 'off (RATE_LIMIT_MAX=0)',
    },
  };
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, settings, depth, perList, log: (line) => log(`[${kind}] ${line}`) }));
  return { ...result, ...byDatabase };
}

async function runOn(kind, { service, settings, depth, perList, log }) {
  const database = await createBenchDatabase(kind, service);
  try {
    const seedStarted = Date.now();
    const db = database.handle.db;
    const created = await new service.ApiKeyService(db, service.systemClock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const seeded = await seed(service, db, created.provider, perList);
    if (kind === 'postgres') {
      await sql`analyze members`.execute(db);
      await sql`analyze beneficiaries`.execute(db);
    }
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${seeded.rows.length} beneficiaries of ${OTHER_MEMBERS + 1} members in ${seedSeconds} s`);

    // The newest first, as the list answers them: all of them, and the heavy member's.
    const all = seeded.rows.toReversed();
    const ofMember = all.filter((row) => row.member_id === seeded.heavyMember);
    const plans = await explainDeepPages(db, kind, created.provider, { all, ofMember, heavyMember: seeded.heavyMember, depth });
    for (const [label, plan] of Object.entries(plans)) log(`plan ${label} (${plan.median_ms} ms alone): ${plan.plan.join(' | ')}`);
    await database.closeHandle();

    const authorization = { authorization: `Bearer ${created.key}` };
    const firstPath = `/beneficiaries?page_size=${PAGE_SIZE}`;
    const memberFirstPath = `/beneficiaries?member=${seeded.heavyMember}&page_size=${PAGE_SIZE}`;
    const walks = {};
    const measurements = await benchVariants(
      {
        start: () => startService({ databaseUrl: database.url }),
        prepare: async (url) => {
          await getJson(`${url}${firstPath}`, {}, 401);
          walks.all = await walk(url, firstPath, authorization, depth, all, log);
          walks.member = await walk(url, memberFirstPath, authorization, depth, ofMember, log);
          return [
            { label: 'first', path: () => firstPath, headers: authorization },
            { label: 'second', path: () => walks.all.secondPath, headers: authorization },
            { label: 'deep', path: () => walks.all.deepPath, headers: authorization },
            { label: 'member_first', path: () => memberFirstPath, headers: authorization },
            { label: 'member_deep', path: () => walks.member.deepPath, headers: authorization },
          ];
        },
      },
      { settings, log },
    );

    const { first, second, deep, member_first: memberFirst, member_deep: memberDeep } = measurements;
    const figures = {
      rps_first_over_deep: round(first.rps / deep.rps, 3),
      p50_deep_over_first: round(deep.p50_ms / first.p50_ms, 3),
      cpu_us_deep_over_first: round(deep.server_cpu_us_per_req / first.server_cpu_us_per_req, 3),
      // Page 2 carries a cursor and answers a previous link too, like the deep page, but is not deep: what
      // deep costs over second is depth, what second costs over first is cursor handling.
      rps_second_over_deep: round(second.rps / deep.rps, 3),
      cpu_us_deep_over_second: round(deep.server_cpu_us_per_req / second.server_cpu_us_per_req, 3),
      member_rps_first_over_deep: round(memberFirst.rps / memberDeep.rps, 3),
      member_p50_deep_over_first: round(memberDeep.p50_ms / memberFirst.p50_ms, 3),
      member_cpu_us_deep_over_first: round(memberDeep.server_cpu_us_per_req / memberFirst.server_cpu_us_per_req, 3),
    };
    const block = {
      data: {
        seed_s: seedSeconds,
        walk_s: walks.all.seconds,
        walk_ms_first_10_pages: walks.all.msFirst10,
        walk_ms_last_10_pages: walks.all.msLast10,
        member_walk_s: walks.member.seconds,
        member_walk_ms_first_10_pages: walks.member.msFirst10,
        member_walk_ms_last_10_pages: walks.member.msLast10,
      },
      measurements,
      figures,
      plans,
    };
    if (kind === 'sqlite') block.targets = Object.fromEntries(Object.entries(SQLITE_TARGETS).map(([target, met]) => [target, Boolean(met(figures))]));
    return block;
  } finally {
    await database.destroy();
  }
}

/**
 * One employer, OTHER_MEMBERS + 1 members, and 2 x perList beneficiaries: the even ones (in time) of the heavy
 * member, the odd ones spread over the others. Returns { rows (oldest first), heavyMember }.
 */
async function seed(service, db, providerId, perList) {
  const createdAt = (i) => new Date(FIRST_CREATED_AT + i * 1000).toISOString();
  const employer = service.newId('employer');
  await db
    .insertInto('employers')
    .values(employerRow({ id: employer, providerId, legalName: 'Bench Employer Inc.', createdAt: createdAt(-10_000) }))
    .execute();

  const members = [];
  for (let i = 0; i <= OTHER_MEMBERS; i++) {
    members.push(
      memberRow({
        id: service.newId('member'),
        providerId,
        employerId: employer,
        i,
        address: JSON.stringify({ line1: `${i + 1} Elm St`, line2: null, city: 'Springfield', state: 'IL', zip_code: '62701' }),
        createdAt: createdAt(-OTHER_MEMBERS - 1 + i),
      }),
    );
  }
  await insertRows(db, 'members', members, { rowsPerInsert: 500 });
  const heavyMember = members[0].id;

  const rows = [];
  for (let i = 0; i < 2 * perList; i++) {
    const memberId = i % 2 === 0 ? heavyMember : members[1 + ((i >> 1) % OTHER_MEMBERS)].id;
    rows.push({
      id: service.newId('beneficiary'),
      provider_id: providerId,
      employer_id: employer,
      member_id: memberId,
      full_name: `Beneficiary ${i + 1}`,
      member_relationship: RELATIONSHIPS[i % RELATIONSHIPS.length],
      tin_last_four: i % 3 === 0 ? null : String(1000 + (i % 9000)),
      address: i % 4 === 0 ? null : JSON.stringify({ line1: `${i} Oak Ave`, line2: null, city: 'Springfield', state: 'IL', zip_code: '62704' }),
      phone_number: i % 2 === 0 ? '+12175550100' : null,
      dob: i % 5 === 0 ? null : '1990-02-03',
      created_at: createdAt(i),
    });
  }
  await insertRows(db, 'beneficiaries', rows);
  return { rows, heavyMember };
}

/** Plans of the first and the deep page, as the repository builds them (the deep one from page 999's last row). */
async function explainDeepPages(db, kind, providerId, { all, ofMember, heavyMember, depth }) {
  const { listBeneficiaries } = await importDist('modules/beneficiaries/beneficiary.repository.js');
  const scope = { providerId, employerId: null };
  const after = (rows) => {
    const last = rows[(depth - 1) * PAGE_SIZE - 1];
    return { created_at: last.created_at, id: last.id };
  };
  const explain = (filter, page) => explainQuery(db, kind, (capturing) => listBeneficiaries(capturing, scope, filter, page));
  return {
    first: await explain({}, { pageSize: PAGE_SIZE }),
    deep: await explain({}, { pageSize: PAGE_SIZE, after: after(all) }),
    member_first: await explain({ memberId: heavyMember }, { pageSize: PAGE_SIZE }),
    member_deep: await explain({ memberId: heavyMember }, { pageSize: PAGE_SIZE, after: after(ofMember) }),
  };
}

/**
 * Follows `next` from the first page to page `depth`, one request at a time, checking every page against the
 * seeded rows (`expected`, newest first). Returns the deep page's path (what the server handed out) and timings.
 */
async function walk(url, firstPath, headers, depth, expected, log) {
  const started = Date.now();
  const times = [];
  let path = firstPath;
  let secondPath;
  for (let page = 1; page <= depth; page++) {
    const requestStarted = performance.now();
    const body = await getJson(`${url}${path}`, headers);
    times.push(performance.now() - requestStarted);
    const want = expected.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((row) => row.id);
    const got = body.results.map((row) => row.id);
    if (got.length !== want.length || got.some((id, index) => id !== want[index])) {
      throw new Error(`GET ${path} (page ${page}) answered ids ${got.slice(0, 3).join(', ')}..., expected ${want.slice(0, 3).join(', ')}...`);
    }
    if (page === depth) {
      if (!body.next) throw new Error(`page ${depth} has no next link: the seeding did not go deep enough`);
      break;
    }
    if (!body.next) throw new Error(`page ${page} of ${firstPath} has no next link`);
    const next = new URL(body.next);
    path = `${next.pathname}${next.search}`;
    if (page === 1) secondPath = path;
  }
  const mean = (values) => round(values.reduce((sum, value) => sum + value, 0) / values.length, 2);
  const seconds = secondsSince(started);
  log(`walked ${depth} pages of ${firstPath} in ${seconds} s (mean ms/page: first 10 ${mean(times.slice(0, 10))}, last 10 ${mean(times.slice(-10))})`);
  return { secondPath, deepPath: path, seconds, msFirst10: mean(times.slice(0, 10)), msLast10: mean(times.slice(-10)) };
}
