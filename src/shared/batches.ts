/** `items` in consecutive slices of at most `size` (multi-row INSERTs under the databases' parameter limits). */
export function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
