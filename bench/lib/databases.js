// Fresh, migrated databases for one benchmark: a temporary SQLite file, or a new PostgreSQL schema that is
// dropped afterwards. Both are registered for cleanup as soon as they exist.

import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { onCleanup, removePath } from './cleanup.js';

/**
 * The databases this run covers: SQLite always, PostgreSQL when DATABASE_URL points at one. BENCH_DATABASES
 * (e.g. "sqlite" or "postgres") narrows the list.
 */
export function benchDatabaseKinds(env = process.env) {
  const kinds = ['sqlite'];
  if (isPostgresUrl(env.DATABASE_URL)) kinds.push('postgres');
  const wanted = env.BENCH_DATABASES?.split(',')
    .map((kind) => kind.trim())
    .filter(Boolean);
  if (!wanted?.length) return kinds;
  for (const kind of wanted) {
    if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`BENCH_DATABASES: unknown database "${kind}" (sqlite, postgres)`);
    if (!kinds.includes(kind)) throw new Error(`BENCH_DATABASES names ${kind}, but DATABASE_URL does not point at a PostgreSQL database`);
  }
  return kinds.filter((kind) => wanted.includes(kind));
}

export function isPostgresUrl(url) {
  return typeof url === 'string' && /^postgres(ql)?:\/\//.test(url.trim());
}

/**
 * A fresh database of that kind, migrated, opened through the service's own openDatabase. Returns
 * { kind, url, handle, ceilingEnv, closeHandle(), destroy() }: `url` is the DATABASE_URL the server gets,
 * `ceilingEnv` what the bare ceiling server needs to read the same data. SQLite adds `path` (the database
 * file, for bulk loading through node:sqlite), PostgreSQL `schema`.
 */
export async function createBenchDatabase(kind, service, env = process.env) {
  const database = kind === 'sqlite' ? createSqlite(service) : await createPostgres(service, env.DATABASE_URL.trim());
  try {
    await service.migrateToLatest(database.handle.db);
  } catch (error) {
    await database.destroy();
    throw error;
  }
  return database;
}

function createSqlite(service) {
  const directory = mkdtempSync(join(tmpdir(), 'benefits-bench-'));
  const path = join(directory, 'bench.db');
  const url = `sqlite:${path}`;
  const handle = service.openDatabase(url);
  const closeHandle = once(() => handle.close());
  const destroy = onCleanup(
    `remove ${directory}`,
    async () => {
      await closeHandle();
      removePath(directory);
    },
    () => removePath(directory),
  );
  return { kind: 'sqlite', url, path, handle, ceilingEnv: { CEILING_DATABASE: 'sqlite', CEILING_SQLITE_PATH: path }, closeHandle, destroy };
}

/**
 * Samples the size of an SQLite database's write-ahead log (the `-wal` file next to it) every `intervalMs`
 * until stop(); `peakMb` is the largest size seen. The file only shrinks when the log starts over, so sampling
 * misses at most the last few milliseconds of growth before that.
 */
export function sampleWalSize(path, intervalMs = 20) {
  let peakBytes = 0;
  const sample = () => {
    try {
      peakBytes = Math.max(peakBytes, statSync(`${path}-wal`).size);
    } catch {
      // No log (yet, or any more): nothing to count.
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
    },
    get peakMb() {
      return Math.round((10 * peakBytes) / (1024 * 1024)) / 10;
    },
  };
}

async function createPostgres(service, baseUrl) {
  const schema = `bench_${service.randomBase62(12).toLowerCase()}`;
  await withClient(baseUrl, (client) => client.query(`create schema ${schema}`));
  const handle = service.openDatabase(baseUrl, { schema, poolSize: 4 });
  const closeHandle = once(() => handle.close());
  const destroy = onCleanup(`drop schema ${schema}`, async () => {
    await closeHandle();
    await withClient(baseUrl, (client) => client.query(`drop schema if exists ${schema} cascade`));
  });
  // openDatabase puts the URL's `options` parameter on every connection of the server's pool.
  const url = new URL(baseUrl);
  const options = [url.searchParams.get('options'), `-c search_path=${schema}`].filter(Boolean).join(' ');
  url.searchParams.set('options', options);
  return {
    kind: 'postgres',
    url: url.toString(),
    schema,
    handle,
    ceilingEnv: { CEILING_DATABASE: 'postgres', CEILING_POSTGRES_URL: url.toString() },
    closeHandle,
    destroy,
  };
}

async function withClient(connectionString, work) {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL at ${redact(connectionString)} is unreachable: ${String(error)}`, { cause: error });
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A URL for messages: no password. */
export function redact(connectionString) {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

function once(fn) {
  let result;
  return () => (result ??= fn());
}
