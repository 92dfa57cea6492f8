/**
 * Why a start failed, in one line that names the variable to fix (README.md "Configuration"): the process stops
 * with it instead of a stack trace. Anything not recognised here is a bug and keeps its stack trace.
 */
import { sql } from 'kysely';
import { describeDatabase, openDatabase, type DatabaseHandle } from '../db/database.ts';
import { ConfigError } from '../config.ts';

/** How long a start waits for PostgreSQL to answer before saying it cannot reach it. */
const DATABASE_ANSWER_MS = 10_000;

interface SystemError {
  code?: unknown;
  errno?: unknown;
  errcode?: unknown;
  message?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
  syscall?: unknown;
  errors?: unknown;
}

const FILE_ACCESS_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const UNKNOWN_HOST_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
// SQLite's result codes: SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN (https://sqlite.org/rescode.html).
const SQLITE_ACCESS_CODES = new Set([3, 8, 14]);

/** Opens nothing: asks the database one question, so that an unreachable or missing database is said so at once. */
export async function probeDatabase(database: DatabaseHandle): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })), DATABASE_ANSWER_MS);
  });
  try {
    await Promise.race([sql`select 1`.execute(database.db), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The one-line message for a start that failed on its environment; undefined for anything else.
 * `databaseDescription`: the database as `DatabaseHandle.description` writes it (no credentials).
 */
export function explainStartError(error: unknown, databaseDescription: string | undefined): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const failure = error as SystemError;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const message = typeof failure.message === 'string' ? failure.message : '';
  if (failure.syscall === 'listen') return explainListenError(code, failure);
  const postgres = databaseDescription?.startsWith('postgres://') ? databaseDescription : undefined;
  if (postgres) {
    // PostgreSQL's own SQLSTATE codes (https://www.postgresql.org/docs/current/errcodes-appendix.html).
    if (code === '3D000') return `DATABASE_URL names a database that does not exist (${message}, at ${postgres}): create it (createdb) or fix DATABASE_URL`;
    if (code === '28P01' || code === '28000') return `PostgreSQL refused the login at ${postgres} (${message}): fix the user or password in DATABASE_URL`;
    if (code === '42501') return `PostgreSQL refused a permission the service needs at ${postgres} (${message}): grant it, or use another user in DATABASE_URL`;
    const nested = code ?? firstNestedCode(failure);
    if (nested && (UNREACHABLE_CODES.has(nested) || UNKNOWN_HOST_CODES.has(nested))) {
      const why = UNKNOWN_HOST_CODES.has(nested) ? 'its host name is not known' : nested === 'ETIMEDOUT' ? 'no answer' : nested;
      return `cannot reach PostgreSQL at ${postgres} (${why}): start it, or fix DATABASE_URL`;
    }
    return undefined;
  }
  const sqlite = databaseDescription?.startsWith('sqlite:') ? databaseDescription.slice('sqlite:'.length) : undefined;
  if (sqlite === undefined) return undefined;
  if (code && FILE_ACCESS_CODES.has(code)) {
    const path = typeof failure.path === 'string' ? failure.path : sqlite;
    return `cannot write ${path} (${code}): the SQLite data directory must be writable by this user; fix its permissions or set DATABASE_URL to a writable place`;
  }
  const sqliteCode = typeof failure.errcode === 'number' ? failure.errcode & 0xff : undefined;
  if (code === 'ERR_SQLITE_ERROR' && sqliteCode !== undefined && SQLITE_ACCESS_CODES.has(sqliteCode)) {
    return `cannot write the SQLite database ${sqlite} (${message}): its directory and file must be writable by this user; fix their permissions or set DATABASE_URL to a writable place`;
  }
  return undefined;
}

function explainListenError(code: string | undefined, failure: SystemError): string | undefined {
  const port = typeof failure.port === 'number' ? String(failure.port) : '?';
  const address = typeof failure.address === 'string' ? failure.address : '?';
  switch (code) {
    case 'EADDRINUSE':
      return `PORT ${port} is in use on ${address}: stop what listens there, or set PORT (or serve --port) to a free port`;
    case 'EACCES':
      return `PORT ${port} needs privileges this user lacks: set PORT (or serve --port) to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `HOST ${address} is not an address of this machine: set HOST (or serve --host) to one of its addresses, or 0.0.0.0`;
    case undefined:
    default:
      return undefined;
  }
}

/** Node reports a refused connection to every address of a host as an AggregateError whose parts carry the code. */
function firstNestedCode(failure: SystemError): string | undefined {
  if (!Array.isArray(failure.errors)) return undefined;
  for (const part of failure.errors as SystemError[]) if (typeof part?.code === 'string') return part.code;
  return undefined;
}

/** A ConfigError with the explained message, or the error itself. */
export function asStartError(error: unknown, databaseDescription: string | undefined): unknown {
  const explained = explainStartError(error, databaseDescription);
  return explained === undefined ? error : new ConfigError(explained, { cause: error });
}

/** Opens DATABASE_URL for a command; what keeps it from opening (a read-only directory, say) is one line naming it. */
export function openStartDatabase(url: string): DatabaseHandle {
  try {
    return openDatabase(url);
  } catch (error) {
    throw asStartError(error, describeDatabase(url));
  }
}
