import type { ApiResponse } from '../helpers/test-app-core.ts';

/** An invariant broken on a day of the simulation (or an API step that failed: invariant `api_step`). */
export interface Violation {
  day: string;
  invariant: string;
  detail: string;
}

/**
 * Every API call of the simulation goes through here: an answer other than the one the step expects is a
 * failure of the step (the simulation sends only what a real HR platform would), recorded as an `api_step`
 * violation of the day and counted; the step then goes on without it. Counts of what happened are kept here too.
 */
export class Steps {
  day = '';
  readonly failures: Violation[] = [];
  readonly counts: Record<string, number> = {};
  /** Each step's (label's) requests and their total milliseconds: where the story's HR time goes. */
  readonly timings: Record<string, { requests: number; ms: number }> = {};
  readonly #log: ((line: string) => void) | undefined;

  constructor(log?: (line: string) => void) {
    this.#log = log;
  }

  count(kind: string, by = 1): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + by;
  }

  log(line: string): void {
    this.#log?.(`${this.day} ${line}`);
  }

  /** The body when the answer has `status`; otherwise the failure is recorded and the answer is undefined. */
  async expect<T = any>(label: string, response: Promise<ApiResponse>, status = 200): Promise<T | undefined> {
    const started = performance.now();
    const answered = await response;
    const timing = (this.timings[label] ??= { requests: 0, ms: 0 });
    timing.requests++;
    timing.ms += performance.now() - started;
    if (answered.status === status) return answered.body as T;
    const detail = `${label}: expected ${status}, got ${answered.status}: ${answered.text.slice(0, 800)}`;
    this.failures.push({ day: this.day, invariant: 'api_step', detail });
    this.count('api_failures');
    this.log(`FAILED ${detail}`);
    return undefined;
  }

  /** Failures recorded since `from` (an index into failures). */
  failuresSince(from: number): Violation[] {
    return this.failures.slice(from);
  }
}
