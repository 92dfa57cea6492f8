/**
 * The one policy for waking the job worker: after the work that enqueued a job has committed, never from
 * inside it (a claim before the commit would not see the job). Every enqueue notes itself here
 * (`enqueueJobs`, and `bringJobForward`/`requeueJob` for a job made due again); whoever runs work that commits (the HTTP layer for a write request, the daily sweep per
 * rule, the EDI scheduler per check, the worker after each job) wraps it in `wakingAfter`, which wakes the
 * worker when a job was enqueued while the work ran. Services never wake the worker themselves.
 *
 * The count is process-wide: work running beside other work may see their enqueues too and wake the worker
 * once more than needed, which costs one claim and is harmless; it never misses its own.
 */
let enqueued = 0;

/** What can be woken: the job worker (absent where nothing runs jobs, e.g. tests and `benefits sweep`). */
export interface Wakeable {
  wake(): void;
}

/** Called by `enqueueJobs` inside the transaction that enqueues `count` jobs. */
export function noteJobsEnqueued(count: number): void {
  enqueued += count;
}

/** How many jobs this process has enqueued so far: compare two readings to learn whether work enqueued any. */
export function jobsEnqueuedSoFar(): number {
  return enqueued;
}

/** Runs `work` (whose transactions have committed when it returns) and wakes `worker` if it enqueued jobs. */
export async function wakingAfter<T>(worker: Wakeable | undefined, work: () => Promise<T>): Promise<T> {
  const before = enqueued;
  const result = await work();
  if (worker && enqueued > before) worker.wake();
  return result;
}
