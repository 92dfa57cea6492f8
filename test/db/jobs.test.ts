import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { PermanentJobError, RetryJobLater, enqueueJob, enqueueJobs, type NewJob } from '../../src/jobs/job-queue.ts';
import { bringJobForward, requeueJob } from '../../src/jobs/job.repository.ts';
import { JobWorker, type JobHandler, type JobWorkerOptions } from '../../src/jobs/job-worker.ts';
import type { JobRow } from '../../src/jobs/job.table.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

const NOW = '2026-11-22T09:00:00.000Z';
const KIND = 'test.send';
const SECRET = 'SECRET-IN-PAYLOAD-9f3a';
const MINUTE = 60 * 1000;

interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

interface Call {
  payload: Record<string, unknown>;
  jobId: string;
  attempt: number;
}

describe(`durable jobs on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let clock: FixedClock;
  let logs: LogLine[];
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    clock = new FixedClock(NOW);
    logs = [];
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await database.destroy();
  });

  function makeWorker(handlers: Record<string, JobHandler>, options: Partial<JobWorkerOptions> = {}): JobWorker {
    const log = (level: LogLine['level']) => (fields: object, message: string) => void logs.push({ level, fields: fields as Record<string, unknown>, message });
    const worker = new JobWorker({ db: database.db, clock, handlers, log: { info: log('info'), warn: log('warn'), error: log('error') }, ...options });
    cleanups.push(() => worker.stop());
    return worker;
  }

  /** Another connection (pool) to this test's database, as another process would open it. */
  function openAnotherHandle(): DatabaseHandle {
    const handle = openDatabase(database.url, { poolSize: 3 });
    cleanups.push(() => handle.close());
    return handle;
  }

  /** A handler that records its calls, then does what `behaviour` says (succeeds when absent). */
  function recording(calls: Call[], behaviour?: (call: Call) => Promise<void>): JobHandler {
    return async (payload, { jobId, attempt }) => {
      const call = { payload, jobId, attempt };
      calls.push(call);
      await behaviour?.(call);
    };
  }

  /** A handler that runs until released, to hold a job in the middle of its run. */
  function blocking() {
    const started = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const handler: JobHandler = async () => {
      started.resolve();
      await release.promise;
    };
    return { handler, started: started.promise, release: () => release.resolve() };
  }

  async function enqueue(job: Partial<NewJob> = {}): Promise<string> {
    return database.db.transaction().execute((trx) => enqueueJob(trx, clock, { kind: KIND, payload: { benefitChangeId: 'bc_1', note: SECRET }, ...job }));
  }

  async function jobRow(id: string): Promise<JobRow> {
    return database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  function at(offsetMs: number): string {
    return new Date(Date.parse(NOW) + offsetMs).toISOString();
  }

  /** The job as a worker that died during its attempt number `attempts` leaves it: running, its lock expired. */
  async function leftRunningByADeadWorker(id: string, attempts: number): Promise<void> {
    await database.db
      .updateTable('jobs')
      .set({ state: 'running', attempts, locked_by: 'a-process-that-died', locked_until: at(-1) })
      .where('id', '=', id)
      .execute();
  }

  describe('enqueueing', () => {
    it('when the transaction that enqueued a job rolls back, then there is no job', async () => {
      const failed = database.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, clock, { kind: KIND, payload: { benefitChangeId: 'bc_1' } });
        throw new Error('the approval failed');
      });

      await expect(failed).rejects.toThrow('the approval failed');
      expect(await database.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
    });

    it('when the transaction commits, then the job is queued to run now, with 12 attempts', async () => {
      const id = await enqueue();

      expect(id).toMatch(/^job_[0-9A-Za-z]{20}$/);
      const row = await jobRow(id);
      expect(row).toMatchObject({
        kind: KIND,
        state: 'queued',
        attempts: 0,
        max_attempts: 12,
        run_at: NOW,
        created_at: NOW,
        locked_by: null,
        locked_until: null,
        last_error: null,
        finished_at: null,
      });
      expect(JSON.parse(row.payload)).toEqual({ benefitChangeId: 'bc_1', note: SECRET });
    });

    it('when many jobs are enqueued at once, some with ids of their own, then each is queued under its id', async () => {
      const ids = await database.db
        .transaction()
        .execute((trx) =>
          enqueueJobs(trx, clock, [
            { id: 'job_whd_given', kind: KIND, payload: { index: 0 }, maxAttempts: 100 },
            ...Array.from({ length: 600 }, (_, index) => ({ kind: KIND, payload: { index: index + 1 } })),
          ]),
        );

      expect(ids).toHaveLength(601);
      expect(ids[0]).toBe('job_whd_given');
      expect(await jobRow('job_whd_given')).toMatchObject({ state: 'queued', max_attempts: 100, run_at: NOW });
      expect(
        Number(
          (
            await database.db
              .selectFrom('jobs')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBe(601);
    });
  });

  describe('bringing jobs forward and queueing them again', () => {
    it('when a job due later is brought forward, then it runs now; one due earlier keeps its time', async () => {
      const later = await enqueue({ runAt: new Date(at(60 * MINUTE)) });
      const sooner = await enqueue({ runAt: new Date(at(-MINUTE)) });

      expect(await bringJobForward(database.db, later, clock.now())).toBe(true);
      expect(await bringJobForward(database.db, sooner, clock.now())).toBe(true);

      expect((await jobRow(later)).run_at).toBe(NOW);
      expect((await jobRow(sooner)).run_at).toBe(at(-MINUTE));
    });

    /**
     * Runs a job that, once started, is brought forward (after `advanceMs` on the clock) and then asks to retry
     * an hour later; the job's row afterwards.
     */
    async function broughtForwardWhileRunning(
      advanceMs: number,
      failure: () => Error = () => new RetryJobLater(new Date(at(60 * MINUTE)), 'waiting for another'),
    ) {
      const release = Promise.withResolvers<void>();
      const started = Promise.withResolvers<void>();
      const worker = makeWorker({
        [KIND]: async () => {
          started.resolve();
          await release.promise;
          throw failure();
        },
      });
      const id = await enqueue();
      const pass = worker.runDueJobs();
      await started.promise;
      clock.advance(advanceMs);
      expect(await bringJobForward(database.db, id, clock.now())).toBe(true);
      release.resolve();
      await pass;
      return jobRow(id);
    }

    it('when a running job is brought forward and then asks to retry later, then the earlier time wins', async () => {
      expect(await broughtForwardWhileRunning(1000)).toMatchObject({ state: 'queued', run_at: at(1000), last_error: 'waiting for another' });
    });

    it('when a running job is brought forward and then fails, then it runs again at that time, not after its backoff', async () => {
      expect(await broughtForwardWhileRunning(1000, () => new Error('carrier answered 503'))).toMatchObject({
        state: 'queued',
        run_at: at(1000),
        attempts: 1,
        last_error: 'carrier answered 503',
      });
    });

    it('when a running job is brought forward in the very millisecond it was due, then that still counts', async () => {
      // The frozen clock makes the bring-forward time equal the time the job was queued for.
      expect(await broughtForwardWhileRunning(0)).toMatchObject({ state: 'queued', run_at: NOW });
    });

    it('when a job asks to retry later without being brought forward, then it waits until then', async () => {
      const worker = makeWorker({ [KIND]: () => Promise.reject(new RetryJobLater(new Date(at(60 * MINUTE)), 'later')) });
      const id = await enqueue();
      await worker.runDueJobs();
      expect(await jobRow(id)).toMatchObject({ state: 'queued', run_at: at(60 * MINUTE), attempts: 1 });
    });

    it('when a finished job is queued again, then it runs again with its attempts counted afresh; a finished job is not brought forward', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) });
      const id = await enqueue();
      await worker.runDueJobs();
      expect((await jobRow(id)).state).toBe('done');
      expect(await bringJobForward(database.db, id, clock.now())).toBe(false);

      expect(await requeueJob(database.db, id, clock.now())).toBe(true);
      expect(await jobRow(id)).toMatchObject({ state: 'queued', attempts: 0, finished_at: null, run_at: NOW });
      await worker.runDueJobs();

      expect(calls.map((call) => call.attempt)).toEqual([1, 1]);
      expect(await requeueJob(database.db, 'job_missing', clock.now())).toBe(false);
    });
  });

  describe('running', () => {
    it('when a job is due, then it runs once with its payload and is done', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) });
      const id = await enqueue();

      expect(await worker.runDueJobs()).toBe(1);
      expect(await worker.runDueJobs()).toBe(0);

      expect(calls).toEqual([{ payload: { benefitChangeId: 'bc_1', note: SECRET }, jobId: id, attempt: 1 }]);
      expect(await jobRow(id)).toMatchObject({ state: 'done', attempts: 1, finished_at: NOW, locked_by: null, locked_until: null, last_error: null });
    });

    it('when a job is set to run later, then it does not run until the clock reaches its time', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) });
      const id = await enqueue({ runAt: new Date(at(10 * MINUTE)) });

      expect(await worker.runDueJobs()).toBe(0);
      clock.set(at(10 * MINUTE - 1));
      expect(await worker.runDueJobs()).toBe(0);
      clock.set(at(10 * MINUTE));
      expect(await worker.runDueJobs()).toBe(1);

      expect(calls.map((call) => call.jobId)).toEqual([id]);
      expect((await jobRow(id)).state).toBe('done');
    });

    it('when more jobs are due than a batch holds, then each pass runs one batch, oldest first', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) }, { batchSize: 2 });
      const late = await enqueue({ runAt: new Date(at(-1 * MINUTE)) });
      const early = await enqueue({ runAt: new Date(at(-2 * MINUTE)) });
      const now = await enqueue();

      expect(await worker.runDueJobs()).toBe(2);
      expect(calls.map((call) => call.jobId).sort()).toEqual([early, late].sort());
      expect(await worker.runDueJobs()).toBe(1);
      expect(calls.at(-1)?.jobId).toBe(now);
    });
  });

  describe('failures', () => {
    it('when a handler keeps failing, then it is retried with backoff and fails after its last attempt, keeping the error', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls, async () => Promise.reject(new Error('carrier answered 503'))) });
      const id = await enqueue({ maxAttempts: 3 });

      expect(await worker.runDueJobs()).toBe(1);
      let row = await jobRow(id);
      expect(row).toMatchObject({ state: 'queued', attempts: 1, last_error: 'carrier answered 503', locked_by: null, locked_until: null, finished_at: null });
      // First retry: 5 s, of which half to all.
      expect(Date.parse(row.run_at) - clock.now().getTime()).toBeGreaterThanOrEqual(2500);
      expect(Date.parse(row.run_at) - clock.now().getTime()).toBeLessThanOrEqual(5000);

      clock.set(new Date(Date.parse(row.run_at) - 1));
      expect(await worker.runDueJobs()).toBe(0);
      clock.set(row.run_at);
      expect(await worker.runDueJobs()).toBe(1);
      row = await jobRow(id);
      expect(row).toMatchObject({ state: 'queued', attempts: 2, last_error: 'carrier answered 503' });
      // Second retry: 10 s, of which half to all.
      expect(Date.parse(row.run_at) - clock.now().getTime()).toBeGreaterThanOrEqual(5000);
      expect(Date.parse(row.run_at) - clock.now().getTime()).toBeLessThanOrEqual(10_000);

      clock.set(row.run_at);
      expect(await worker.runDueJobs()).toBe(1);
      row = await jobRow(id);
      expect(row).toMatchObject({ state: 'failed', attempts: 3, last_error: 'carrier answered 503', finished_at: clock.now().toISOString(), locked_by: null });

      clock.advance(24 * 60 * MINUTE);
      expect(await worker.runDueJobs()).toBe(0);
      expect(calls.map((call) => call.attempt)).toEqual([1, 2, 3]);
      expect(logs.map((line) => [line.level, line.message])).toEqual([
        ['warn', 'job failed; will retry'],
        ['warn', 'job failed; will retry'],
        ['error', 'job failed; no attempts left'],
      ]);
      expect(logs.map((line) => line.fields)).toEqual(
        [1, 2, 3].map((attempt) => expect.objectContaining({ jobId: id, kind: KIND, attempt, error: 'carrier answered 503' })),
      );
      expect(JSON.stringify(logs)).not.toContain(SECRET);
    });

    it("when a handler records its failed attempts, then each record is written in the transaction that settles the job, with the job's next run time (none after the last)", async () => {
      const records: { attempt: number; retryAt: string | null }[] = [];
      const worker = makeWorker({
        [KIND]: async (_payload, { attempt, onFailure }) => {
          onFailure?.(async (trx, settle) => {
            const { recorded, retryAt } = await settle();
            // The job's row as this transaction sees it: already settled.
            const job = await trx.selectFrom('jobs').select(['state', 'run_at']).where('state', '!=', 'running').where('kind', '=', KIND).executeTakeFirst();
            expect(recorded).toBe(true);
            expect(retryAt === null ? job?.state : job?.run_at).toBe(retryAt === null ? 'failed' : retryAt.toISOString());
            records.push({ attempt, retryAt: retryAt?.toISOString() ?? null });
          });
          throw new Error('carrier answered 503');
        },
      });
      const id = await enqueue({ maxAttempts: 2 });

      await worker.runDueJobs();
      const queued = await jobRow(id);
      clock.set(queued.run_at);
      await worker.runDueJobs();

      expect(records).toEqual([
        { attempt: 1, retryAt: queued.run_at },
        { attempt: 2, retryAt: null },
      ]);
      expect(await jobRow(id)).toMatchObject({ state: 'failed', attempts: 2 });
    });

    it('when recording a failed attempt throws, then neither the record nor the requeue is kept: the job runs again once its lock expires', async () => {
      const worker = makeWorker(
        {
          [KIND]: async (_payload, { onFailure }) => {
            onFailure?.(async (trx, settle) => {
              await settle();
              await enqueueJob(trx, clock, { kind: 'test.record', payload: {} });
              throw new Error('the record could not be written');
            });
            throw new Error('carrier answered 503');
          },
        },
        { workerId: 'recording', lockMs: MINUTE },
      );
      const id = await enqueue();

      await worker.runDueJobs();

      expect(await jobRow(id)).toMatchObject({ state: 'running', attempts: 1, locked_by: 'recording', last_error: null });
      expect(await database.db.selectFrom('jobs').select('id').where('kind', '=', 'test.record').execute()).toEqual([]);
      expect(logs.map((line) => [line.level, line.message])).toEqual([['error', 'could not record the outcome of a job; it runs again once its lock expires']]);
    });

    it('when a handler fails once and then succeeds, then the job is done on its second attempt', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls, async ({ attempt }) => (attempt === 1 ? Promise.reject(new Error('timeout')) : undefined)) });
      const id = await enqueue();

      await worker.runDueJobs();
      clock.set((await jobRow(id)).run_at);
      expect(await worker.runDueJobs()).toBe(1);

      expect(await jobRow(id)).toMatchObject({ state: 'done', attempts: 2, finished_at: clock.now().toISOString() });
    });

    it('when a handler throws PermanentJobError, then the job fails at once, without retries', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls, async () => Promise.reject(new PermanentJobError('the carrier rejected the member'))) });
      const id = await enqueue();

      expect(await worker.runDueJobs()).toBe(1);
      clock.advance(24 * 60 * MINUTE);
      expect(await worker.runDueJobs()).toBe(0);

      expect(calls).toHaveLength(1);
      expect(await jobRow(id)).toMatchObject({
        state: 'failed',
        attempts: 1,
        last_error: 'the carrier rejected the member',
        finished_at: NOW,
        locked_by: null,
      });
      expect(logs).toEqual([
        {
          level: 'error',
          message: 'job failed',
          fields: expect.objectContaining({ jobId: id, kind: KIND, attempt: 1, error: 'the carrier rejected the member' }),
        },
      ]);
    });

    it('when no handler knows the kind, then the job fails at once, saying so', async () => {
      const worker = makeWorker({ [KIND]: recording([]) });
      const id = await enqueue({ kind: 'test.nobody_handles_this' });

      expect(await worker.runDueJobs()).toBe(1);

      expect(await jobRow(id)).toMatchObject({ state: 'failed', attempts: 1, last_error: 'No handler is registered for job kind "test.nobody_handles_this".' });
      expect(JSON.stringify(logs)).not.toContain(SECRET);
    });

    it('when the kind is the name of an object property, then it is still unknown', async () => {
      const worker = makeWorker({ [KIND]: recording([]) });
      const id = await enqueue({ kind: 'toString' });

      await worker.runDueJobs();

      expect((await jobRow(id)).state).toBe('failed');
    });

    it('when the error message is very long, then last_error keeps its first 1000 characters', async () => {
      const worker = makeWorker({ [KIND]: async () => Promise.reject(new Error('e'.repeat(20_000))) });
      const id = await enqueue();

      await worker.runDueJobs();

      const row = await jobRow(id);
      expect(row.last_error).toHaveLength(1000);
      expect(row.last_error?.startsWith('eeee')).toBe(true);
    });
  });

  describe('restarts and dead workers', () => {
    it('when the process stops after enqueueing, then a worker of the next process runs the job', async () => {
      const before = openAnotherHandle();
      const id = await before.db.transaction().execute((trx) => enqueueJob(trx, clock, { kind: KIND, payload: { benefitChangeId: 'bc_1' } }));
      const oldWorker = new JobWorker({ db: before.db, clock, handlers: {}, log: { info() {}, warn() {}, error() {} } });
      await oldWorker.stop();
      await before.close();

      const after = openAnotherHandle();
      const calls: Call[] = [];
      const worker = new JobWorker({ db: after.db, clock, handlers: { [KIND]: recording(calls) }, log: { info() {}, warn() {}, error() {} } });
      cleanups.push(() => worker.stop());
      expect(await worker.runDueJobs()).toBe(1);

      expect(calls.map((call) => call.jobId)).toEqual([id]);
      expect((await jobRow(id)).state).toBe('done');
    });

    it('when a job is running under a worker whose lock has expired, then another worker takes it over', async () => {
      const id = await enqueue();
      await leftRunningByADeadWorker(id, 1);
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) }, { workerId: 'survivor' });

      expect(await worker.runDueJobs()).toBe(1);

      expect(calls).toEqual([expect.objectContaining({ jobId: id, attempt: 2 })]);
      expect(await jobRow(id)).toMatchObject({ state: 'done', attempts: 2, locked_by: null });
      expect(logs).toEqual([expect.objectContaining({ level: 'info', message: 'taking over a job whose worker stopped before finishing it' })]);
    });

    it('when a dead worker had the last attempt, then the job fails instead of running again', async () => {
      const id = await enqueue({ maxAttempts: 2 });
      await leftRunningByADeadWorker(id, 2);
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) });

      expect(await worker.runDueJobs()).toBe(0);

      expect(calls).toEqual([]);
      expect(await jobRow(id)).toMatchObject({
        state: 'failed',
        attempts: 2,
        locked_by: null,
        finished_at: NOW,
        last_error: expect.stringContaining('lock expired'),
      });
    });

    it("when a dead worker had the last attempt, then the job's kind records it in a transaction of its own, after the job is failed", async () => {
      const id = await enqueue({ maxAttempts: 2 });
      await leftRunningByADeadWorker(id, 2);
      const calls: Call[] = [];
      const seen: { id: string; payload: unknown; stateInItsTransaction: string }[] = [];
      const handler: JobHandler = recording(calls);
      handler.abandoned = async (trx, job) => {
        const { state } = await trx.selectFrom('jobs').select('state').where('id', '=', job.id).executeTakeFirstOrThrow();
        seen.push({ id: job.id, payload: JSON.parse(job.payload), stateInItsTransaction: state });
      };
      const worker = makeWorker({ [KIND]: handler });

      expect(await worker.runDueJobs()).toBe(0);

      expect(calls).toEqual([]);
      expect(seen).toEqual([{ id, payload: { benefitChangeId: 'bc_1', note: SECRET }, stateInItsTransaction: 'failed' }]);
      expect(await jobRow(id)).toMatchObject({ state: 'failed', attempts: 2, last_error: expect.stringContaining('lock expired') });
    });

    it('when recording an abandoned job throws, then it is logged, the job stays failed and the worker runs the other due jobs', async () => {
      const abandonedId = await enqueue({ maxAttempts: 1 });
      await leftRunningByADeadWorker(abandonedId, 1);
      const dueId = await enqueue();
      const calls: Call[] = [];
      const handler: JobHandler = recording(calls);
      handler.abandoned = async () => {
        throw new Error('the records are unreachable');
      };
      const worker = makeWorker({ [KIND]: handler });

      expect(await worker.runDueJobs()).toBe(1);

      expect(calls.map((call) => call.jobId)).toEqual([dueId]);
      expect(await jobRow(abandonedId)).toMatchObject({ state: 'failed', attempts: 1 });
      expect(await jobRow(dueId)).toMatchObject({ state: 'done' });
      expect(logs.map((line) => [line.level, line.fields.jobId, line.message])).toEqual([
        ['error', abandonedId, 'job failed'],
        ['error', abandonedId, "could not record an abandoned job in its kind's own records"],
      ]);
      expect(logs[1]!.fields.error).toContain('the records are unreachable');
    });

    it('when a slow worker finishes a job another worker took over, then the first outcome stands', async () => {
      const slow = blocking();
      const slowWorker = makeWorker({ [KIND]: slow.handler }, { workerId: 'slow', lockMs: MINUTE });
      const fastCalls: Call[] = [];
      const fastWorker = makeWorker({ [KIND]: recording(fastCalls) }, { workerId: 'fast' });
      const id = await enqueue();

      const slowPass = slowWorker.runDueJobs();
      await slow.started;
      expect(await fastWorker.runDueJobs()).toBe(0); // the lock holds
      clock.advance(MINUTE + 1);
      expect(await fastWorker.runDueJobs()).toBe(1);
      const done = await jobRow(id);
      slow.release();
      expect(await slowPass).toBe(1);

      expect(done).toMatchObject({ state: 'done', attempts: 2, finished_at: at(MINUTE + 1) });
      expect(await jobRow(id)).toEqual(done);
      expect(logs.map((line) => [line.level, line.fields.jobId, line.message])).toEqual([
        ['info', id, 'taking over a job whose worker stopped before finishing it'],
        ['warn', id, 'job finished after another worker took it over (its lock expired); this outcome is not recorded'],
      ]);
    });

    it('when a job runs longer than its lock, then its worker renews the lock and nobody takes it over', async () => {
      const slow = blocking();
      const slowWorker = makeWorker({ [KIND]: slow.handler }, { workerId: 'slow', lockMs: 300 });
      const otherCalls: Call[] = [];
      const otherWorker = makeWorker({ [KIND]: recording(otherCalls) }, { workerId: 'other' });
      const id = await enqueue();

      const slowPass = slowWorker.runDueJobs();
      await slow.started;
      clock.advance(10 * MINUTE);
      // Renewed every lockMs / 3 of real time, to the clock's now + lockMs.
      await expect.poll(async () => (await jobRow(id)).locked_until, { timeout: 5000 }).toBe(at(10 * MINUTE + 300));
      expect(await otherWorker.runDueJobs()).toBe(0);
      slow.release();
      expect(await slowPass).toBe(1);

      expect(otherCalls).toEqual([]);
      expect(await jobRow(id)).toMatchObject({ state: 'done', attempts: 1, locked_by: null });
    });
  });

  describe('the worker in a server', () => {
    it('when started, then it works off the jobs already due, batch after batch, without waiting for a poll', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) }, { batchSize: 4, pollIntervalMs: 60 * MINUTE });
      for (let index = 0; index < 10; index++) await enqueue();

      worker.start();

      await expect.poll(() => calls.length).toBe(10);
    });

    it('when woken after a commit, then it runs the new job without waiting for a poll', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) }, { pollIntervalMs: 60 * MINUTE });
      worker.start();
      await delay(20);

      const id = await enqueue();
      worker.wake();

      await expect.poll(() => calls.map((call) => call.jobId)).toEqual([id]);
    });

    it("when woken from inside a request's async context, then the job runs outside it", async () => {
      const request = new AsyncLocalStorage<string>();
      const seen: (string | undefined)[] = [];
      const worker = makeWorker({ [KIND]: async () => void seen.push(request.getStore()) }, { pollIntervalMs: 60 * MINUTE });
      await enqueue();

      request.run('a request', () => worker.wake());

      await expect.poll(() => seen).toEqual([undefined]);
    });

    it('when polling, then a job enqueued without a wake runs within the poll interval', async () => {
      const calls: Call[] = [];
      const worker = makeWorker({ [KIND]: recording(calls) }, { pollIntervalMs: 20 });
      worker.start();

      const id = await enqueue();

      await expect.poll(() => calls.map((call) => call.jobId)).toEqual([id]);
      await expect.poll(async () => (await jobRow(id)).state).toBe('done');
    });

    it('when one job is slow, then the others of its batch and the ones after them run meanwhile (up to the concurrency)', async () => {
      const slow = blocking();
      const calls: Call[] = [];
      const worker = makeWorker(
        { [KIND]: recording(calls, (call) => (call.payload.slow ? slow.handler({}, { jobId: call.jobId, attempt: call.attempt }) : Promise.resolve())) },
        { batchSize: 2, concurrency: 4, pollIntervalMs: 60 * MINUTE },
      );
      await enqueue({ payload: { slow: true }, runAt: new Date(at(-100)) });
      for (let index = 0; index < 9; index++) await enqueue({ runAt: new Date(at(index - 50)) });

      worker.start();
      await slow.started;

      await expect.poll(() => calls.length).toBe(10);
      slow.release();
      await expect.poll(async () => (await database.db.selectFrom('jobs').select('state').where('state', '!=', 'done').execute()).length).toBe(0);
    });

    it('when a job is woken while another runs long, then it runs at once, without waiting for the long one', async () => {
      const slow = blocking();
      const calls: Call[] = [];
      const worker = makeWorker(
        { [KIND]: recording(calls, (call) => (call.payload.slow ? slow.handler({}, { jobId: call.jobId, attempt: call.attempt }) : Promise.resolve())) },
        { pollIntervalMs: 60 * MINUTE },
      );
      await enqueue({ payload: { slow: true } });
      worker.start();
      await slow.started;

      const id = await enqueue();
      worker.wake();

      await expect.poll(async () => (await jobRow(id)).state).toBe('done');
      slow.release();
    });

    it('when jobs finish and enqueue others without a wake, then the worker claims once more and runs those too', async () => {
      const calls: Call[] = [];
      const worker = makeWorker(
        {
          [KIND]: recording(calls, async (call) => {
            if (call.payload.first) await enqueue({ payload: { second: true } });
          }),
        },
        { pollIntervalMs: 60 * MINUTE },
      );
      await enqueue({ payload: { first: true } });

      worker.start();

      await expect.poll(() => calls.map((call) => Object.keys(call.payload)[0])).toEqual(['first', 'second']);
    });

    it('when stopped while a job runs, then stop waits for it to finish and be recorded, and nothing more is claimed', async () => {
      const slow = blocking();
      const worker = makeWorker({ [KIND]: slow.handler });
      const id = await enqueue();
      const pass = worker.runDueJobs();
      await slow.started;

      let stopped = false;
      const stopping = worker.stop().then(() => {
        stopped = true;
      });
      await delay(50);
      expect(stopped).toBe(false);
      slow.release();
      await stopping;

      expect(await pass).toBe(1);
      expect((await jobRow(id)).state).toBe('done');
      const later = await enqueue();
      expect(await worker.runDueJobs()).toBe(0);
      worker.wake();
      await delay(20);
      expect((await jobRow(later)).state).toBe('queued');
    });
  });

  describe('several workers', () => {
    const JOBS = 200;

    async function enqueueMany(): Promise<string[]> {
      return database.db.transaction().execute(async (trx) => {
        const ids: string[] = [];
        for (let index = 0; index < JOBS; index++) ids.push(await enqueueJob(trx, clock, { kind: KIND, payload: { index } }));
        return ids;
      });
    }

    async function expectEveryJobDoneOnce(ids: string[], runs: string[]): Promise<void> {
      const perJob = new Map<string, number>();
      for (const id of runs) perJob.set(id, (perJob.get(id) ?? 0) + 1);
      expect([...perJob.keys()].sort()).toEqual([...ids].sort());
      expect([...perJob.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      const states = await database.db
        .selectFrom('jobs')
        .select(['state', 'attempts', (eb) => eb.fn.countAll<number | string>().as('count')])
        .groupBy(['state', 'attempts'])
        .execute();
      expect(states.map((row) => ({ ...row, count: Number(row.count) }))).toEqual([{ state: 'done', attempts: 1, count: JOBS }]);
    }

    it.runIf(testDatabaseKind() === 'postgres')(
      'when four processes, each with its own pool, run workers side by side, then every job runs exactly once',
      async () => {
        const ids = await enqueueMany();
        const runs: string[] = [];
        const perWorker = [0, 0, 0, 0];
        const workers = perWorker.map((_, index) => {
          const handle = openAnotherHandle();
          const worker = new JobWorker({
            db: handle.db,
            clock,
            workerId: `process-${index}`,
            batchSize: 5,
            log: { info() {}, warn() {}, error: (fields, message) => void logs.push({ level: 'error', fields: fields as Record<string, unknown>, message }) },
            handlers: {
              [KIND]: async (_payload, { jobId }) => {
                runs.push(jobId);
                perWorker[index] = (perWorker[index] ?? 0) + 1;
                await delay(Math.random() * 3);
              },
            },
          });
          cleanups.push(() => worker.stop());
          return worker;
        });

        await Promise.all(
          workers.map(async (worker) => {
            while ((await worker.runDueJobs()) > 0);
          }),
        );

        expect(logs).toEqual([]);
        await expectEveryJobDoneOnce(ids, runs);
        expect(perWorker.filter((count) => count > 0).length).toBeGreaterThan(1);
      },
    );

    it.runIf(testDatabaseKind() === 'sqlite')('when two processes run workers on one SQLite file side by side, then every job runs exactly once', async () => {
      const ids = await enqueueMany();
      // Processes, not two handles here: node:sqlite waits for another connection's lock synchronously, which
      // would block the event loop that has to release it.
      const processes = ['process-a', 'process-b'].map((workerId) => startWorkerProcess(database.url, workerId));
      cleanups.push(() => processes.forEach((child) => child.kill()));
      await Promise.all(processes.map((child) => child.ready));
      for (const child of processes) child.go();

      const reports = await Promise.all(processes.map((child) => child.finished));

      await expectEveryJobDoneOnce(ids, reports.flat());
      expect(reports.filter((ran) => ran.length > 0).length).toBe(2);
    });
  });
});

const moduleUrl = (path: string) => new URL(`../../src/${path}`, import.meta.url).href;

/**
 * A separate node process with its own connection to the database, running one worker until no job is due;
 * it reports the ids of the jobs it ran. It waits for go() so that both processes start working together.
 */
function startWorkerProcess(url: string, workerId: string) {
  const script = `
    import { openDatabase } from ${JSON.stringify(moduleUrl('db/database.ts'))};
    import { JobWorker } from ${JSON.stringify(moduleUrl('jobs/job-worker.ts'))};
    import { FixedClock } from ${JSON.stringify(moduleUrl('shared/clock.ts'))};
    const database = openDatabase(process.env.DB_URL);
    const ran = [];
    const report = (fields, message) => process.stderr.write(message + ' ' + JSON.stringify(fields) + '\\n');
    const worker = new JobWorker({
      db: database.db,
      clock: new FixedClock(process.env.NOW),
      workerId: process.env.WORKER_ID,
      batchSize: 5,
      log: { info() {}, warn: report, error: report },
      handlers: {
        [process.env.KIND]: async (_payload, { jobId }) => {
          ran.push(jobId);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        },
      },
    });
    await database.db.selectFrom('jobs').select('id').limit(1).execute();
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    while ((await worker.runDueJobs()) > 0);
    await worker.stop();
    await database.close();
    process.stdout.write(JSON.stringify(ran) + '\\n');
  `;
  const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '--eval', script], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: { ...process.env, DB_URL: url, NOW, KIND, WORKER_ID: workerId },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes('ready\n')) resolve();
    });
    child.on('close', (code) => reject(new Error(`${workerId} exited with ${code} before it was ready: ${stderr}`)));
  });
  const finished = new Promise<string[]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && stderr === '') resolve(JSON.parse(last) as string[]);
      else reject(new Error(`${workerId} exited with ${code}: ${stdout}\n${stderr}`));
    });
  });
  finished.catch(() => undefined); // awaited by the test once both are ready
  return {
    ready,
    finished,
    go: () => child.stdin.end('go\n'),
    kill: () => child.kill(),
  };
}
