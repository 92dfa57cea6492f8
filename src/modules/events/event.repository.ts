import type { Executor } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EventObjectType, EventRow } from './event.table.ts';

export interface EventFilter {
  /** Exact event types and whole object types (`<object_type>.*`): an event matching any of them. */
  types?: { eventTypes: readonly string[]; objectTypes: readonly EventObjectType[] } | undefined;
  objectId?: string | undefined;
  objectType?: EventObjectType | undefined;
  employerId?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

/** Employer keys see their employer's events only (provider-wide ones, such as carriers', have none). */
function events(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('events').selectAll(), scope, 'events', 'employer_id');
}

export const findEventById: (db: Executor, scope: Scope, id: string) => Promise<EventRow | undefined> = findByIdInScope(events);

export function listEvents(db: Executor, scope: Scope, filter: EventFilter, page: PageRequest): Promise<Page<EventRow>> {
  let query = events(db, scope);
  const types = filter.types;
  if (types) {
    query = query.where((eb) =>
      eb.or([
        ...(types.eventTypes.length > 0 ? [eb('event_type', 'in', [...types.eventTypes])] : []),
        ...(types.objectTypes.length > 0 ? [eb('object_type', 'in', [...types.objectTypes])] : []),
      ]),
    );
  }
  if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
  if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  return paginate(query, page);
}

export async function findProviderIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('providers').select('id').orderBy('id').execute()).map((row) => row.id);
}

/**
 * Deletes up to `limit` of the provider's events created before `cutoff`, oldest first (a range of the
 * provider's page index, on both databases); returns how many went. One short statement per call, so that
 * retention never holds the write lock for long.
 */
export async function deleteEventsCreatedBefore(db: Executor, providerId: string, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) =>
      eb.selectFrom('events').select('id').where('provider_id', '=', providerId).where('created_at', '<', cutoff).orderBy('created_at').limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
