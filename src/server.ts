import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { SsnDigester } from './shared/ssn.ts';
import { backfillSsnDigests } from './modules/members/ssn-digest-backfill.ts';
import { describeDatabase, openDatabase, type DatabaseHandle } from './db/database.ts';
import { purgeExpiredIdempotencyKeys } from './http/idempotency.ts';
import { purgeExpiredEvents } from './modules/events/event.service.ts';
import type { Wakeable } from './jobs/job-wake.ts';
import { JobWorker } from './jobs/job-worker.ts';
import { SweepScheduler } from './modules/daily-sweep/sweep-scheduler.ts';
import { EdiScheduler } from './modules/edi/edi-scheduler.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { SandboxCarrierAdapter } from './modules/carrier-connections/sandbox-adapter.ts';
import { WebhookSender } from './modules/webhooks/webhook-sender.ts';
import { purgeSettledWebhookDeliveries } from './modules/webhooks/webhook-endpoint.service.ts';
import { buildJobHandlers, buildServices, sftpPolicyOf } from './services.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { observeDeliveries } from './observability/delivery-observer.ts';
import { Metrics } from './observability/metrics.ts';
import { startTracing } from './observability/tracing.ts';
import { SERVICE_VERSION } from './observability/version.ts';
import { openCheckedDatabase } from './start/checked-database.ts';
import { asStartError } from './start/start-errors.ts';

/** Jobs the server's worker claims per claim transaction, and runs at once. */
const WORKER_BATCH_SIZE = 20;
const WORKER_CONCURRENCY = 64;

export interface RunningServer {
  app: App;
  database: DatabaseHandle;
  /** Runs the durable jobs (carrier hand-offs, ...) in this process. */
  worker: JobWorker;
  /** Runs the daily sweep at SWEEP_TIME (one process of many wins each day). */
  sweeps: SweepScheduler;
  /** Builds scheduled EDI change files (one process of many per group and day) and picks up acknowledgements. */
  ediSchedule: EdiScheduler;
  url: string;
  /** Stops accepting, finishes in-flight requests and running jobs, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** Where the first admin key is printed on an empty database. */
  print?: (line: string) => void;
  /** The version /healthz, /readyz, the metrics and the spans report (package.json's by default). */
  version?: string;
}

/**
 * The whole process: database, start checks, migrations, HTTP server, first key, job worker, housekeeping timers.
 * A start that fails on its environment (database, key, port) throws a ConfigError with one line naming the
 * variable to fix (start/start-errors.ts); it writes no first admin key, which is made and printed only once
 * the server listens, so that the next, corrected start still prints one.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const description = describeDatabase(config.databaseUrl);
  // Tracing first (when an OTLP endpoint is configured), so that it sees the server from its first request.
  const tracing = await startTracing(config.tracing);
  let database: DatabaseHandle;
  try {
    database = openDatabase(config.databaseUrl);
  } catch (error) {
    await tracing?.shutdown();
    throw asStartError(error, description);
  }
  let app: App | undefined;
  try {
    const encryptionKey = await openCheckedDatabase(config, database, clock);
    // One set of services for the routes, the job handlers, the sweep and the EDI scheduler. Whoever runs work
    // wakes the worker after it when it enqueued jobs (jobs/job-wake.ts); the worker is made last, from the
    // handlers over these services, so they reach it through this late binding.
    let wakeWorker = (): void => undefined;
    const wakes: Wakeable = { wake: () => wakeWorker() };
    const services = buildServices({ config, db: database.db, clock, encryptionKey, worker: wakes });
    const version = options.version ?? SERVICE_VERSION;
    const metrics = new Metrics({ db: database.db, clock, version, databaseStats: () => database.stats(), processMetrics: true });
    app = await buildApp({ config, db: database.db, clock, encryptionKey, services, worker: wakes, metrics, version });
    const log = app.log;
    // Members stored before SSN digests existed get theirs before requests are served (idempotent).
    await backfillSsnDigests(database.db, services.encrypter, new SsnDigester(encryptionKey), log);
    const sender = new WebhookSender({ allowLoopback: config.outbound.allowLoopback });
    const sftp = { policy: sftpPolicyOf(config) };
    const handlers = buildJobHandlers(services, {
      adapter: new SandboxCarrierAdapter(),
      webhooks: sender,
      edi: sftp,
      observer: observeDeliveries(metrics, log),
    });
    // Webhook deliveries spend most of their time waiting on receivers: many run at once, claimed in batches.
    const worker = new JobWorker({
      db: database.db,
      clock,
      handlers,
      log,
      lockMs: config.jobLockTimeoutMs,
      batchSize: WORKER_BATCH_SIZE,
      concurrency: WORKER_CONCURRENCY,
    });
    wakeWorker = () => worker.wake();
    const sweeps = new SweepScheduler({
      db: database.db,
      clock,
      sweep: services.sweep,
      time: config.sweep.time,
      timeZone: config.sweep.timeZone,
      log,
      ran: (succeeded, seconds) => metrics.sweepRan(succeeded, seconds),
    });
    const ediSchedule = new EdiScheduler({
      db: database.db,
      clock,
      files: services.ediFiles,
      acknowledgements: services.ediAcknowledgements,
      encrypter: services.encrypter,
      log,
      sftp,
      worker: wakes,
    });
    const url = await app.listen({ port: config.port, host: config.host });
    // The last start check has passed: only now is the first admin key made (on an empty database) and printed.
    const firstKey = await new ApiKeyService(database.db, clock).bootstrap();
    if (firstKey) {
      print(`First admin API key (shown once; store it now): ${firstKey.key}`);
    }
    // Event retention runs in the background; close waits for a run under way before closing the database.
    let purgingEvents: Promise<void> = Promise.resolve();
    const purgeEvents = () => {
      purgingEvents = purgingEvents.then(() =>
        purgeExpiredEvents(database.db, clock, config.eventsRetentionDays)
          // Settled webhook deliveries are kept as long as the events they carried.
          .then(() => purgeSettledWebhookDeliveries(database.db, clock, config.eventsRetentionDays))
          .then(
            () => undefined,
            (error: unknown) => log.warn({ err: error }, 'event retention purge failed'),
          ),
      );
    };
    const housekeeping = setInterval(
      () => {
        purgeExpiredIdempotencyKeys(database.db, clock).catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'));
        purgeEvents();
      },
      60 * 60 * 1000,
    );
    housekeeping.unref();
    // Once at start too, in the background: a server restarted often would otherwise never purge.
    purgeEvents();
    worker.start();
    sweeps.start();
    ediSchedule.start();
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      app: running,
      database,
      worker,
      sweeps,
      ediSchedule,
      url,
      close: () => {
        closing ??= (async () => {
          clearInterval(housekeeping);
          await running.close();
          await sweeps.stop();
          await ediSchedule.stop();
          await worker.stop();
          await sender.close();
          await purgingEvents;
          await database.close();
          await tracing?.shutdown();
        })();
        return closing;
      },
    };
  } catch (error) {
    await app?.close();
    await database.close();
    await tracing?.shutdown();
    throw asStartError(error, description);
  }
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish (bounded), close the database, exit. */
export function closeOnSignals(server: RunningServer, timeoutMs: number): void {
  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
