import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
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
 *
 * Group commit: a write transaction's cost is mostly its COMMIT, which appends every page it changed to the
 * write-ahead log. Transactions that follow each other closely share pages (the last page of each table and of
 * each time-ordered index), so a finished transaction is RELEASEd as a savepoint of one outer transaction and
 * hands the connection on; transactions starting in the same turn of the event loop go on inside it, and the
 * outer COMMIT comes at the end of the turn (or when the group is full or old), and only then do their callers
 * hear they committed. A failed transaction rolls back to its own savepoint and leaves the others alone; a
 * failed COMMIT fails every transaction of the group, none of which anyone was told had committed. Statements
 * outside a transaction first commit the open group, so nothing uncommitted is ever read outside it.
 *
 * Checkpoints (copying the write-ahead log back into the database file, with an fsync) would otherwise run
 * inside whichever COMMIT crosses SQLite's threshold, on the event loop: for a file database a worker thread
 * with its own connection runs them instead, every `checkpointIntervalMs`. Until that thread has started, and
 * should it ever die, the connection uses SQLite's own automatic checkpoints.
 *
 * A checkpoint copies the log but does not shorten it: SQLite starts the log over from its beginning only when
 * a write transaction begins with every frame of it already copied. Under sustained writes that moment never
 * comes on its own (the next group is always writing before the thread has copied the last one), so the log
 * and its file would grow without end. Once the thread finds the log past `walSizeLimitBytes`, writes pause at
 * the end of a group while it copies the last few frames (two fsyncs: milliseconds, never more than
 * `maxLogRestartPauseMs`; the event loop runs on), and the next group starts the log over; its COMMIT truncates
 * the file back to that size (`journal_size_limit`). The limit trades disk for pauses: one per limit's worth of
 * log written.
 */
export interface NodeSqliteDialectConfig {
  /** A file path, or ':memory:'. */
  path: string;
  /** Milliseconds to wait for another process's write lock. */
  busyTimeoutMs?: number;
  /** Prepared statements kept per connection, keyed by SQL text. */
  statementCacheSize?: number;
  /** How often the background thread checkpoints the write-ahead log; 0 leaves it to each COMMIT. Default 200. */
  checkpointIntervalMs?: number;
  /** Most transactions committed together (group commit); 1 commits each on its own. Default 32. */
  maxGroupSize?: number;
  /** A group older than this many milliseconds commits at its next transaction's end. Default 10. */
  maxGroupDelayMs?: number;
  /** Bytes of write-ahead log past which it starts over from its beginning, and its file's size after. Default 64 MB. */
  walSizeLimitBytes?: number;
  /** Longest pause of the writes while the checkpoint thread lets the log start over, in milliseconds. Default 100. */
  maxLogRestartPauseMs?: number;
}

/** SQLite's default automatic checkpoint threshold, in pages: what the connection falls back to. */
const AUTOCHECKPOINT_PAGES = 1000;

const DEFAULT_WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

// Runs in the checkpoint thread (CommonJS, from source: the same code under tsx, vitest and the built dist/).
// It says 'ready' once its connection is open. Every interval it copies the log into the file (PASSIVE: waiting
// for nobody); when the log holds more than the limit it says 'log-full', once, until asked to 'checkpoint':
// then it copies once more (the writes are paused) and answers 'checkpointed'. 'stop' ends it.
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const database = new DatabaseSync(workerData.path);
database.exec('PRAGMA busy_timeout = ' + workerData.busyTimeoutMs);
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
// A frame of the log is a page and its 24-byte header.
const frameBytes = database.prepare('PRAGMA page_size').get().page_size + 24;
parentPort.postMessage('ready');
let askedForPause = false;
// The log as the last pause left it: until a write starts it over (or adds to it), asking again would be in vain.
let framesAtPause = 0;
const timer = setInterval(() => {
  // log: the frames written since the log last started over.
  const { log } = checkpoint.get();
  if (log < framesAtPause) framesAtPause = 0;
  if (!askedForPause && log > framesAtPause && log * frameBytes > workerData.walSizeLimitBytes) {
    askedForPause = true;
    parentPort.postMessage('log-full');
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'checkpoint') {
    framesAtPause = checkpoint.get().log;
    askedForPause = false;
    parentPort.postMessage('checkpointed');
    return;
  }
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

/** Rows of each index PRAGMA optimize reads (SQLite's advice: a few hundred). */
const ANALYSIS_LIMIT_ROWS = 400;
/** Committed transactions between two PRAGMA optimize runs. */
const OPTIMIZE_EVERY_TRANSACTIONS = 5_000;

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
    return new NodeSqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/**
 * SQLite as Kysely knows it, except that this driver serializes users of its one connection itself (Kysely's
 * own lock would hold the connection until a grouped transaction's COMMIT, defeating group commit).
 */
class NodeSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** Transactions RELEASEd into the open outer transaction, waiting for its COMMIT. */
interface CommitGroup {
  startedAt: number;
  members: { resolve(): void; reject(error: unknown): void }[];
}

const MEMBER_SAVEPOINT = 'group_member';

class NodeSqliteDriver implements Driver {
  readonly #config: NodeSqliteDialectConfig;
  readonly #mutex = new ConnectionMutex();
  #database?: DatabaseSync;
  #connection?: NodeSqliteConnection;
  #checkpointer?: Worker;
  #group?: CommitGroup;
  #flushScheduled = false;
  #transactionsSinceOptimize = 0;
  readonly #maxGroupSize: number;
  readonly #maxGroupDelayMs: number;
  readonly #walSizeLimitBytes: number;
  readonly #maxLogRestartPauseMs: number;

  constructor(config: NodeSqliteDialectConfig) {
    this.#config = config;
    this.#maxGroupSize = Math.max(1, Math.trunc(config.maxGroupSize ?? 32));
    this.#maxGroupDelayMs = config.maxGroupDelayMs ?? 10;
    this.#walSizeLimitBytes = Math.max(0, Math.trunc(config.walSizeLimitBytes ?? DEFAULT_WAL_SIZE_LIMIT_BYTES));
    this.#maxLogRestartPauseMs = config.maxLogRestartPauseMs ?? 100;
  }

  async init(): Promise<void> {
    const database = new DatabaseSync(this.#config.path);
    database.exec(`PRAGMA busy_timeout = ${Math.trunc(this.#config.busyTimeoutMs ?? 5000)}`);
    if (this.#config.path !== ':memory:') {
      database.exec('PRAGMA journal_mode = WAL');
      // Applies whenever the log starts over, however that came about (this thread, or automatic checkpoints).
      database.exec(`PRAGMA journal_size_limit = ${this.#walSizeLimitBytes}`);
    }
    database.exec('PRAGMA synchronous = NORMAL');
    database.exec('PRAGMA foreign_keys = ON');
    // The planner's statistics (sqlite_stat1), as SQLite advises for long-lived connections: gathered at open
    // and after every OPTIMIZE_EVERY_TRANSACTIONS transactions (#commitGroup), each table read in part
    // (analysis_limit) so that it costs tens of milliseconds at any size. Without them SQLite took the provider
    // index for "provider_id = ? and id in (...)" and read every row of the tenant (1.5 ms instead of 0.02 ms
    // at 2,000 members; the plan-year bench).
    database.exec(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT_ROWS}`);
    this.#optimize(database, 'PRAGMA optimize = 0x10002');
    this.#database = database;
    this.#connection = new NodeSqliteConnection(database, this.#config.statementCacheSize ?? 500);
    const intervalMs = this.#config.checkpointIntervalMs ?? 200;
    if (this.#config.path !== ':memory:' && intervalMs > 0) this.#startCheckpointer(database, intervalMs);
  }

  #startCheckpointer(database: DatabaseSync, intervalMs: number): void {
    const worker = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: {
        path: this.#config.path,
        intervalMs,
        busyTimeoutMs: Math.trunc(this.#config.busyTimeoutMs ?? 5000),
        walSizeLimitBytes: this.#walSizeLimitBytes,
      },
    });
    worker.unref();
    worker.on('message', (message) => {
      // Until the thread runs (a few hundred milliseconds on a busy machine), commits checkpoint as usual.
      if (message === 'ready' && this.#checkpointer === worker && this.#database === database) database.exec('PRAGMA wal_autocheckpoint = 0');
      if (message === 'log-full') void this.#letLogStartOver(worker);
    });
    const fallBack = () => {
      if (this.#checkpointer !== worker) return; // stopped on purpose
      this.#checkpointer = undefined;
      if (this.#database === database) database.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    this.#checkpointer = worker;
  }

  /**
   * Holds the connection between two groups while the checkpoint thread copies what the log gained since its
   * last checkpoint, so that the next write transaction begins on a fully copied log and SQLite starts the log
   * over. Requests wait for the connection as for any transaction (the event loop is not blocked), at most
   * `maxLogRestartPauseMs`; should the copy take longer, writes go on and the log starts over another time.
   */
  async #letLogStartOver(worker: Worker): Promise<void> {
    await this.#mutex.lock();
    try {
      if (this.#checkpointer !== worker || !this.#connection) return;
      this.#commitGroup();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('exit', done);
          resolve();
        };
        const onMessage = (message: unknown) => {
          if (message === 'checkpointed') done();
        };
        const timer = setTimeout(done, this.#maxLogRestartPauseMs);
        worker.on('message', onMessage);
        worker.on('exit', done);
        worker.postMessage('checkpoint');
      });
    } finally {
      this.#mutex.unlock();
    }
  }

  async #stopCheckpointer(): Promise<void> {
    const worker = this.#checkpointer;
    if (!worker) return;
    this.#checkpointer = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // Referenced again while it stops: otherwise a process with nothing else to do would end mid-wait.
    worker.ref();
    worker.postMessage('stop');
    await exited;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    if (!this.#connection) {
      this.#mutex.unlock();
      throw new Error('the SQLite database is closed');
    }
    return new ConnectionHold(this.#connection, () => this.#commitGroup());
  }

  async beginTransaction(hold: ConnectionHold): Promise<void> {
    const connection = this.#connection!;
    if (!this.#group) {
      connection.exec('BEGIN IMMEDIATE');
      this.#group = { startedAt: performance.now(), members: [] };
    }
    connection.exec(`SAVEPOINT ${MEMBER_SAVEPOINT}`);
    hold.inTransaction = true;
  }

  async commitTransaction(hold: ConnectionHold): Promise<void> {
    const connection = this.#connection!;
    const group = this.#group!;
    try {
      connection.exec(`RELEASE ${MEMBER_SAVEPOINT}`);
    } catch (error) {
      this.#rollBackMember(hold);
      throw error;
    }
    hold.inTransaction = false;
    const committed = new Promise<void>((resolve, reject) => group.members.push({ resolve, reject }));
    if (group.members.length < this.#maxGroupSize && performance.now() - group.startedAt < this.#maxGroupDelayMs) {
      // The connection goes on to the next holder, inside this group; the group commits when a statement
      // outside a transaction needs the connection, when it is full or old, or once the requests of this turn
      // of the event loop have had their chance to join.
      hold.released = true;
      this.#mutex.unlock();
      this.#scheduleFlush();
    } else {
      this.#commitGroup();
    }
    await committed;
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      void this.#mutex.lock().then(() => {
        try {
          this.#commitGroup();
        } finally {
          this.#mutex.unlock();
        }
      });
    });
  }

  async rollbackTransaction(hold: ConnectionHold): Promise<void> {
    // Kysely also rolls back a transaction whose commit failed: by then its work went with the failed group
    // COMMIT, and the connection may be another transaction's, whose savepoint must not be touched.
    if (!hold.inTransaction) return;
    this.#rollBackMember(hold);
  }

  #rollBackMember(hold: ConnectionHold): void {
    hold.inTransaction = false;
    this.#connection!.exec(`ROLLBACK TO ${MEMBER_SAVEPOINT}`);
    this.#connection!.exec(`RELEASE ${MEMBER_SAVEPOINT}`);
  }

  /** COMMITs the open group, if any, and tells its members; never throws (a failure goes to the members). */
  #commitGroup(): void {
    const group = this.#group;
    const connection = this.#connection;
    if (!group || !connection) return;
    this.#group = undefined;
    try {
      connection.exec('COMMIT');
    } catch (error) {
      try {
        connection.exec('ROLLBACK');
      } catch {
        // SQLite may already have rolled back (e.g. after an I/O error); nothing is left open either way.
      }
      for (const member of group.members) member.reject(error);
      return;
    }
    for (const member of group.members) member.resolve();
    this.#transactionsSinceOptimize += group.members.length;
    if (this.#transactionsSinceOptimize >= OPTIMIZE_EVERY_TRANSACTIONS) {
      this.#transactionsSinceOptimize = 0;
      // Analyzes only tables that grew or shrank a lot since (or were never analyzed): usually nothing.
      if (this.#database) this.#optimize(this.#database, 'PRAGMA optimize');
    }
  }

  /**
   * Runs a PRAGMA optimize without waiting: it writes the statistics, and while another process holds the
   * write lock it would block the event loop for the busy timeout. Statistics only: a busy or failed run
   * leaves the planner with the ones it had.
   */
  #optimize(database: DatabaseSync, pragma: string): void {
    database.exec('PRAGMA busy_timeout = 0');
    try {
      database.exec(pragma);
    } catch {
      // See above.
    } finally {
      database.exec(`PRAGMA busy_timeout = ${Math.trunc(this.#config.busyTimeoutMs ?? 5000)}`);
    }
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

  async releaseConnection(hold: ConnectionHold): Promise<void> {
    // A transaction that handed the connection on at its commit let go of it then.
    if (hold.released) return;
    hold.released = true;
    // An open group (e.g. begun by a transaction that then rolled back) must not hold the write lock for long.
    if (this.#group) this.#scheduleFlush();
    this.#mutex.unlock();
  }

  async destroy(): Promise<void> {
    // Wait for whoever holds the connection, so closing never cuts a transaction in half.
    await this.#mutex.lock();
    try {
      // The thread's connection closes first, so that closing ours (the last) checkpoints and removes the log.
      this.#commitGroup();
      await this.#stopCheckpointer();
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

/**
 * One user's turn with the connection, from acquireConnection to releaseConnection (or to a grouped
 * transaction's commit, which hands the connection on early).
 */
class ConnectionHold implements DatabaseConnection {
  released = false;
  /** Between a transaction's BEGIN and its end: its statements run inside the open commit group. */
  inTransaction = false;
  readonly #connection: NodeSqliteConnection;
  readonly #commitGroup: () => void;

  constructor(connection: NodeSqliteConnection, commitGroup: () => void) {
    this.#connection = connection;
    this.#commitGroup = commitGroup;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Outside a transaction a statement must not see (or add to) a group nobody has committed yet. Reading
    // data_version reads no data (the API key cache asks it on every request).
    if (!this.inTransaction && compiledQuery.sql !== 'PRAGMA data_version') this.#commitGroup();
    return this.#connection.executeQuery(compiledQuery);
  }

  // eslint-disable-next-line require-yield -- the interface demands a generator; streaming is not offered.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the node:sqlite dialect');
  }
}

class NodeSqliteConnection {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, PreparedStatement>();
  readonly #cacheSize: number;

  constructor(database: DatabaseSync, cacheSize: number) {
    this.#database = database;
    this.#cacheSize = cacheSize;
  }

  exec(sql: string): void {
    this.#database.exec(sql);
  }

  executeQuery<R>(compiledQuery: CompiledQuery): QueryResult<R> {
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
  // Most values bound are text: asked first.
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return value;
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
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

  get hasWaiters(): boolean {
    return this.#waiters.length > 0;
  }

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
