/**
 * Statements of one transaction sent without waiting for each (at most `limit` unanswered at once), so that the
 * database works on them while the process goes on building what comes next. The transaction runs them in the
 * order they were sent (Kysely gives a transaction one connection and queues its statements); `drain` waits for
 * all of them and throws the first failure. A failure is also thrown by the next `add`, so the caller stops early.
 * Used where a long build writes as it goes (an 834 file's chunks): on PostgreSQL, the server stores a chunk
 * while the next is written; on SQLite, whose statements run in this thread, nothing changes.
 */
export class InFlight {
  readonly #limit: number;
  readonly #pending: Promise<void>[] = [];
  #failure: { error: unknown } | undefined;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('InFlight: the limit must be a positive integer');
    this.#limit = limit;
  }

  /** Tracks a statement; waits for the oldest once `limit` are unanswered. Throws a failure seen so far. */
  async add(statement: Promise<unknown>): Promise<void> {
    this.#pending.push(
      statement.then(
        () => undefined,
        (error: unknown) => {
          this.#failure ??= { error };
        },
      ),
    );
    if (this.#pending.length > this.#limit) await this.#pending.shift();
    this.#throwFailure();
  }

  /**
   * Runs `work`, which adds statements, and waits for all of them before returning its result: on success it
   * drains (a failed statement fails the whole), on failure it settles and throws the work's own error. So no
   * statement outlives the transaction, however the work ends.
   */
  async around<T>(work: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await this.settle();
      throw error;
    }
    await this.drain();
    return result;
  }

  /** Waits for every statement; throws the first failure. */
  async drain(): Promise<void> {
    await this.settle();
    this.#throwFailure();
  }

  /** Waits for every statement without throwing (when the caller is already failing with an error of its own). */
  async settle(): Promise<void> {
    await Promise.all(this.#pending.splice(0));
  }

  #throwFailure(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
