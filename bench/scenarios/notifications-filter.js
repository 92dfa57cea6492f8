// notifications-filter: GET /notifications?notification_type=<t1>,<t2>&related_object_id=<random id> over
// 1,000,000 notifications of 100,000 related objects, on the real server; next to it, type-only filtering
// (?notification_type=welcome), which has no target but shows whether the type index does its job.
// Target on SQLite: p99 <= 20 ms for the type + related object filter.
//
// The data is generated from a fixed seed: 70% of the related objects are members (welcome, newly_eligible,
// member_terminated, open enrollment kickoffs and reminders), 20% enrollments (submitted, approved), about 10%
// dependents (dependent_age_out) and 0.05% open enrollment windows, which are few but each collects
// thousands of kickoffs and reminders. Every notification goes to a random object (the windows weigh 150
// times a member), with distinct created_at, 20 employers, and unique occurrence keys on the once-only types.
// It is bulk-loaded in multi-row statements: prepared 1,000-row INSERTs through node:sqlite into the file the
// service opens, or 10,000-row INSERT ... SELECT FROM unnest(...) on PostgreSQL.
//
// Each request picks a related object uniformly and two types that object can have.

import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { benchVariants, forEachDatabase, getJson, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';
import { explainQuery } from '../lib/plans.js';
import { insertRows, secondsSince, seededRandom, wholeNumberFrom } from '../lib/seed.js';
import { importDist } from '../lib/service.js';

export const name = 'notifications-filter';
export const key = 'notifications_filter';
export const description = 'GET /notifications by type + related object (and by type only) over 1,000,000 notifications';

const DEFAULT_NOTIFICATIONS = 1_000_000;
/** Related objects: one for every 10 notifications by default (100,000). */
const NOTIFICATIONS_PER_OBJECT = 10;
const EMPLOYERS = 20;
const PAGE_SIZE = 25;
const SQLITE_ROWS_PER_INSERT = 1000;
const SQLITE_ROWS_PER_TRANSACTION = 100_000;
const POSTGRES_ROWS_PER_INSERT = 10_000;
const FIRST_CREATED_AT = Date.parse('2025-01-01T00:00:00.000Z');
const SECONDS_APART = 30;
const TYPE_ONLY = 'welcome';
const COLUMNS = [
  'id',
  'provider_id',
  'employer_id',
  'notification_type',
  'related_object_type',
  'related_object_id',
  'payload',
  'owner',
  'occurrence_key',
  'created_at',
];

/** The kinds of related object: their share of the objects, the weight of each in drawing notifications, their types. */
const OBJECT_KINDS = [
  {
    type: 'member',
    idKind: 'member',
    share: 0.7,
    weight: 1,
    types: { welcome: 1.5, newly_eligible: 1.5, member_terminated: 0.5, open_enrollment_kickoff: 2, open_enrollment_reminder: 5 },
  },
  { type: 'enrollment', idKind: 'enrollment', share: 0.2, weight: 0.6, types: { enrollment_submitted: 1, enrollment_approved: 1 } },
  { type: 'dependent', idKind: 'dependent', share: 0.0995, weight: 0.3, types: { dependent_age_out: 1 } },
  {
    type: 'open_enrollment_window',
    idKind: 'open_enrollment_window',
    share: 0.0005,
    weight: 150,
    types: { open_enrollment_kickoff: 1, open_enrollment_reminder: 4 },
  },
];
const ALL_TYPES = [
  'welcome',
  'newly_eligible',
  'member_terminated',
  'enrollment_submitted',
  'enrollment_approved',
  'dependent_age_out',
  'open_enrollment_kickoff',
  'open_enrollment_reminder',
];
const ONCE_ONLY = new Set(['newly_eligible', 'member_terminated', 'dependent_age_out']);
const EMPLOYER_OWNED = new Set(['member_terminated', 'dependent_age_out']);

const SQLITE_TARGETS = {
  'p99_ms<=20': (m) => m.types_and_object.p99_ms <= 20,
};

export async function run({ service, settings: common, kinds, log, env = process.env }) {
  // A fresh server needs 6-9 s of this load before its JIT settles (211 -> 150 us of CPU per request); the
  // target is about steady state, so unless BENCH_WARMUP says otherwise this scenario warms up for 10 s.
  const settings = env.BENCH_WARMUP ? common : { ...common, warmup: Math.max(common.warmup, 10) };
  const count = wholeNumberFrom(env, 'BENCH_NOTIFICATIONS', DEFAULT_NOTIFICATIONS);
  const objectCount = wholeNumberFrom(
    env,
    'BENCH_NOTIFICATION_OBJECTS',
    Math.max(OBJECT_KINDS.length, Math.round(count / NOTIFICATIONS_PER_OBJECT)),
    OBJECT_KINDS.length,
  );
  const result = {
    settings: {
      notifications: count,
      related_objects: objectCount,
      type_only: TYPE_ONLY,
      duration_s: settings.duration,
      connections: settings.connections,
      warmup_s: settings.warmup,
      rounds: settings.rounds,
      rate_limit: 'off (RATE_LIMIT_MAX=0)',
    },
  };
  const byDatabase = await forEachDatabase(kinds, log, (kind) =>
    runOn(kind, { service, settings, count, objectCount, log: (line) => log(`[${kind}] ${line}`) }),
  );
  return { ...result, ...byDatabase };
}

async function runOn(kind, { service, settings, count, objectCount, log }) {
  const database = await createBenchDatabase(kind, service);
  try {
    const seedStarted = Date.now();
    const db = database.handle.db;
    const created = await new service.ApiKeyService(db, service.systemClock).createKeyForProvider('bench', { role: 'admin', name: 'benchmark' });
    const employers = await seedEmployers(service, db, created.provider);
    const data = generator(service, created.provider, employers, count, objectCount);
    if (kind === 'sqlite') loadSqlite(database.path, data);
    else await loadPostgres(db, data);
    if (kind === 'postgres') await sql`analyze notifications`.execute(db);
    const seedSeconds = secondsSince(seedStarted);
    log(`seeded ${count} notifications of ${objectCount} related objects in ${seedSeconds} s (${JSON.stringify(data.typeCounts)})`);

    const plans = await explainFilters(db, kind, created.provider, data);
    for (const [label, plan] of Object.entries(plans)) log(`plan ${label} (${plan.median_ms} ms alone): ${plan.plan.join(' | ')}`);
    await database.closeHandle();

    const authorization = { authorization: `Bearer ${created.key}` };
    const random = seededRandom(7);
    const typesAndObject = () => {
      const object = data.objects[Math.floor(random() * data.objects.length)];
      const pairs = object.kind.pairs;
      const [first, second] = pairs[Math.floor(random() * pairs.length)];
      return `/notifications?notification_type=${first},${second}&related_object_id=${object.id}`;
    };
    const typeOnlyPath = `/notifications?notification_type=${TYPE_ONLY}`;
    const measurements = await benchVariants(
      {
        start: () => startService({ databaseUrl: database.url }),
        prepare: async (url) => {
          await getJson(`${url}${typeOnlyPath}`, {}, 401);
          for (const sample of data.samples) {
            const path = `/notifications?notification_type=${sample.types.join(',')}&related_object_id=${sample.object.id}&page_size=${PAGE_SIZE}`;
            checkIds(await getJson(`${url}${path}`, authorization), expectedIds(sample.rows, sample.types), path);
          }
          checkIds(await getJson(`${url}${typeOnlyPath}`, authorization), data.newestTypeOnly.toReversed(), typeOnlyPath);
          return [
            { label: 'types_and_object', path: typesAndObject, headers: authorization },
            { label: 'type_only', path: () => typeOnlyPath, headers: authorization },
          ];
        },
      },
      { settings, log },
    );
    const block = {
      data: { seed_s: seedSeconds },
      type_mix: data.typeCounts,
      measurements,
      plans,
    };
    if (kind === 'sqlite') block.targets = Object.fromEntries(Object.entries(SQLITE_TARGETS).map(([target, met]) => [target, Boolean(met(measurements))]));
    return block;
  } finally {
    await database.destroy();
  }
}

async function seedEmployers(service, db, providerId) {
  const rows = [];
  for (let i = 0; i < EMPLOYERS; i++) {
    rows.push({
      id: service.newId('employer'),
      provider_id: providerId,
      legal_name: `Bench Employer ${i + 1} Inc.`,
      trade_name: null,
      federal_ein: null,
      email: null,
      phone_number: null,
      address: JSON.stringify({ line1: `${i + 1} Main St`, city: 'Springfield', state: 'IL', zip_code: '62701' }),
      external_id: null,
      metadata: '{}',
      created_at: new Date(FIRST_CREATED_AT - (EMPLOYERS - i) * 1000).toISOString(),
    });
  }
  await insertRows(db, 'employers', rows);
  return rows.map((row) => row.id);
}

/**
 * The related objects, and `rows()`, which yields each notification's values (in COLUMNS order), oldest
 * first, from a fixed seed. Keeps what the checks need: every notification of a few sample
 * objects, the newest TYPE_ONLY ones, and the count of each type.
 */
function generator(service, providerId, employers, count, objectCount) {
  const random = seededRandom(20_261_122);
  const kinds = OBJECT_KINDS.map((kind) => ({ ...kind, typeNames: Object.keys(kind.types), pairs: pairsOf(Object.keys(kind.types)) }));
  const objects = [];
  const byKind = [];
  let assigned = 0;
  for (const [index, kind] of kinds.entries()) {
    const last = index === kinds.length - 1;
    const n = last ? objectCount - assigned : Math.max(1, Math.round(kind.share * objectCount));
    assigned += n;
    const ofKind = [];
    for (let i = 0; i < n; i++) {
      const object = { id: service.newId(kind.idKind), kind, employer: employers[objects.length % employers.length] };
      objects.push(object);
      ofKind.push(object);
    }
    byKind.push(ofKind);
  }
  const kindWeights = cumulative(kinds.map((kind, index) => kind.weight * byKind[index].length));
  const typeWeights = kinds.map((kind) => cumulative(Object.values(kind.types)));

  // Samples: a window (thousands of notifications) and a member, with the pair of types the requests use.
  const samples = [
    { object: byKind[3][0], types: ['open_enrollment_kickoff', 'open_enrollment_reminder'], rows: [] },
    { object: byKind[0][0], types: ['welcome', 'open_enrollment_reminder'], rows: [] },
  ];
  const sampled = new Map(samples.map((sample) => [sample.object, sample]));
  const newestTypeOnly = [];
  const typeCounts = Object.fromEntries(ALL_TYPES.map((type) => [type, 0]));

  return {
    objects,
    samples,
    newestTypeOnly,
    typeCounts,
    count,
    *rows() {
      for (let i = 0; i < count; i++) {
        const kindIndex = pick(kindWeights, random());
        const kind = kinds[kindIndex];
        const ofKind = byKind[kindIndex];
        const object = ofKind[Math.floor(random() * ofKind.length)];
        const type = kind.typeNames[pick(typeWeights[kindIndex], random())];
        const id = service.newId('notification');
        const createdAt = new Date(FIRST_CREATED_AT + i * SECONDS_APART * 1000).toISOString();
        typeCounts[type]++;
        const sample = sampled.get(object);
        if (sample) sample.rows.push({ id, type });
        if (type === TYPE_ONLY) {
          newestTypeOnly.push(id);
          if (newestTypeOnly.length > PAGE_SIZE) newestTypeOnly.shift();
        }
        yield [
          id,
          providerId,
          object.employer,
          type,
          kind.type,
          object.id,
          JSON.stringify({ [kind.type]: object.id, employer: object.employer }),
          kind.type === 'open_enrollment_window' || EMPLOYER_OWNED.has(type) ? 'employer' : 'member',
          ONCE_ONLY.has(type) ? `${type}:${object.id}:${i}` : null,
          createdAt,
        ];
      }
    },
  };
}

/** Bulk load into the SQLite file the service opens: prepared 1,000-row INSERTs, 100,000 rows per transaction. */
function loadSqlite(path, data) {
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('PRAGMA cache_size = -262144');
    const insert = (rows) =>
      db.prepare(`insert into notifications (${COLUMNS.join(', ')}) values ${`(${COLUMNS.map(() => '?').join(', ')})`.repeat(rows).replaceAll(')(', '), (')}`);
    const full = insert(SQLITE_ROWS_PER_INSERT);
    let values = [];
    let inTransaction = 0;
    db.exec('BEGIN');
    for (const row of data.rows()) {
      values.push(...row);
      if (values.length < SQLITE_ROWS_PER_INSERT * COLUMNS.length) continue;
      full.run(...values);
      values = [];
      inTransaction += SQLITE_ROWS_PER_INSERT;
      if (inTransaction >= SQLITE_ROWS_PER_TRANSACTION) {
        db.exec('COMMIT');
        db.exec('BEGIN');
        inTransaction = 0;
      }
    }
    if (values.length > 0) insert(values.length / COLUMNS.length).run(...values);
    db.exec('COMMIT');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  } finally {
    db.close();
  }
}

/** Bulk load into PostgreSQL: INSERT ... SELECT FROM unnest() of one array per column, 10,000 rows a statement. */
async function loadPostgres(db, data) {
  const send = async ([id, provider, employer, type, objectType, objectId, payload, owner, occurrence, createdAt]) => {
    await sql`
      insert into notifications (${sql.raw(COLUMNS.join(', '))})
      select * from unnest(${id}::text[], ${provider}::text[], ${employer}::text[], ${type}::text[], ${objectType}::text[],
        ${objectId}::text[], ${payload}::jsonb[], ${owner}::text[], ${occurrence}::text[], ${createdAt}::timestamptz[])
    `.execute(db);
  };
  let columns = COLUMNS.map(() => []);
  for (const row of data.rows()) {
    row.forEach((value, index) => columns[index].push(value));
    if (columns[0].length < POSTGRES_ROWS_PER_INSERT) continue;
    await send(columns);
    columns = COLUMNS.map(() => []);
  }
  if (columns[0].length > 0) await send(columns);
}

/** Plans of the filters as the repository builds them: a window (thousands of rows), a member, and type only. */
async function explainFilters(db, kind, providerId, data) {
  const { listNotifications } = await importDist('modules/notifications/notification.repository.js');
  const scope = { providerId, employerId: null };
  const explain = (filter) => explainQuery(db, kind, (capturing) => listNotifications(capturing, scope, filter, { pageSize: PAGE_SIZE }));
  const [window, member] = data.samples;
  return {
    types_and_window: await explain({ types: window.types, relatedObjectId: window.object.id }),
    types_and_member: await explain({ types: member.types, relatedObjectId: member.object.id }),
    type_only: await explain({ types: [TYPE_ONLY] }),
  };
}

/** The first page's ids of the sample's notifications of those types, newest first. */
function expectedIds(rows, types) {
  return rows
    .filter((row) => types.includes(row.type))
    .map((row) => row.id)
    .toReversed()
    .slice(0, PAGE_SIZE);
}

function checkIds(body, want, path) {
  const got = body.results.map((row) => row.id);
  if (got.length !== want.length || got.some((id, index) => id !== want[index])) {
    throw new Error(`GET ${path} answered ${got.length} ids (${got.slice(0, 2).join(', ')}...), expected ${want.length} (${want.slice(0, 2).join(', ')}...)`);
  }
}

function pairsOf(types) {
  if (types.length === 1) return ALL_TYPES.filter((type) => type !== types[0]).map((other) => [types[0], other]);
  return types.flatMap((first, index) => types.slice(index + 1).map((second) => [first, second]));
}

function cumulative(weights) {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}

/** The index whose cumulative weight first exceeds `fraction` of the total. */
function pick(cumulativeWeights, fraction) {
  const target = fraction * cumulativeWeights.at(-1);
  const index = cumulativeWeights.findIndex((sum) => sum > target);
  return index === -1 ? cumulativeWeights.length - 1 : index;
}
