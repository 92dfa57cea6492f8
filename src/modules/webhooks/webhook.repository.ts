import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { forNoKeyUpdate } from '../../db/scope.ts';
import { batches } from '../../shared/batches.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookDeliveryStatus, WebhookDeliveryTable, WebhookEndpointRow } from './webhook.table.ts';

/** Rows per INSERT when many deliveries are written at once. */
const INSERT_BATCH = 500;

// Endpoints

export async function insertEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpointById(db: Executor, providerId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('provider_id', '=', providerId).where('id', '=', id).executeTakeFirst();
}

/** Locks an endpoint to change it (not its key: deliveries may still be inserted for it meanwhile). */
export function lockEndpointById(trx: Transaction<Database>, providerId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return forNoKeyUpdate(trx, trx.selectFrom('webhook_endpoints').selectAll().where('provider_id', '=', providerId).where('id', '=', id)).executeTakeFirst();
}

/**
 * Locks every endpoint of the provider, in id order, before one is deleted. A delete takes FOR UPDATE on its
 * row while its own event's deliveries reference the other endpoints; two deletes at once would each hold what
 * the other's deliveries need (a deadlock on PostgreSQL) without this one order.
 */
export async function lockProviderEndpoints(trx: Transaction<Database>, providerId: string): Promise<void> {
  await forNoKeyUpdate(trx, trx.selectFrom('webhook_endpoints').select('id').where('provider_id', '=', providerId).orderBy('id')).execute();
}

export function listEndpoints(db: Executor, providerId: string, page: PageRequest): Promise<Page<WebhookEndpointRow>> {
  return paginate(db.selectFrom('webhook_endpoints').selectAll().where('provider_id', '=', providerId), page);
}

export async function updateEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}

export async function deleteEndpoint(db: Executor, providerId: string, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('provider_id', '=', providerId).where('id', '=', id).execute();
}

/** The endpoints events of a provider go to: one query on the provider's index, per batch of events. */
export function findEnabledEndpoints(trx: Executor, providerId: string): Promise<Pick<WebhookEndpointRow, 'id' | 'enabled_events'>[]> {
  return enabledEndpoints(trx, providerId);
}

const enabledEndpoints = cachedQuery(
  (db, providerId: string) =>
    db.selectFrom('webhook_endpoints').select(['id', 'enabled_events']).where('provider_id', '=', providerId).where('disabled', '=', false),
  { rememberable: true },
);

/** Marks the start of an endpoint's failures, unless they already started. */
export async function markEndpointFailing(db: Executor, id: string, since: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: since }).where('id', '=', id).where('failing_since', 'is', null).execute();
}

export async function clearEndpointFailing(db: Executor, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/**
 * Disables an endpoint whose failures began at or before `failingBefore`, if it is still enabled and still
 * failing; the row when this call disabled it (exactly one caller does).
 */
export function disableFailingEndpoint(db: Executor, id: string, failingBefore: string, now: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ disabled: true, disabled_reason: 'failing', disabled_at: now })
    .where('id', '=', id)
    .where('disabled', '=', false)
    .where('failing_since', '<=', failingBefore)
    .returningAll()
    .executeTakeFirst();
}

/** Disables an endpoint whose receiver answered 410 Gone, if it is still enabled; the row when this call disabled it. */
export function disableGoneEndpoint(db: Executor, id: string, now: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ disabled: true, disabled_reason: 'gone', disabled_at: now })
    .where('id', '=', id)
    .where('disabled', '=', false)
    .returningAll()
    .executeTakeFirst();
}

// Deliveries

export async function insertDeliveries(trx: Executor, rows: Insertable<WebhookDeliveryTable>[]): Promise<void> {
  for (const batch of batches(rows, INSERT_BATCH)) await trx.insertInto('webhook_deliveries').values(batch).execute();
}

export interface DeliveryToSend {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
}

/** A delivery with its endpoint, for the delivery job; undefined when gone (its endpoint was deleted). */
export async function findDeliveryToSend(db: Executor, id: string): Promise<DeliveryToSend | undefined> {
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  if (!delivery) return undefined;
  const endpoint = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst();
  return endpoint ? { delivery, endpoint } : undefined;
}

type OrderKey = Pick<WebhookDeliveryRow, 'id' | 'endpoint_id' | 'object_id' | 'created_at'>;

/**
 * The pending delivery to the same endpoint about the same object nearest this one on the given side: the
 * oldest made `before` it (which must go first), or the next made `after` it (which may go once it settles).
 */
export function findAdjacentPendingDelivery(
  db: Executor,
  delivery: OrderKey,
  side: 'before' | 'after',
): Promise<Pick<WebhookDeliveryRow, 'id' | 'next_attempt_at'> | undefined> {
  const position =
    side === 'before'
      ? sql<boolean>`(created_at, id) < (${delivery.created_at}, ${delivery.id})`
      : sql<boolean>`(created_at, id) > (${delivery.created_at}, ${delivery.id})`;
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'next_attempt_at'])
    .where('endpoint_id', '=', delivery.endpoint_id)
    .where('object_id', '=', delivery.object_id)
    .where('status', '=', 'pending')
    .where(position)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Counts one more attempt of a pending delivery; its number, or undefined when the delivery is no longer pending. */
export async function countDeliveryAttempt(trx: Executor, id: string, now: string): Promise<number | undefined> {
  const row = await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1), last_attempt_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning('attempt_count')
    .executeTakeFirst();
  return row?.attempt_count;
}

export async function settleDelivery(
  trx: Executor,
  id: string,
  values: { status: WebhookDeliveryStatus; next_attempt_at: string | null; completed_at: string | null },
): Promise<void> {
  await trx.updateTable('webhook_deliveries').set(values).where('id', '=', id).execute();
}

export async function insertAttempt(trx: Executor, row: WebhookAttemptRow): Promise<void> {
  await trx.insertInto('webhook_attempts').values(row).execute();
}

export function findDelivery(db: Executor, endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
}

export function listDeliveries(
  db: Executor,
  endpointId: string,
  filter: { status?: WebhookDeliveryStatus | undefined },
  page: PageRequest,
): Promise<Page<WebhookDeliveryRow>> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return paginate(query, page);
}

/** Every attempt of these deliveries, in one query, oldest first per delivery. */
export function listAttempts(db: Executor, deliveryIds: readonly string[]): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute();
}

/** Makes a delivery pending again, due now (a manual retry). */
export async function reopenDelivery(trx: Executor, id: string, now: string): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: now, completed_at: null }).where('id', '=', id).execute();
}

export function findEndpointIds(db: Executor): Promise<{ id: string }[]> {
  return db.selectFrom('webhook_endpoints').select('id').execute();
}

/** Deletes up to `limit` settled (succeeded or failed) deliveries of an endpoint made before `cutoff`, with their attempts (cascade); their ids. */
export async function deleteSettledDeliveriesBefore(trx: Executor, endpointId: string, cutoff: string, limit: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('created_at', '<', cutoff)
    .where('status', '!=', 'pending')
    .orderBy('created_at')
    .limit(limit)
    .execute();
  const ids = rows.map((row) => row.id);
  if (ids.length > 0) await trx.deleteFrom('webhook_deliveries').where('id', 'in', ids).execute();
  return ids;
}
