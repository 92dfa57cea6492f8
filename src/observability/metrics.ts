import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import type { DatabaseStats } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';

/** Outbound deliveries the service counts: webhook POSTs and EDI file uploads. */
export type DeliveryChannel = 'webhook' | 'edi';

export interface MetricsOptions {
  db: Kysely<Database>;
  clock: Clock;
  version: string;
  /** The connection pool's state at the moment of a scrape (DatabaseHandle.stats); absent: not reported. */
  databaseStats?: (() => DatabaseStats) | undefined;
  /** The process's own metrics (CPU, memory, event loop, GC): the server's; tests leave them out (each would start a monitor). */
  processMetrics?: boolean;
}

/** Request durations in seconds: most answers take milliseconds; the long tail is file builds and slow clients. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The daily sweep takes seconds to many minutes (a plan year of a large provider). */
const SWEEP_DURATION_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200];

/**
 * The service's Prometheus metrics (docs/architecture.md "Observability"), in a registry of its own per app (not
 * prom-client's global one), so that several apps in one process (tests, the bench) never share or collide.
 * Counters move as things happen; what is a state (the job queue, the connection pool) is read at each scrape.
 * Names follow Prometheus conventions: a `benefits_` prefix, snake_case, base units (`_seconds`), `_total` on counters.
 * No label carries a tenant, a person or a URL's own values: routes are their templates.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #databaseStats: (() => DatabaseStats) | undefined;

  readonly #httpRequests = new Counter({
    name: 'benefits_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: 'benefits_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by route template, method and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #deliveryAttempts = new Counter({
    name: 'benefits_delivery_attempts_total',
    help: 'Outbound delivery attempts (webhook POSTs, EDI SFTP uploads), by channel and outcome',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #deliveryFailures = new Counter({
    name: 'benefits_delivery_failures_total',
    help: 'Outbound delivery attempts that failed (webhook POSTs, EDI SFTP uploads), by channel',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  readonly #sweepDuration = new Histogram({
    name: 'benefits_daily_sweep_duration_seconds',
    help: 'How long each daily sweep run took, by outcome (succeeded or failed)',
    labelNames: ['outcome'] as const,
    buckets: SWEEP_DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #sweepLastRun = new Gauge({
    name: 'benefits_daily_sweep_last_run_timestamp_seconds',
    help: 'When the last daily sweep run of this process ended (Unix time), by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #jobs = new Gauge({
    name: 'benefits_jobs',
    help: 'Durable jobs waiting (queued, retries included) or running, by kind and state; read from the database at each scrape',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  readonly #jobsOldestDueAge = new Gauge({
    name: 'benefits_jobs_oldest_due_age_seconds',
    help: 'How long the oldest due queued job of each kind has waited past its run time; read from the database at each scrape',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly #databaseConnections = new Gauge({
    name: 'benefits_database_connections',
    help: 'Database connections by state: in_use and idle in the PostgreSQL pool; open for SQLite (one, shared by turns)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  readonly #databaseWaiting = new Gauge({
    name: 'benefits_database_pool_waiting_requests',
    help: 'Queries waiting for a pooled PostgreSQL connection (0 on SQLite)',
    registers: [this.registry],
  });

  constructor(options: MetricsOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#databaseStats = options.databaseStats;
    new Gauge({
      name: 'benefits_build_info',
      help: 'Always 1; the labels say which build runs: the service version and the Node.js version',
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
    }).set({ version: options.version, node_version: process.versions.node }, 1);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request; `route` is the route's template (`/members/:id`), never the raw URL. */
  requestAnswered(method: string, route: string, statusCode: number, seconds: number): void {
    const labels = { method, route, status_code: String(statusCode) };
    this.#httpRequests.inc(labels);
    this.#httpDuration.observe(labels, seconds);
  }

  deliveryAttempted(channel: DeliveryChannel, succeeded: boolean): void {
    this.#deliveryAttempts.inc({ channel, outcome: succeeded ? 'succeeded' : 'failed' });
    if (!succeeded) this.#deliveryFailures.inc({ channel });
  }

  sweepRan(succeeded: boolean, seconds: number): void {
    const outcome = succeeded ? 'succeeded' : 'failed';
    this.#sweepDuration.observe({ outcome }, seconds);
    this.#sweepLastRun.set({ outcome }, this.#clock.now().getTime() / 1000);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text: the states (job queue, pool) read now, then every metric. */
  async scrape(): Promise<string> {
    await this.#readJobQueue();
    this.#readDatabaseStats();
    return this.registry.metrics();
  }

  async #readJobQueue(): Promise<void> {
    const rows = await this.#db
      .selectFrom('jobs')
      .select((eb) => ['kind', 'state', eb.fn.countAll<number | string>().as('count'), eb.fn.min('run_at').as('oldest_run_at')])
      .where('state', 'in', ['queued', 'running'])
      .groupBy(['kind', 'state'])
      .execute();
    const now = this.#clock.now().getTime();
    this.#jobs.reset();
    this.#jobsOldestDueAge.reset();
    for (const row of rows) {
      this.#jobs.set({ kind: row.kind, state: row.state }, Number(row.count));
      if (row.state !== 'queued') continue;
      const waited = row.oldest_run_at === null ? 0 : Math.max(0, (now - Date.parse(row.oldest_run_at)) / 1000);
      this.#jobsOldestDueAge.set({ kind: row.kind }, waited);
    }
  }

  #readDatabaseStats(): void {
    if (!this.#databaseStats) return;
    const stats = this.#databaseStats();
    this.#databaseConnections.reset();
    for (const [state, count] of Object.entries(stats.connections)) this.#databaseConnections.set({ state }, count);
    this.#databaseWaiting.set(stats.waiting);
  }
}
