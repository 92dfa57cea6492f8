import type { Executor } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';
import { batches } from '../shared/batches.ts';
import { newId } from '../shared/ids.ts';
import { truncate } from '../shared/text.ts';
import { insertJobs } from './job.repository.ts';
import { noteJobsEnqueued } from './job-wake.ts';

export const DEFAULT_MAX_ATTEMPTS = 12;
const FIRST_RETRY_DELAY_MS = 5_000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Longest `last_error` kept; handlers' messages can be long, the column is for a person reading it. */
export const MAX_ERROR_LENGTH = 1000;

export interface NewJob {
  /**
   * The job's id; a fresh one when absent. A module that must find its job again (to bring it forward, or to
   * queue it once more) derives it from its own record's id.
   */
  id?: string;
  /** Which handler runs it, e.g. 'carrier.send_benefit_change'. */
  kind: string;
  /** Ids the handler needs, never personal data: it is stored as JSON until the job is done. */
  payload: Record<string, unknown>;
  /** Not before this instant; now when absent. */
  runAt?: Date;
  /** Attempts before the job fails for good; 12 by default (about two and a half hours of retries). */
  maxAttempts?: number;
}

/**
 * Records a job to run after the transaction commits. Pass the transaction of the change that causes the job,
 * so that both are kept or neither is (or give it to `ChangeCommit.commit` with the change's other effects).
 * The worker is woken after the commit by the one policy of `job-wake.ts`, never by the caller.
 */
export async function enqueueJob(trx: Executor, clock: Clock, job: NewJob): Promise<string> {
  const [id] = await enqueueJobs(trx, clock, [job]);
  return id!;
}

/** Rows per INSERT when many jobs are enqueued at once (well under both databases' parameter limits). */
const INSERT_BATCH = 500;

/** Like enqueueJob, for many jobs at once (a multi-row INSERT per 500 jobs); their ids, in order. */
export async function enqueueJobs(trx: Executor, clock: Clock, jobs: readonly NewJob[]): Promise<string[]> {
  const now = clock.now().toISOString();
  const rows = jobs.map((job) => {
    const maxAttempts = job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new RangeError(`maxAttempts must be a positive integer, not ${maxAttempts}`);
    }
    if (job.kind.length === 0) throw new RangeError('a job needs a kind');
    return {
      id: job.id ?? newId('job'),
      kind: job.kind,
      payload: JSON.stringify(job.payload),
      state: 'queued' as const,
      attempts: 0,
      max_attempts: maxAttempts,
      run_at: job.runAt?.toISOString() ?? now,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: now,
      finished_at: null,
    };
  });
  for (const batch of batches(rows, INSERT_BATCH)) await insertJobs(trx, batch);
  noteJobsEnqueued(rows.length);
  return rows.map((row) => row.id);
}

/** Thrown by a handler when trying again cannot help (the carrier rejected the data): the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/**
 * Thrown by a handler that keeps its own schedule (webhook deliveries retry over days, and wait for earlier
 * deliveries about the same object): the job runs again at `runAt`, as long as it has attempts left, and the
 * worker logs nothing (the handler recorded what happened). If the job was brought forward while it ran
 * (`bringJobForward`), the earlier time wins.
 */
export class RetryJobLater extends Error {
  override name = 'RetryJobLater';
  readonly runAt: Date;
  constructor(runAt: Date, reason: string) {
    super(reason);
    this.runAt = runAt;
  }
}

/**
 * How long to wait after failed attempt `attempt` (1-based): 5 s doubling per attempt, capped at an hour, of
 * which a random half to all is taken, so that jobs that failed together (a carrier outage) do not all retry
 * in the same instant.
 */
export function retryDelayMs(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, not ${attempt}`);
  // Capping the exponent keeps 2 ** n finite for absurd attempt counts; 2 ** 20 × 5 s is far past the cap.
  const ceiling = Math.min(FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempt - 1, 20), MAX_RETRY_DELAY_MS);
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}

/**
 * What `last_error` and the log keep of a handler's failure: the message alone (no stack, no properties that
 * might carry payload or personal data), truncated.
 */
export function jobErrorMessage(error: unknown): string {
  let message: string;
  if (error instanceof Error) message = error.message || error.name;
  else if (typeof error === 'string') message = error;
  else message = `a non-error value was thrown (${typeof error})`;
  return truncate(message, MAX_ERROR_LENGTH);
}
