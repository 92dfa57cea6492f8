import { wakingAfter } from './job-wake.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import { randomBase62 } from '../shared/ids.ts';
import { PermanentJobError, RetryJobLater, jobErrorMessage, retryDelayMs } from './job-queue.ts';
import { claimDueJobs, renewJobLocks, requeueClaimedJob, updateClaimedJob, type ClaimedJob, type JobClaim } from './job.repository.ts';
import type { JobRow } from './job.table.ts';

/**
 * Does the work of one kind of job. Resolving marks the job done; throwing retries it with backoff
 * (`PermanentJobError`: fails it at once). A job can run more than once (a retry after a timeout that did
 * reach the carrier, a takeover after a crash), so handlers must be safe to repeat; `jobId` serves as an
 * idempotency key towards the outside world.
 */
export interface JobHandler {
  (payload: Record<string, unknown>, context: JobContext): Promise<void>;
  /** What the kind's own records must show when a job of it is failed without being run (AbandonedJobRecorder). */
  abandoned?: AbandonedJobRecorder;
}

/**
 * Records a job the queue failed without its handler: a worker stopped (its process died) during the job's last
 * attempt, and a later claim found its lock expired with no attempts left. The worker calls it after the claim
 * that failed the job committed, in a transaction of its own: the claim holds job rows, and a handler's records
 * are locked before the job's (FailureRecorder). If the process stops between the two, or `record` throws (the
 * worker logs it and goes on), the kind's records stay as they were.
 */
export type AbandonedJobRecorder = (trx: Transaction<Database>, job: JobRow) => Promise<void>;

export interface JobContext {
  jobId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * Called by a handler before it throws, when its own records must show the failed attempt: the worker runs
   * `record` in the transaction that puts the job back in the queue or fails it for good (the worker's; absent
   * when a handler is called outside one).
   */
  onFailure?: (record: FailureRecorder) => void;
}

/**
 * What a handler records about a failed attempt, in the transaction that settles the job. It takes its own
 * locks, then calls `settle` (the worker requeues or fails the job there, if its claim still holds), then
 * writes what settle answered. Its locks come before the job row's, so whatever changes the job while holding
 * the handler's record (a manual retry bringing the job forward) takes them in the same order. If `record`
 * never calls settle, the worker does after it; if it throws, nothing of the attempt is recorded and the job
 * runs again once its lock expires.
 */
export type FailureRecorder = (trx: Transaction<Database>, settle: () => Promise<JobSettlement>) => Promise<void>;

export interface JobSettlement {
  /** False when another worker took the job over (this worker's lock expired): record nothing. */
  recorded: boolean;
  /** When the job runs again; null when it failed for good. */
  retryAt: Date | null;
}

export interface JobWorkerOptions {
  db: Kysely<Database>;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Recorded in `locked_by`; unique per worker (host, process and a random part) when absent. */
  workerId?: string;
  pollIntervalMs?: number;
  /** Jobs claimed per pass (one claim transaction); runDueJobs runs one such batch side by side. */
  batchSize?: number;
  /**
   * Jobs the background worker (start/wake) runs at once, claiming more as soon as there is room, so that a
   * slow job (a webhook receiver taking its 10 s) holds up only its own slot. batchSize by default.
   */
  concurrency?: number;
  /** How long a claim holds before another worker may take the job over; renewed while the job runs. */
  lockMs?: number;
}

const ABANDONED_ERROR = 'The worker running the last attempt stopped before finishing it (its lock expired), and no attempts remain.';

/**
 * Runs the durable jobs of the `jobs` table in this process: polls for due jobs, claims a batch, runs each
 * outside the claim transaction and records the outcome. Any number of workers, in any number of processes,
 * may share a database; each claim goes to one of them.
 */
export class JobWorker {
  readonly workerId: string;
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #handlers: Record<string, JobHandler>;
  readonly #log: JobWorkerOptions['log'];
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #lockMs: number;

  #stopped = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #wakeScheduled = false;
  /** The background pass (from a poll or a wake), if one is going; another is asked for with #passRequested. */
  #backgroundPass: Promise<void> | undefined;
  #passRequested = false;
  /** Resolved (and replaced) when a job of the background drain finishes or a pass is asked for. */
  #changed = Promise.withResolvers<void>();
  /** Every pass in progress, background or called directly, for stop() to wait on. */
  readonly #passes = new Set<Promise<unknown>>();
  /** Jobs the background drain started and that have not finished yet. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Jobs finished by the background drain so far: finished jobs may have enqueued more (a claim is due). */
  #finished = 0;
  #jobsRunning = 0;
  #renewTimer: NodeJS.Timeout | undefined;
  #renewal: Promise<void> | undefined;
  /**
   * The async context the worker was made in. Background passes run in it, not in the context of whoever
   * woke the worker: a wake from a request would otherwise run every job of the pass as part of that request
   * (with its Idempotency-Key reservation, which a job's writes must never mark).
   */
  readonly #ownContext = AsyncLocalStorage.snapshot();

  constructor(options: JobWorkerOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#handlers = options.handlers;
    this.#log = options.log;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#batchSize = options.batchSize ?? 10;
    this.#concurrency = Math.max(1, options.concurrency ?? this.#batchSize);
    this.#lockMs = options.lockMs ?? 5 * 60 * 1000;
  }

  /** Polls every pollIntervalMs, starting with a pass at once (jobs left over from before a restart). */
  start(): void {
    if (this.#stopped || this.#pollTimer) return;
    this.#pollTimer = setInterval(() => this.#requestPass(), this.#pollIntervalMs);
    this.#pollTimer.unref();
    this.wake();
  }

  /** Runs a pass soon; for callers that just committed a job, so it need not wait for the next poll. */
  wake(): void {
    if (this.#stopped || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      this.#requestPass();
    });
  }

  /** One pass: claims up to batchSize due jobs and runs them; how many ran. Does nothing once stopped. */
  async runDueJobs(): Promise<number> {
    return (await this.#pass()).ran;
  }

  /** Stops polling and claiming, and waits for the jobs in progress to finish and be recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
    while (this.#passes.size > 0 || this.#backgroundPass || this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#passes, this.#backgroundPass, ...this.#inFlight]);
    }
    clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
    await this.#renewal;
  }

  #requestPass(): void {
    if (this.#stopped) return;
    if (this.#backgroundPass) {
      this.#passRequested = true;
      this.#signalChange();
      return;
    }
    this.#backgroundPass = this.#ownContext(() => this.#drain()).finally(() => {
      this.#backgroundPass = undefined;
      if (this.#passRequested) {
        this.#passRequested = false;
        this.#requestPass();
      }
    });
  }

  /**
   * Keeps up to `concurrency` jobs running: claims as many as there is room for (at most a batch at a time)
   * while claims come back full, or when woken; when everything it started has finished, claims once more
   * (those jobs may have enqueued others), and returns when that finds nothing.
   */
  async #drain(): Promise<void> {
    try {
      let more = true;
      let finishedAtClaim = this.#finished;
      while (!this.#stopped) {
        const room = Math.min(this.#batchSize, this.#concurrency - this.#inFlight.size);
        // Working off a backlog, claims wait for room for half a batch (a claim per job finished would cost a
        // transaction each); new work asked for by a wake is claimed as soon as there is any room.
        const enough = this.#inFlight.size === 0 || room >= Math.ceil(Math.min(this.#batchSize, this.#concurrency) / 2);
        if (room > 0 && ((more && enough) || this.#passRequested)) {
          this.#passRequested = false;
          finishedAtClaim = this.#finished;
          more = (await this.#claimAndStart(room)) >= room;
          continue;
        }
        if (this.#inFlight.size === 0) {
          if (this.#finished === finishedAtClaim) return;
          more = true;
          continue;
        }
        // Until a job finishes (room) or a wake or poll asks for a pass (new work).
        await this.#changed.promise;
      }
    } catch (error) {
      this.#log.error({ workerId: this.workerId, error: jobErrorMessage(error) }, 'claiming jobs failed; trying again at the next poll');
    }
  }

  #signalChange(): void {
    const changed = this.#changed;
    this.#changed = Promise.withResolvers<void>();
    changed.resolve();
  }

  /** Claims up to `limit` due jobs and starts them without waiting; how many rows the claim took. */
  async #claimAndStart(limit: number): Promise<number> {
    const { claimed, abandoned } = await this.#claim(limit);
    for (const job of claimed) {
      // The worker's side of the wake policy (job-wake.ts): a job that enqueued others asks for a pass at once.
      const running: Promise<void> = wakingAfter(this, () => this.#run(job)).finally(() => {
        this.#inFlight.delete(running);
        this.#finished += 1;
        this.#signalChange();
      });
      this.#inFlight.add(running);
    }
    return claimed.length + abandoned.length;
  }

  async #pass(): Promise<{ claimed: number; ran: number }> {
    if (this.#stopped) return { claimed: 0, ran: 0 };
    const pass = this.#claimAndRun();
    this.#passes.add(pass);
    try {
      return await pass;
    } finally {
      this.#passes.delete(pass);
    }
  }

  async #claimAndRun(): Promise<{ claimed: number; ran: number }> {
    const { claimed, abandoned } = await this.#claim(this.#batchSize);
    await Promise.all(claimed.map((job) => this.#run(job)));
    return { claimed: claimed.length + abandoned.length, ran: claimed.length };
  }

  async #claim(limit: number): Promise<{ claimed: ClaimedJob[]; abandoned: JobRow[] }> {
    const now = this.#clock.now();
    const result = await claimDueJobs(this.#db, {
      now,
      workerId: this.workerId,
      lockedUntil: new Date(now.getTime() + this.#lockMs),
      limit,
      abandonedError: ABANDONED_ERROR,
    });
    for (const row of result.abandoned) {
      this.#log.error({ jobId: row.id, kind: row.kind, attempt: row.attempts, error: ABANDONED_ERROR }, 'job failed');
      await this.#recordAbandoned(row);
    }
    return result;
  }

  /** Lets the kind of a job failed by the claim record it (JobHandler.abandoned); never throws (a failure is logged). */
  async #recordAbandoned(row: JobRow): Promise<void> {
    const record = Object.hasOwn(this.#handlers, row.kind) ? this.#handlers[row.kind]?.abandoned : undefined;
    if (!record) return;
    try {
      await this.#db.transaction().execute((trx) => record(trx, row));
    } catch (error) {
      this.#log.error({ jobId: row.id, kind: row.kind, error: jobErrorMessage(error) }, "could not record an abandoned job in its kind's own records");
    }
  }

  /** Runs one claimed job and records its outcome; never throws (a failure to record is logged). */
  async #run({ row, takenOver }: ClaimedJob): Promise<void> {
    const claim: JobClaim = { id: row.id, workerId: this.workerId, attempt: row.attempts };
    const about = { jobId: row.id, kind: row.kind, attempt: row.attempts };
    if (takenOver) this.#log.info(about, 'taking over a job whose worker stopped before finishing it');
    this.#jobsRunning += 1;
    this.#renewLocksWhileRunning();
    try {
      const handler = Object.hasOwn(this.#handlers, row.kind) ? this.#handlers[row.kind] : undefined;
      const payload = parsePayload(row.payload);
      let failure: unknown;
      let recorder: FailureRecorder | undefined;
      if (!handler) {
        failure = new PermanentJobError(`No handler is registered for job kind "${row.kind}".`);
      } else if (!payload) {
        failure = new PermanentJobError('The payload is not a JSON object.');
      } else {
        try {
          await handler(payload, { jobId: row.id, attempt: row.attempts, onFailure: (record) => (recorder = record) });
        } catch (error) {
          failure = error ?? new Error('the handler threw without a reason');
        }
      }
      const recorded = failure === undefined ? await this.#recordSuccess(claim) : await this.#recordFailure(row, claim, failure, recorder);
      if (!recorded) {
        this.#log.warn(about, 'job finished after another worker took it over (its lock expired); this outcome is not recorded');
      }
    } catch (error) {
      this.#log.error({ ...about, error: jobErrorMessage(error) }, 'could not record the outcome of a job; it runs again once its lock expires');
    } finally {
      this.#jobsRunning -= 1;
      if (this.#jobsRunning === 0) {
        clearInterval(this.#renewTimer);
        this.#renewTimer = undefined;
      }
    }
  }

  async #recordSuccess(claim: JobClaim): Promise<boolean> {
    return updateClaimedJob(this.#db, claim, { state: 'done', finished_at: this.#clock.now().toISOString(), locked_by: null, locked_until: null });
  }

  async #recordFailure(row: JobRow, claim: JobClaim, failure: unknown, recorder: FailureRecorder | undefined): Promise<boolean> {
    const error = jobErrorMessage(failure);
    let settlement: JobSettlement;
    if (recorder) {
      settlement = await this.#db.transaction().execute(async (trx) => {
        let settling: Promise<JobSettlement> | undefined;
        const settle = () => (settling ??= this.#settleFailure(trx, row, claim, failure, error));
        await recorder(trx, settle);
        return settle();
      });
    } else {
      settlement = await this.#settleFailure(this.#db, row, claim, failure, error);
    }
    const about = { jobId: row.id, kind: row.kind, attempt: row.attempts, error };
    if (!settlement.recorded) return false;
    if (settlement.retryAt) {
      // A RetryJobLater's handler recorded what happened itself.
      if (failure instanceof RetryJobLater) return true;
      this.#log.warn({ ...about, maxAttempts: row.max_attempts, retryAt: settlement.retryAt.toISOString() }, 'job failed; will retry');
    } else {
      this.#log.error({ ...about, maxAttempts: row.max_attempts }, failure instanceof PermanentJobError ? 'job failed' : 'job failed; no attempts left');
    }
    return true;
  }

  /**
   * Requeues the job (after its backoff, retryDelayMs, or at a RetryJobLater's time; earlier if it was brought
   * forward while it ran) or fails it for good, only while this worker's claim holds.
   */
  async #settleFailure(db: Executor, row: JobRow, claim: JobClaim, failure: unknown, error: string): Promise<JobSettlement> {
    const now = this.#clock.now();
    if (!(failure instanceof PermanentJobError) && row.attempts < row.max_attempts) {
      const runAt = failure instanceof RetryJobLater ? failure.runAt : new Date(now.getTime() + retryDelayMs(row.attempts));
      const stored = await requeueClaimedJob(db, claim, { runAt: runAt.toISOString(), lastError: error });
      return stored === undefined ? { recorded: false, retryAt: null } : { recorded: true, retryAt: new Date(stored) };
    }
    const recorded = await updateClaimedJob(db, claim, {
      state: 'failed',
      finished_at: now.toISOString(),
      locked_by: null,
      locked_until: null,
      last_error: error,
    });
    return { recorded, retryAt: null };
  }

  /**
   * While any job of this worker runs, its lock is extended every third of lockMs, so that only a worker that
   * stopped (not one running a slow job) has its jobs taken over.
   */
  #renewLocksWhileRunning(): void {
    if (this.#renewTimer) return;
    this.#renewTimer = setInterval(
      () => {
        if (this.#renewal) return;
        this.#renewal = renewJobLocks(this.#db, this.workerId, new Date(this.#clock.now().getTime() + this.#lockMs))
          .then(() => undefined)
          .catch((error: unknown) => this.#log.warn({ workerId: this.workerId, error: jobErrorMessage(error) }, 'renewing job locks failed'))
          .finally(() => {
            this.#renewal = undefined;
          });
      },
      Math.max(1, Math.floor(this.#lockMs / 3)),
    );
    this.#renewTimer.unref();
  }
}

function parsePayload(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
