// carriers-get: authenticated GET /carriers/{id} with random ids over 100,000 seeded carriers, against the
// real server, next to a bare Fastify route reading the same row straight from the driver (the ceiling).
// Targets on SQLite: ratio >= 0.5, p99 <= 10 ms, RSS <= 250 MB.

import { sql } from 'kysely';
import { benchServers, compare, forEachDatabase, getJson, startCeiling, startService } from '../lib/bench.js';
import { createBenchDatabase } from '../lib/databases.js';

export const name = 'carriers-get';
export const key = 'carriers_get';
export const description = 'GET /carriers/{id}, random ids over 100,000 carriers, service vs bare driver';

const DEFAULT_CARRIERS = 100_000;
const ROWS_PER_INSERT = 1000;
const ROWS_PER_TRANSACTION = 10_000;
const FIRST_CREATED_AT = Date.parse('2026-01-01T00:00:00.000Z');

/** rss_mb is checked at its peak (VmHWM). PostgreSQL: the ratio to its own bare-driver ceiling (bench/README.md "Scenarios"). */
const TARGETS = {
  sqlite: {
    'ratio>=0.5': (_service, ratio) => ratio >= 0.5,
    'p99_ms<=10': (service) => service.p99_ms <= 10,
    'rss_mb<=250': (service) => service.peak_rss_mb <= 250,
  },
  postgres: {
    'ratio>=0.5': (_service, ratio) => ratio >= 0.5,
  },
};

export async function run({ service, settings, kinds, log, env = process.env }) {
  const carriers = carrierCount(env);
  const result = {
    settings: {
      carriers,
      duration_s: settings.duration,
      connections: settings.connections,
      warmup_s: settings.warmup,
      rounds: settings.rounds,
      rate_limit: 'off (RATE_LIMIT_MAX=0): the limiter counts per API key and the benchmark sends everything with one key',
    },
  };
  const byDatabase = await forEachDatabase(kinds, log, (kind) => runOn(kind, { service, settings, carriers, log: (line) => log(`[${kind}] ${line}`) }));
  return { ...result, ...byDatabase };
}

async function runOn(kind, { service, settings, carriers, log }) {
  const database = await createBenchDatabase(kind, service);
  try {
    const seedStarted = Date.now();
    const created = await new service.ApiKeyService(database.handle.db, service.systemClock).createKeyForProvider('bench', {
      role: 'admin',
      name: 'benchmark',
    });
    const rows = await seedCarriers(service, database.handle.db, created.provider, carriers);
    if (kind === 'postgres') await sql`analyze carriers`.execute(database.handle.db);
    await database.closeHandle();
    log(`seeded ${carriers} carriers in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const ids = rows.map((row) => row.id);
    const sample = rows[Math.floor(rows.length / 2)];
    const path = () => `/carriers/${ids[Math.floor(Math.random() * ids.length)]}`;
    const authorization = { authorization: `Bearer ${created.key}` };

    const measured = await benchServers(
      [
        {
          label: 'service',
          start: () => startService({ databaseUrl: database.url }),
          verify: async (url) => {
            await getJson(`${url}/carriers/${sample.id}`, {}, 401);
            checkCarrier(await getJson(`${url}/carriers/${sample.id}`, authorization), sample, 'service');
          },
          path,
          headers: authorization,
        },
        {
          label: 'ceiling',
          start: () => startCeiling({ routes: ['carriers-get'], databaseEnv: database.ceilingEnv }),
          verify: async (url) => checkCarrier(await getJson(`${url}/carriers/${sample.id}`), sample, 'ceiling'),
          path,
          headers: {},
        },
      ],
      { settings, log },
    );
    return compare({ service: measured.service, ceiling: measured.ceiling, targets: TARGETS[kind] });
  } finally {
    await database.destroy();
  }
}

/** Inserts `count` carriers of the provider, in multi-row inserts batched into transactions; returns the rows. */
export async function seedCarriers(service, db, providerId, count) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    const number = String(i + 1).padStart(6, '0');
    const id = service.newId('carrier');
    rows.push({
      id,
      provider_id: providerId,
      legal_name: `Carrier ${number} Mutual Insurance Company`,
      trade_name: i % 3 === 0 ? null : `Carrier ${number}`,
      logo_url: i % 2 === 0 ? `https://cdn.example.com/carriers/${id}/logo.png` : null,
      created_at: new Date(FIRST_CREATED_AT + i * 1000).toISOString(),
    });
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_TRANSACTION) {
    const chunk = rows.slice(start, start + ROWS_PER_TRANSACTION);
    await db.transaction().execute(async (trx) => {
      for (let offset = 0; offset < chunk.length; offset += ROWS_PER_INSERT) {
        await trx
          .insertInto('carriers')
          .values(chunk.slice(offset, offset + ROWS_PER_INSERT))
          .execute();
      }
    });
  }
  return rows;
}

/** Both servers must return the seeded row (the ceiling returns the raw row, the service its representation). */
function checkCarrier(body, expected, label) {
  for (const field of ['id', 'legal_name', 'trade_name', 'logo_url']) {
    if (body[field] !== expected[field]) {
      throw new Error(`${label}: GET /carriers/${expected.id} returned ${field}=${JSON.stringify(body[field])}, expected ${JSON.stringify(expected[field])}`);
    }
  }
  if (Date.parse(body.created_at) !== Date.parse(expected.created_at)) {
    throw new Error(`${label}: GET /carriers/${expected.id} returned created_at=${JSON.stringify(body.created_at)}, expected ${expected.created_at}`);
  }
}

function carrierCount(env) {
  const raw = env.BENCH_CARRIERS?.trim();
  if (!raw) return DEFAULT_CARRIERS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_CARRIERS must be a positive whole number (got "${raw}")`);
  return value;
}
