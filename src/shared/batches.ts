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
