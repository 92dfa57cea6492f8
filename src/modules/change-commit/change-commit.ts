import type { Executor } from '../../db/database.ts';
import { markReservationCommitted } from '../../db/idempotency-reservation.ts';
import { enqueueJobs, type NewJob } from '../../jobs/job-queue.ts';
import type { Clock } from '../../shared/clock.ts';
import type { EventLog, NewEvent } from '../events/event-log.ts';
import type { NewNotification, Notifier } from '../notifications/notification.service.ts';
import { insertAlerts, type NewAlert } from '../alerts/alert.service.ts';

/** What a change causes besides its own rows: handed over once, at the end of its transaction. */
export interface ChangeEffects {
  /** The change's events, in order (ids and statuses only). */
  events?: readonly NewEvent[];
  /** Notifications the change sends; their `notification.created` events follow the change's own. */
  notifications?: readonly NewNotification[];
  /** Durable jobs to run after the commit (the worker is woken then, by the policy of jobs/job-wake.ts). */
  jobs?: readonly NewJob[];
  /** Alerts for people to act on (alerts/alert.service.ts), each written once by its key; their `alert.created` events follow. */
  alerts?: readonly NewAlert[];
}

/**
 * The one place a change hands over its side effects, in its own transaction (STYLE habit 6: they exist if
 * and only if the change committed):
 *
 * 1. the request's Idempotency-Key is marked committed (`markReservationCommitted`; nothing outside a request
 *    with one), so a retry after a crash knows this request changed something;
 * 2. its jobs are enqueued;
 * 3. its notifications are written (occurrences already recorded are skipped);
 * 4. its alerts are written (those whose key is already recorded are skipped);
 * 5. its events, the notifications' and the alerts' are recorded in one statement, with their webhook deliveries.
 *
 * A request's transaction calls `commit` once, last, also when it has nothing but the mark to write (a change
 * without events). Background work that changes many members in one transaction may call it per member.
 * Returns how many notifications were new.
 */
export class ChangeCommit {
  readonly #clock: Clock;
  readonly #events: EventLog;
  readonly #notifier: Notifier;

  constructor(options: { clock: Clock; events: EventLog; notifier: Notifier }) {
    this.#clock = options.clock;
    this.#events = options.events;
    this.#notifier = options.notifier;
  }

  async commit(trx: Executor, effects: ChangeEffects): Promise<{ notified: number }> {
    await markReservationCommitted(trx, this.#clock.now());
    if (effects.jobs && effects.jobs.length > 0) await enqueueJobs(trx, this.#clock, effects.jobs);
    const notified = effects.notifications ? await this.#notifier.insert(trx, effects.notifications) : [];
    const alerted = effects.alerts ? await insertAlerts(trx, this.#clock, effects.alerts) : [];
    const events = [...(effects.events ?? []), ...notified, ...alerted];
    if (events.length > 0) await this.#events.recordMany(trx, events);
    return { notified: notified.length };
  }
}
