import type { Kysely } from 'kysely';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { repeatWhileFull } from '../../shared/batches.ts';
import type { Clock } from '../../shared/clock.ts';
import { TIMESTAMP_INPUT_MESSAGE, daysBeforeInstant, parseTimestamp, toTimestamp } from '../../shared/dates.ts';
import { AppError, NotFound, inputError } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { listParameterValues } from '../../shared/text.ts';
import * as repository from './event.repository.ts';
import type { EventResponse, ListEventsQuery } from './event.schemas.ts';
import { parseEventFilter } from './event-types.ts';
import type { EventObjectType, EventRow } from './event.table.ts';

/** Events deleted per statement by retention: each a short write, so requests never wait long behind it. */
const RETENTION_BATCH = 1000;

export function toEventResponse(row: EventRow): EventResponse {
  return {
    id: row.id,
    object: 'event',
    event_type: row.event_type,
    object_type: row.object_type,
    object_id: row.object_id,
    employer: row.employer_id,
    data: JSON.parse(row.data) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

export class EventService {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async getEvent(scope: Scope, id: string): Promise<EventResponse> {
    const row = await repository.findEventById(this.#db, scope, id);
    if (!row) throw new NotFound('event');
    return toEventResponse(row);
  }

  async listEvents(scope: Scope, filter: Omit<ListEventsQuery, 'cursor' | 'page_size'>, page: PageRequest): Promise<Page<EventResponse>> {
    const rows = await repository.listEvents(
      this.#db,
      scope,
      {
        types: parseEventTypes(filter.type),
        objectId: filter.object_id,
        objectType: filter.object_type,
        employerId: filter.employer,
        createdAfter: filter.created_after === undefined ? undefined : canonicalQueryTimestamp('created_after', filter.created_after),
        createdBefore: filter.created_before === undefined ? undefined : canonicalQueryTimestamp('created_before', filter.created_before),
      },
      page,
    );
    return mapPage(rows, toEventResponse);
  }
}

/**
 * `?type=a.b&type=c.d,e.*`: repeated or comma-separated, OR between values. `<object_type>.*` stands for every
 * event of an object type and `*` for every event (no filter). Unknown types and object types are a 400, so
 * that a typo never silently matches nothing.
 */
export function parseEventTypes(values: readonly string[] | undefined): { eventTypes: string[]; objectTypes: EventObjectType[] } | undefined {
  if (values === undefined) return undefined;
  const given = listParameterValues(values);
  if (given.length === 0 || given.includes('*')) return undefined;
  const eventTypes = new Set<string>();
  const objectTypes = new Set<EventObjectType>();
  const unknown: string[] = [];
  for (const value of given) {
    const filter = parseEventFilter(value);
    if (filter?.kind === 'object_type') objectTypes.add(filter.objectType);
    else if (filter?.kind === 'event_type') eventTypes.add(filter.eventType);
    else unknown.push(value);
  }
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_request',
      `Unknown event type: ${unknown.join(', ')}. Give event types such as enrollment.approved, or <object_type>.* such as enrollment.*.`,
      {
        inputErrors: [inputError(['type'], `Unknown event type "${unknown[0]}".`)],
      },
    );
  }
  return { eventTypes: [...eventTypes], objectTypes: [...objectTypes] };
}

/** Timestamps compare as the stored text on SQLite: any accepted instant is brought to the stored form. */
function canonicalQueryTimestamp(parameter: string, value: string): string {
  const instant = parseTimestamp(value);
  if (!instant) throw new AppError('invalid_request', 'Invalid query parameters.', { inputErrors: [inputError([parameter], TIMESTAMP_INPUT_MESSAGE)] });
  return toTimestamp(instant);
}

/**
 * Retention: deletes events older than `retentionDays` (EVENTS_RETENTION_DAYS), in batches of short
 * statements, so it never holds a long lock. The server runs it at start and hourly. Returns how many went.
 */
export async function purgeExpiredEvents(db: Kysely<Database>, clock: Clock, retentionDays: number, batchSize = RETENTION_BATCH): Promise<number> {
  const cutoff = daysBeforeInstant(clock.now(), retentionDays);
  let purged = 0;
  for (const providerId of await repository.findProviderIds(db)) {
    purged += await repeatWhileFull(batchSize, () => repository.deleteEventsCreatedBefore(db, providerId, cutoff, batchSize));
  }
  return purged;
}
