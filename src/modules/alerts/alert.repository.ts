import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { AlertAudience, AlertKind, AlertRow } from './alert.table.ts';

/** Inserts alerts, skipping those whose key the provider already has; returns the ids of the new ones. */
export async function insertAlerts(db: Executor, rows: readonly AlertRow[]): Promise<Set<string>> {
  const returned = await insertRows(db, 'alerts', rows, { rowsPerStatement: 500, skipConflictsOn: ['provider_id', 'alert_key'], returning: 'id' });
  return new Set(returned as string[]);
}

export interface AlertFilter {
  kinds?: readonly AlertKind[] | undefined;
  audience?: AlertAudience | undefined;
  relatedObjectId?: string | undefined;
  memberId?: string | undefined;
  /** Leave out the admins' alerts (keys other than admin ones). */
  excludeAdmin?: boolean;
}

export function listAlerts(db: Executor, scope: Scope, filter: AlertFilter, page: PageRequest): Promise<Page<AlertRow>> {
  let query = inScope(db.selectFrom('alerts').selectAll(), scope, 'alerts', 'employer_id');
  if (filter.kinds && filter.kinds.length > 0) query = query.where('kind', 'in', [...filter.kinds]);
  if (filter.audience !== undefined) query = query.where('audience', '=', filter.audience);
  if (filter.relatedObjectId !== undefined) query = query.where('related_object_id', '=', filter.relatedObjectId);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.excludeAdmin) query = query.where('audience', '!=', 'admin');
  return paginate(query, page);
}
