import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { NotificationRow, NotificationType, RelatedObjectType } from './notification.table.ts';

export interface NotificationFilter {
  types?: NotificationType[] | undefined;
  relatedObjectId?: string | undefined;
  relatedObjectType?: RelatedObjectType | undefined;
}

/** Inserts a notification; one that repeats an occurrence already recorded is skipped. Returns whether it was new. */
export async function insertNotification(db: Executor, row: NotificationRow): Promise<boolean> {
  // From a cached statement text (insertRows): every approval records one, and the sweep one per member it changes.
  return (await insertRows(db, 'notifications', [row], { skipConflictsOn: 'occurrence_key', returning: 'id' })).length > 0;
}

/** Batch size of bulk inserts: 1,000 rows of 10 columns stay far below both databases' parameter limits. */
const INSERT_BATCH = 1000;

/**
 * Inserts many notifications, skipping occurrences already recorded. Returns the ids of the rows that were new
 * (RETURNING answers only the rows an INSERT ... ON CONFLICT DO NOTHING inserted, on both databases).
 */
export async function insertNotifications(db: Executor, rows: readonly NotificationRow[]): Promise<Set<string>> {
  const returned = await insertRows(db, 'notifications', rows, { rowsPerStatement: INSERT_BATCH, skipConflictsOn: 'occurrence_key', returning: 'id' });
  return new Set(returned as string[]);
}

export function listNotifications(db: Executor, scope: Scope, filter: NotificationFilter, page: PageRequest): Promise<Page<NotificationRow>> {
  let query = inScope(db.selectFrom('notifications').selectAll(), scope, 'notifications', 'employer_id');
  if (filter.types && filter.types.length > 0) query = query.where('notification_type', 'in', filter.types);
  if (filter.relatedObjectId !== undefined) query = query.where('related_object_id', '=', filter.relatedObjectId);
  if (filter.relatedObjectType !== undefined) query = query.where('related_object_type', '=', filter.relatedObjectType);
  return paginate(query, page);
}
