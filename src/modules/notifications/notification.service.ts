import type { Kysely } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, inputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { listParameterValues } from '../../shared/text.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import * as repository from './notification.repository.ts';
import type { NotificationResponse } from './notification.schemas.ts';
import { NOTIFICATION_TYPES, type NotificationOwner, type NotificationRow, type NotificationType, type RelatedObjectType } from './notification.table.ts';

export interface NewNotification {
  providerId: string;
  employerId: string | null;
  type: NotificationType;
  relatedObjectType: RelatedObjectType;
  relatedObjectId: string;
  owner: NotificationOwner;
  /** Ids and statuses only: never SSNs, dates of birth or other personal data. */
  payload: Record<string, string | null>;
  /** Set for occurrences that must be recorded once however often the rule runs (the daily sweep). */
  occurrenceKey?: string;
}

export function toNotificationResponse(row: NotificationRow): NotificationResponse {
  return {
    id: row.id,
    notification_type: row.notification_type,
    related_object_type: row.related_object_type,
    related_object_id: row.related_object_id,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    owner: row.owner,
    created_at: row.created_at,
  };
}

/**
 * Writes notifications and gives back their `notification.created` events. Services hand notifications to
 * `ChangeCommit.commit` with the rest of their change (change-commit/change-commit.ts), which calls this in
 * the change's transaction and records the events with the change's own, so a notification and its event
 * exist if and only if the change that caused them committed (STYLE habit 6).
 */
export class Notifier {
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Writes `notifications` (one instant for all: the sweep writes thousands at once, in batches); occurrences
   * already recorded (`occurrenceKey`) are skipped. Returns the events of the new ones, to be recorded.
   */
  async insert(trx: Executor, notifications: readonly NewNotification[]): Promise<NewEvent[]> {
    if (notifications.length === 0) return [];
    const createdAt = this.#clock.now().toISOString();
    const rows = notifications.map((notification) => this.#toRow(notification, createdAt));
    if (rows.length === 1) return (await repository.insertNotification(trx, rows[0]!)) ? [eventOf('notification', 'created', rows[0]!)] : [];
    const inserted = await repository.insertNotifications(trx, rows);
    return rows.filter((row) => inserted.has(row.id)).map((row) => eventOf('notification', 'created', row));
  }

  #toRow(notification: NewNotification, createdAt: string): NotificationRow {
    return {
      // Ordered: the ids of a sweep's thousands of reminders go to the end of the primary key, not to random pages.
      id: newId('notification'),
      provider_id: notification.providerId,
      employer_id: notification.employerId,
      notification_type: notification.type,
      related_object_type: notification.relatedObjectType,
      related_object_id: notification.relatedObjectId,
      payload: JSON.stringify(notification.payload),
      owner: notification.owner,
      occurrence_key: notification.occurrenceKey ?? null,
      created_at: createdAt,
    };
  }
}

export class NotificationService {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async listNotifications(
    scope: Scope,
    filter: { notification_type?: string[] | undefined; related_object_id?: string | undefined; related_object_type?: RelatedObjectType | undefined },
    page: PageRequest,
  ): Promise<Page<NotificationResponse>> {
    const rows = await repository.listNotifications(
      this.#db,
      scope,
      { types: parseNotificationTypes(filter.notification_type), relatedObjectId: filter.related_object_id, relatedObjectType: filter.related_object_type },
      page,
    );
    return mapPage(rows, toNotificationResponse);
  }
}

/** `?notification_type=a&notification_type=b,c`: repeated or comma-separated, OR between values; unknown values are a 400. */
export function parseNotificationTypes(values: string[] | undefined): NotificationType[] | undefined {
  if (values === undefined) return undefined;
  const types = listParameterValues(values);
  const unknown = types.filter((type) => !(NOTIFICATION_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) {
    throw new AppError('invalid_request', `Unknown notification_type: ${unknown.join(', ')}. Known types: ${NOTIFICATION_TYPES.join(', ')}.`, {
      inputErrors: [inputError(['notification_type'], `Unknown notification type "${unknown[0]}".`)],
    });
  }
  return [...new Set(types)] as NotificationType[];
}
