import { PostgresAdapter, sql, type Insertable, type Kysely, type UpdateObject } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { JobRow, JobTable } from './job.table.ts';
import { noteJobsEnqueued } from './job-wake.ts';

/**
 * A running job's run_at: later than any real time. While a job runs, its run_at only records being brought
 * forward (`bringJobForward` lowers it); a RetryJobLater then takes the earlier of the two. A marker rather than
 * the claimed time, because a job brought forward in the very millisecond it was due would look untouched.
 */
const RUNNING_RUN_AT = '9999-12-31T23:59:59.999Z';

export async function insertJobs(trx: Executor, rows: Insertable<JobTable>[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('jobs').values(rows).execute();
}

/** Who holds a claimed job, and for which attempt: the key of every update a worker makes to it afterwards. */
export interface JobClaim {
  id: string;
  workerId: string;
  attempt: number;
}

export interface ClaimedJob {
  row: JobRow;
  /** It was 'running' under a worker whose lock expired (a process that died, most likely). */
  takenOver: boolean;
}

export interface ClaimResult {
  claimed: ClaimedJob[];
  /** Running jobs whose lock expired with no attempts left: failed here instead of being run again. */
  abandoned: JobRow[];
}

/**
 * Claims up to `limit` due jobs for one worker in one transaction: queued ones whose time has come, and running
 * ones whose worker let the lock expire. On PostgreSQL `FOR UPDATE SKIP LOCKED` makes concurrent claimers in
 * any number of processes pass over each other's rows, so a job is claimed by one of them; on SQLite the
 * transaction holds the database's single write lock, which does the same.
 */
export async function claimDueJobs(
  db: Kysely<Database>,
  options: { now: Date; workerId: string; lockedUntil: Date; limit: number; abandonedError: string },
): Promise<ClaimResult> {
  const now = options.now.toISOString();
  return db.transaction().execute(async (trx) => {
    const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
    // Two queries, each walking the (state, run_at) index in order: one OR-ed query made SQLite read and sort
    // every due job to pick a batch, which cost a backlog of 10,000 webhook deliveries dearly.
    let expired = trx
      .selectFrom('jobs')
      .select(['id', 'state', 'attempts', 'max_attempts'])
      .where('state', '=', 'running')
      .where('locked_until', '<', now)
      .orderBy('locked_until')
      .limit(options.limit);
    if (postgres) expired = expired.forUpdate().skipLocked();
    const takeovers = await expired.execute();
    let queued = trx
      .selectFrom('jobs')
      .select(['id', 'state', 'attempts', 'max_attempts'])
      .where('state', '=', 'queued')
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .limit(options.limit - takeovers.length);
    if (postgres) queued = queued.forUpdate().skipLocked();
    const candidates = takeovers.length < options.limit ? [...takeovers, ...(await queued.execute())] : takeovers;
    if (candidates.length === 0) return { claimed: [], abandoned: [] };

    const exhausted = candidates.filter((job) => job.state === 'running' && job.attempts >= job.max_attempts);
    const runnable = candidates.filter((job) => !exhausted.includes(job));
    const abandoned =
      exhausted.length === 0
        ? []
        : await trx
            .updateTable('jobs')
            .set({ state: 'failed', finished_at: now, locked_by: null, locked_until: null, last_error: options.abandonedError })
            .where(
              'id',
              'in',
              exhausted.map((job) => job.id),
            )
            .returningAll()
            .execute();
    if (runnable.length === 0) return { claimed: [], abandoned };

    const rows = await trx
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        run_at: RUNNING_RUN_AT,
        locked_by: options.workerId,
        locked_until: options.lockedUntil.toISOString(),
        attempts: eb('attempts', '+', 1),
      }))
      .where(
        'id',
        'in',
        runnable.map((job) => job.id),
      )
      .returningAll()
      .execute();
    const takenOver = new Set(runnable.filter((job) => job.state === 'running').map((job) => job.id));
    // In due order, as the rows were chosen (RETURNING promises no order).
    const order = new Map(runnable.map((job, index) => [job.id, index]));
    rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    return { claimed: rows.map((row) => ({ row, takenOver: takenOver.has(row.id) })), abandoned };
  });
}

/**
 * Records what became of a claimed job, only if the claim still holds: a worker whose lock expired and whose
 * job another worker took over must not overwrite that worker's outcome. False when the claim was lost.
 */
export async function updateClaimedJob(db: Executor, claim: JobClaim, values: UpdateObject<Database, 'jobs'>): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set(values)
    .where('id', '=', claim.id)
    .where('state', '=', 'running')
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempt)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Extends the locks of the jobs a worker is still running, so that a slow job is not taken over. */
export async function renewJobLocks(db: Kysely<Database>, workerId: string, lockedUntil: Date): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: lockedUntil.toISOString() })
    .where('state', '=', 'running')
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Puts a claimed job back in the queue for `runAt` (the backoff after a failure, or a handler's RetryJobLater).
 * If someone brought the job forward while it ran (its run_at is below RUNNING_RUN_AT), the earlier of the two
 * times wins. The run_at stored; undefined when the claim was lost.
 */
export async function requeueClaimedJob(db: Executor, claim: JobClaim, options: { runAt: string; lastError: string }): Promise<string | undefined> {
  const { runAt } = options;
  const row = await db
    .updateTable('jobs')
    .set({
      state: 'queued',
      locked_by: null,
      locked_until: null,
      last_error: options.lastError,
      run_at: sql<string>`case when run_at < ${runAt} then run_at else ${runAt} end`,
    })
    .where('id', '=', claim.id)
    .where('state', '=', 'running')
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempt)
    .returning('run_at')
    .executeTakeFirst();
  return row?.run_at;
}

/**
 * Makes a job run no later than `runAt`: a queued job due later is moved up; a running one keeps the time, so
 * that a retry it ends with (its backoff or a RetryJobLater) does not put it off past `runAt` (see
 * requeueClaimedJob). False when the job is finished or does not exist. A job brought forward counts as
 * enqueued for the wake policy (job-wake.ts): whoever runs the work wakes the worker once it has committed.
 */
export async function bringJobForward(db: Executor, id: string, runAt: Date): Promise<boolean> {
  const at = runAt.toISOString();
  const result = await db
    .updateTable('jobs')
    .set({ run_at: at })
    .where('id', '=', id)
    .where('state', 'in', ['queued', 'running'])
    .where('run_at', '>', at)
    .executeTakeFirst();
  const pending = result.numUpdatedRows > 0n || (await isJobPending(db, id));
  if (pending) noteJobsEnqueued(1);
  return pending;
}

async function isJobPending(db: Executor, id: string): Promise<boolean> {
  const job = await db.selectFrom('jobs').select('state').where('id', '=', id).executeTakeFirst();
  return job?.state === 'queued' || job?.state === 'running';
}

/**
 * Queues a finished (done or failed) job again to run at `runAt`, with its attempts counted from zero; an
 * unfinished one is brought forward instead. False when there is no such job.
 */
export async function requeueJob(db: Executor, id: string, runAt: Date): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'queued', attempts: 0, run_at: runAt.toISOString(), locked_by: null, locked_until: null, last_error: null, finished_at: null })
    .where('id', '=', id)
    .where('state', 'in', ['done', 'failed'])
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return bringJobForward(db, id, runAt);
  noteJobsEnqueued(1);
  return true;
}

/** Deletes those of these jobs that are finished (done or failed); how many went. */
export async function deleteFinishedJobs(db: Executor, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.deleteFrom('jobs').where('id', 'in', ids).where('state', 'in', ['done', 'failed']).executeTakeFirst();
  return Number(result.numDeletedRows);
}
