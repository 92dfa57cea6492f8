import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

/**
 * A Kysely dialect over Node's built-in `node:sqlite` (no native build step).
 *
 * node:sqlite is synchronous and one `DatabaseSync` is one connection, so the driver hands that connection to
 * one user at a time: a transaction holds it from BEGIN to COMMIT/ROLLBACK and every other query or
 * transaction waits its turn. That makes transactions serializable inside one process; across processes
 * (the CLI next to a running server) SQLite's own locking applies, with `BEGIN IMMEDIATE` taking the write
 * lock up front and `busy_timeout` waiting for it instead of failing at once.
 */
export interface NodeSqliteDialectConfig {
  /** A file path, or ':memory:'. */
  path: string;
  /** Milliseconds to wait for another process's write lock. */
  busyTimeoutMs?: number;
  /** Prepared statements kept per connection, keyed by SQL text. */
  statementCacheSize?: number;
}

export class NodeSqliteDialect implements Dialect {
  readonly #config: NodeSqliteDialectConfig;
  constructor(config: NodeSqliteDialectConfig) {
    this.#config = config;
  }
  createDriver(): Driver {
    return new NodeSqliteDriver(this.#config);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

class NodeSqliteDriver implements Driver {
  readonly #config: NodeSqliteDialectConfig;
  readonly #mutex = new ConnectionMutex();
  #database?: DatabaseSync;
  #connection?: NodeSqliteConnection;

  constructor(config: NodeSqliteDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    const database = new DatabaseSync(this.#config.path);
    database.exec(`PRAGMA busy_timeout = ${Math.trunc(this.#config.busyTimeoutMs ?? 5000)}`);
    if (this.#config.path !== ':memory:') database.exec('PRAGMA journal_mode = WAL');
    database.exec('PRAGMA synchronous = NORMAL');
    database.exec('PRAGMA foreign_keys = ON');
    this.#database = database;
    this.#connection = new NodeSqliteConnection(database, this.#config.statementCacheSize ?? 500);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    if (!this.#connection) {
      this.#mutex.unlock();
      throw new Error('the SQLite database is closed');
    }
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`SAVEPOINT ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`ROLLBACK TO ${quoteIdentifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`RELEASE ${quoteIdentifier(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  async destroy(): Promise<void> {
    // Wait for whoever holds the connection, so closing never cuts a transaction in half.
    await this.#mutex.lock();
    try {
      this.#connection?.clear();
      this.#database?.close();
    } finally {
      this.#connection = undefined;
      this.#database = undefined;
      this.#mutex.unlock();
    }
  }
}

type SqliteValue = null | number | bigint | string | Uint8Array;

interface PreparedStatement {
  statement: StatementSync;
  returnsRows: boolean;
}

class NodeSqliteConnection implements DatabaseConnection {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, PreparedStatement>();
  readonly #cacheSize: number;

  constructor(database: DatabaseSync, cacheSize: number) {
    this.#database = database;
    this.#cacheSize = cacheSize;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { statement, returnsRows } = this.#prepare(compiledQuery.sql);
    const parameters = compiledQuery.parameters.map(toSqliteValue);
    if (returnsRows) {
      return { rows: statement.all(...parameters) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return {
      rows: [],
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
    };
  }

  // eslint-disable-next-line require-yield -- the interface demands a generator; streaming is not offered.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the node:sqlite dialect');
  }

  clear(): void {
    this.#statements.clear();
  }

  #prepare(sql: string): PreparedStatement {
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      const statement = this.#database.prepare(sql);
      // Asked once per statement: columns() costs about as much as a small query.
      prepared = { statement, returnsRows: statement.columns().length > 0 };
      if (this.#statements.size >= this.#cacheSize) this.#statements.clear();
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}

function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`cannot bind a value of type ${typeof value} to an SQLite parameter`);
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A FIFO lock: one holder at a time, waiters served in arrival order. */
class ConnectionMutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];

  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}
