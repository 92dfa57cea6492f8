/**
 * Alerts (docs/decisions.md "Alerts"): what a provider's admins, an employer or a member must act on that the
 * contract's notification types do not name. Services hand them to `ChangeCommit.commit` (`alerts`) with the
 * rest of their change; each is recorded once per provider and `key`, with one `alert.created` event.
 */
import type { Kysely } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { AuthContext } from '../../shared/tenancy.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import * as repository from './alert.repository.ts';
import type { AlertResponse, ListAlertsQuery } from './alert.schemas.ts';
import type { AlertAudience, AlertKind, AlertRow } from './alert.table.ts';

export interface NewAlert {
  providerId: string;
  employerId: string | null;
  audience: AlertAudience;
  kind: AlertKind;
  relatedObjectType: string;
  relatedObjectId: string;
  memberId: string | null;
  /** What happened and what to do: names the records and the rule, never an SSN, a birth date or a name. */
  message: string;
  /** Ids and statuses only. */
  payload: Record<string, string | null>;
  /** Recorded once per provider and key (e.g. `edi_unmapped_line:<benefit change id>`). */
  key: string;
}

export function toAlertResponse(row: AlertRow): AlertResponse {
  return {
    id: row.id,
    kind: row.kind,
    audience: row.audience,
    employer: row.employer_id,
    member: row.member_id,
    related_object_type: row.related_object_type,
    related_object_id: row.related_object_id,
    message: row.message,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

/** Writes alerts not recorded before (by key) and gives back their `alert.created` events, for ChangeCommit. */
export async function insertAlerts(trx: Executor, clock: Clock, alerts: readonly NewAlert[]): Promise<NewEvent[]> {
  if (alerts.length === 0) return [];
  const createdAt = clock.now().toISOString();
  const unique = new Map(alerts.map((alert) => [`${alert.providerId}|${alert.key}`, alert]));
  const rows = [...unique.values()].map((alert): AlertRow => ({
    id: newId('alert'),
    provider_id: alert.providerId,
    employer_id: alert.employerId,
    audience: alert.audience,
    kind: alert.kind,
    related_object_type: alert.relatedObjectType,
    related_object_id: alert.relatedObjectId,
    member_id: alert.memberId,
    message: alert.message,
    payload: JSON.stringify(alert.payload),
    alert_key: alert.key,
    created_at: createdAt,
  }));
  const inserted = await repository.insertAlerts(trx, rows);
  return rows.filter((row) => inserted.has(row.id)).map((row) => eventOf('alert', 'created', row));
}

export class AlertService {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * `GET /alerts`, newest first. Admin keys see every alert of the provider; other keys (employer-scoped ones
   * their employer's only) see those for employers and members, never the admins' (EDI set-up, carrier files).
   */
  async listAlerts(auth: AuthContext, query: Omit<ListAlertsQuery, 'cursor' | 'page_size'>, page: PageRequest): Promise<Page<AlertResponse>> {
    const rows = await repository.listAlerts(
      this.#db,
      scopeOf(auth),
      {
        kinds: query.kind ? [query.kind] : undefined,
        audience: query.audience,
        relatedObjectId: query.related_object_id,
        memberId: query.member,
        excludeAdmin: auth.role !== 'admin',
      },
      page,
    );
    return mapPage(rows, toAlertResponse);
  }
}
