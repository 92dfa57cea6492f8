import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { prepareStatementsOf } from './prepared-statements.ts';
import { NodeSqliteDialect } from './sqlite-dialect.ts';
import type { Database } from './schema.ts';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly kind: DatabaseKind;
  /** Where the data lives, without credentials: for log lines. */
  readonly description: string;
  /** The connections' state now, for the metrics (observability/metrics.ts). */
  stats(): DatabaseStats;
  close(): Promise<void>;
}

export interface DatabaseStats {
  /** Connections by state: `in_use` and `idle` in PostgreSQL's pool; `open` for SQLite's one connection. */
  readonly connections: Readonly<Record<string, number>>;
  /** Queries waiting for a pooled connection (always 0 on SQLite, whose driver takes turns on its one connection). */
  readonly waiting: number;
}

/** Anything queries can run on: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
export type { Transaction };

export interface OpenDatabaseOptions {
  /** PostgreSQL only: the schema to put first on the search path (tests give each run its own). */
  schema?: string;
  /** PostgreSQL only: connections in the pool. */
  poolSize?: number;
}

export function databaseKindOf(url: string): DatabaseKind {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

function sqlitePathOf(url: string): string {
  const rawPath = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return rawPath === ':memory:' ? rawPath : resolve(rawPath);
}

/** Where the data of a `DATABASE_URL` lives, without credentials: for log lines and error messages. */
export function describeDatabase(url: string): string {
  if (databaseKindOf(url) === 'sqlite') return `sqlite:${sqlitePathOf(url)}`;
  const target = new URL(url);
  return `postgres://${target.host}${target.pathname}`;
}

/** Opens the database a `DATABASE_URL` names: `sqlite:PATH` (or `sqlite::memory:`) or `postgres://...`. */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): DatabaseHandle {
  if (databaseKindOf(url) === 'sqlite') {
    const path = sqlitePathOf(url);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Kysely<Database>({ dialect: new NodeSqliteDialect({ path }) });
    const stats = (): DatabaseStats => ({ connections: { open: 1 }, waiting: 0 });
    return { db, kind: 'sqlite', description: `sqlite:${path}`, stats, close: () => db.destroy() };
  }
  const target = new URL(url);
  // Prepared statements (prepared-statements.ts) are planned for their values on every run, never with a generic
  // plan chosen once: a precaution, so that a statement prepared while a table was small is planned again as it
  // grows. What they save is the parsing. (The 1-4 ms reads once seen on growing tables came from statistics not
  // yet gathered, with or without this setting; the approvals bench measured no throughput difference.)
  const sessionOptions = [
    target.searchParams.get('options'),
    options.schema ? `-c search_path=${options.schema}` : null,
    '-c TimeZone=UTC',
    '-c plan_cache_mode=force_custom_plan',
  ].filter(Boolean);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    options: sessionOptions.join(' '),
    types: { getTypeParser: postgresTypeParser as typeof pg.types.getTypeParser },
  });
  pool.on('connect', (client) => prepareStatementsOf(client));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    description: describeDatabase(url),
    stats: () => ({ connections: { in_use: pool.totalCount - pool.idleCount, idle: pool.idleCount }, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

const PG_INT8 = 20;
const PG_JSON = 114;
const PG_JSONB = 3802;
const PG_DATE = 1082;
const PG_TIMESTAMPTZ = 1184;

/**
 * Rows read the same on both databases: bigint columns as numbers (cents fit easily), JSON as its text,
 * dates as 'YYYY-MM-DD', timestamps as the ISO strings SQLite stores.
 */
function postgresTypeParser(oid: number, format?: string): (value: string) => unknown {
  switch (oid) {
    case PG_INT8:
      return (value) => Number(value);
    case PG_JSON:
    case PG_JSONB:
    case PG_DATE:
      return (value) => value;
    case PG_TIMESTAMPTZ: {
      const parseDate = pg.types.getTypeParser(PG_TIMESTAMPTZ, 'text') as (value: string) => Date;
      return (value) => isoFromUtcTimestamp(value) ?? parseDate(value).toISOString();
    }
    default:
      return pg.types.getTypeParser(oid, format as 'text') as (value: string) => unknown;
  }
}

/** A timestamptz as PostgreSQL writes it in the UTC session (`2026-03-02 15:00:00.123+00`), at most milliseconds. */
const UTC_TIMESTAMP = /^([1-9]\d{3}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?\+00$/;

/**
 * The ISO string Date#toISOString gives for a timestamptz PostgreSQL wrote in the UTC session, made from its
 * text without a Date (the service stores milliseconds, and every timestamp read went through a Date: about
 * 3% of a full 834 file's CPU); undefined for anything else (another offset, microseconds, a year before
 * 1000, infinity), which the caller parses the general way.
 */
export function isoFromUtcTimestamp(value: string): string | undefined {
  const match = UTC_TIMESTAMP.exec(value);
  if (!match) return undefined;
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0')}Z`;
}

/** True when an insert or update broke a unique (or primary key) constraint, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (code === '23505') return true;
  if (errcode === 2067 || errcode === 1555) return true;
  return typeof message === 'string' && message.includes('UNIQUE constraint failed');
}
