// wal-load: sustained enrollment-like writes through the SQLite dialect, sampling the write-ahead log's size.
//
//   node bench/wal-load.js [--dialect src/db/sqlite-dialect.ts] [--seconds 20] [--clients 20] [--members 20000]
//                          [--wal-limit-mb 64] [--directory /tmp]
//
// `clients` loops each run one member's create, submit and approve (three transactions with random ids, a few
// rows and index entries each, a read by id after each), like the enrollment-approvals bench, on one Kysely
// over the dialect (group commit and the checkpoint thread included), from source: no build needed, and
// `--dialect` can point at another version of the file (e.g. `git show REV:src/db/sqlite-dialect.ts` saved
// inside the project) to compare. Every 10 ms the -wal file's size is sampled. Printed as one JSON line:
// transactions per second, their latency (p50/p99/max), the event loop's longest delay, the process's CPU (both
// threads) per transaction, and the log: peak, median over the second half of the run (steady) and final size.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Kysely } from 'kysely';

const { values: options } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'src/db/sqlite-dialect.ts' },
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '20' },
    members: { type: 'string', default: '20000' },
    'wal-limit-mb': { type: 'string' },
    directory: { type: 'string' },
  },
});
const seconds = Number(options.seconds);
const clients = Number(options.clients);
const { NodeSqliteDialect } = await import(pathToFileURL(resolve(options.dialect)).href);

const directory = mkdtempSync(join(options.directory ?? tmpdir(), 'wal-load-'));
const path = join(directory, 'load.db');
const walSizeLimitBytes = options['wal-limit-mb'] === undefined ? undefined : Number(options['wal-limit-mb']) * 1024 * 1024;
const db = new Kysely({ dialect: new NodeSqliteDialect({ path, walSizeLimitBytes }) });
const id = (prefix) => `${prefix}_${randomBytes(12).toString('base64url')}`;
const now = () => new Date().toISOString();
const json = (size) => JSON.stringify({ note: 'x'.repeat(size), at: now() });

try {
  await createSchema(db);
  const members = Array.from({ length: Number(options.members) }, () => id('mem'));
  for (let i = 0; i < members.length; i += 500) {
    await db
      .insertInto('members')
      .values(members.slice(i, i + 500).map((member) => ({ id: member, body: json(300), updated_at: now() })))
      .execute();
  }

  const walSizes = [];
  const sampler = setInterval(() => walSizes.push({ at: performance.now(), bytes: walBytes(path) }), 10);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const latencies = [];
  const timed = async (work) => {
    const started = performance.now();
    await work();
    latencies.push(performance.now() - started);
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const member = members[next++ % members.length];
        const enrollment = id('enr');
        await timed(() =>
          db.transaction().execute(async (trx) => {
            await trx.selectFrom('members').select('id').where('id', '=', member).executeTakeFirstOrThrow();
            await trx
              .insertInto('enrollments')
              .values({ id: enrollment, member_id: member, status: 'not_started', body: json(600), created_at: now(), updated_at: now() })
              .execute();
          }),
        );
        await db.selectFrom('enrollments').selectAll().where('id', '=', enrollment).executeTakeFirstOrThrow();
        await timed(() =>
          db.transaction().execute(async (trx) => {
            await trx
              .updateTable('enrollments')
              .set({ status: 'pending', updated_at: now() })
              .where('id', '=', enrollment)
              .where('status', '=', 'not_started')
              .execute();
            await trx
              .insertInto('notifications')
              .values({ id: id('ntf'), related_object_id: enrollment, type: 'enrollment_submitted', body: json(200), created_at: now() })
              .execute();
          }),
        );
        await db.selectFrom('enrollments').selectAll().where('id', '=', enrollment).executeTakeFirstOrThrow();
        await timed(() =>
          db.transaction().execute(async (trx) => {
            await trx
              .updateTable('enrollments')
              .set({ status: 'approved', updated_at: now() })
              .where('id', '=', enrollment)
              .where('status', '=', 'pending')
              .execute();
            for (const line of ['medical', 'dental']) {
              await trx
                .insertInto('benefit_changes')
                .values({ id: id('bc'), enrollment_id: enrollment, line, body: json(400), created_at: now() })
                .execute();
            }
            await trx.updateTable('members').set({ updated_at: now() }).where('id', '=', member).execute();
            await trx
              .insertInto('notifications')
              .values({ id: id('ntf'), related_object_id: enrollment, type: 'enrollment_approved', body: json(200), created_at: now() })
              .execute();
          }),
        );
        await db.selectFrom('enrollments').selectAll().where('id', '=', enrollment).executeTakeFirstOrThrow();
      }
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  loopDelay.disable();

  const sorted = Float64Array.from(latencies).sort();
  const secondHalf = walSizes.filter((sample) => sample.at >= started + (wallSeconds * 1000) / 2).map((sample) => sample.bytes);
  const mb = (bytes) => Math.round((10 * bytes) / (1024 * 1024)) / 10;
  const ms = (value) => Math.round(value * 100) / 100;
  console.log(
    JSON.stringify({
      dialect: options.dialect,
      seconds: ms(wallSeconds),
      clients,
      transactions_per_s: Math.round(latencies.length / wallSeconds),
      cpu_us_per_transaction: Math.round((cpu.user + cpu.system) / latencies.length),
      transaction_p50_ms: ms(percentile(sorted, 0.5)),
      transaction_p99_ms: ms(percentile(sorted, 0.99)),
      transaction_max_ms: ms(percentile(sorted, 1)),
      event_loop_delay_max_ms: ms(loopDelay.max / 1e6),
      database_mb: mb(statSync(path).size),
      wal_peak_mb: mb(Math.max(...walSizes.map((sample) => sample.bytes))),
      wal_steady_mb: mb(percentile(Float64Array.from(secondHalf).sort(), 0.5)),
      wal_final_mb: mb(walBytes(path)),
    }),
  );
} finally {
  await db.destroy();
  rmSync(directory, { recursive: true, force: true });
}

function walBytes(databasePath) {
  try {
    return statSync(`${databasePath}-wal`).size;
  } catch {
    return 0;
  }
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length))) - 1];
}

async function createSchema(kysely) {
  await kysely.schema
    .createTable('members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('body', 'text')
    .addColumn('updated_at', 'text')
    .execute();
  await kysely.schema
    .createTable('enrollments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await kysely.schema.createIndex('enrollments_member').on('enrollments').columns(['member_id']).execute();
  await kysely.schema.createIndex('enrollments_created').on('enrollments').columns(['created_at', 'id']).execute();
  await kysely.schema.createIndex('enrollments_status').on('enrollments').columns(['status', 'created_at']).execute();
  await kysely.schema
    .createTable('benefit_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id'))
    .addColumn('line', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await kysely.schema.createIndex('benefit_changes_enrollment').on('benefit_changes').columns(['enrollment_id']).execute();
  await kysely.schema.createIndex('benefit_changes_created').on('benefit_changes').columns(['created_at', 'id']).execute();
  await kysely.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await kysely.schema.createIndex('notifications_related').on('notifications').columns(['related_object_id', 'created_at']).execute();
  await kysely.schema.createIndex('notifications_type').on('notifications').columns(['type', 'created_at']).execute();
}
