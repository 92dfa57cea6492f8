import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { sweepDayDue } from './sweep-rules.ts';
import { claimSweepRun, finishSweepRun } from './sweep.repository.ts';
import type { SweepSummary } from './sweep.service.ts';

export interface SweepSchedulerOptions {
  db: Kysely<Database>;
  clock: Clock;
  sweep: { run(day: string): Promise<SweepSummary> };
  /** 'HH:MM', local to timeZone. */
  time: string;
  timeZone: string;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  checkIntervalMs?: number;
  /** How long a claim holds before another process may take over a sweep whose process died. */
  lockMs?: number;
  /** Told of each run this process made: whether it succeeded and how long it took (the metrics). */
  ran?: (succeeded: boolean, seconds: number) => void;
}

/**
 * Runs the daily sweep in the server process once a day, at `time` in `timeZone` (or at the first check
 * after it, e.g. after a restart). Every server process checks; the `sweep_runs` row of the day goes to one
 * of them (an insert on its primary key), so with several processes on PostgreSQL exactly one runs it. A
 * process that dies mid-sweep leaves its claim to expire; another then runs the day again (the sweep is
 * idempotent).
 */
export class SweepScheduler {
  readonly #options: SweepSchedulerOptions;
  readonly #workerId = `${hostname()}:${process.pid}:${randomBase62(8)}`;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<SweepSummary | undefined> | undefined;

  constructor(options: SweepSchedulerOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#options.checkIntervalMs ?? 60_000);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One check: runs the sweep of the day if it is due and this process wins the day. */
  tick(): Promise<SweepSummary | undefined> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<SweepSummary | undefined> {
    const { db, clock, sweep, time, timeZone, log } = this.#options;
    // Set once this process won the day's run: only runs are measured, not checks.
    let started: number | undefined;
    try {
      const now = clock.now();
      const day = sweepDayDue(now, time, timeZone);
      if (day === undefined) return undefined;
      const lockedUntil = new Date(now.getTime() + (this.#options.lockMs ?? 30 * 60_000)).toISOString();
      if (!(await claimSweepRun(db, day, this.#workerId, now.toISOString(), lockedUntil))) return undefined;
      started = performance.now();
      const summary = await sweep.run(day);
      await finishSweepRun(db, day, this.#workerId, clock.now().toISOString());
      this.#options.ran?.(true, (performance.now() - started) / 1000);
      log.info({ ...summary }, 'daily sweep done');
      return summary;
    } catch (error) {
      if (started !== undefined) this.#options.ran?.(false, (performance.now() - started) / 1000);
      log.error({ err: error }, 'daily sweep failed; another check retries it once its claim expires');
      return undefined;
    }
  }
}
