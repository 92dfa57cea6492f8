import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor } from '../../db/database.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { EventObjectType, EventRow } from './event.table.ts';

/** What a change tells the event log. `data` holds ids and statuses only: never personal data. */
export interface NewEvent {
  providerId: string;
  employerId: string | null;
  objectType: EventObjectType;
  /** The action: `created`, `updated`, `deleted`, or a state change such as `approved`. */
  action: string;
  objectId: string;
  data?: Record<string, string | number | boolean | null | readonly string[]>;
}

/**
 * Called with the events of a transaction, inside it (webhook fan-out): whatever it writes commits or rolls
 * back with the change.
 */
export type EventSubscriber = (trx: Executor, events: readonly EventRow[]) => Promise<void>;

/** Rows per INSERT statement when many events are recorded at once (well under both databases' limits). */
const INSERT_BATCH = 500;

/**
 * The event log. Only `ChangeCommit.commit` (change-commit/change-commit.ts) records here, with the transaction
 * of the change, so an event exists if and only if its change committed (STYLE habit 6); subscribers (webhook
 * deliveries) are written in the same transaction. Recording marks nothing else: the Idempotency-Key is marked
 * by `commit`.
 */
export class EventLog {
  readonly #clock: Clock;
  readonly #subscribers: EventSubscriber[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Adds a subscriber for every event recorded from now on (the composition root wires webhooks here). */
  subscribe(subscriber: EventSubscriber): void {
    this.#subscribers.push(subscriber);
  }

  async recordMany(trx: Executor, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const createdAt = this.#clock.now().toISOString();
    // Ordered ids: events of one instant (one transaction) list in the order they were recorded.
    const rows: EventRow[] = events.map((event) => ({
      id: newId('event'),
      provider_id: event.providerId,
      employer_id: event.employerId,
      event_type: `${event.objectType}.${event.action}`,
      object_type: event.objectType,
      object_id: event.objectId,
      data: JSON.stringify(event.data ?? {}),
      created_at: createdAt,
    }));
    await insertRows(trx, 'events', rows, { rowsPerStatement: INSERT_BATCH });
    for (const subscriber of this.#subscribers) await subscriber(trx, rows);
  }
}
