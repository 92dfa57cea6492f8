/** `items` in consecutive slices of at most `size` (multi-row INSERTs under the databases' parameter limits). */
export function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/**
 * Runs `step` (which handles at most `batchSize` items, each run a short statement or transaction) until a run
 * handles fewer; how many were handled in all. For purges that must never hold a lock for long.
 */
export async function repeatWhileFull(batchSize: number, step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const handled = await step();
    total += handled;
    if (handled < batchSize) return total;
  }
}

/**
 * Runs `work` on each of `items`, at most `atOnce` at a time, and sums what each returns. After a failure no
 * new item starts; the ones running are waited for, and the first failure is thrown, so nothing runs on once
 * this has returned or thrown.
 */
export async function sumConcurrently<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<number>): Promise<number> {
  if (!Number.isInteger(atOnce) || atOnce < 1) throw new Error('sumConcurrently: atOnce must be a positive integer');
  let next = 0;
  let total = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        // Not `total += await ...`: that would read `total` before the wait, losing what others added meanwhile.
        const handled = await work(item);
        total += handled;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  if (failure) throw failure.error;
  return total;
}
