import type { Insertable } from 'kysely';
import { enqueueJobs, type NewJob } from '../../jobs/job-queue.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { EventSubscriber } from '../events/event-log.ts';
import type { EventRow } from '../events/event.table.ts';
import { toEventResponse } from '../events/event.service.ts';
import { findEnabledEndpoints, insertDeliveries } from './webhook.repository.ts';
import type { WebhookDeliveryTable } from './webhook.table.ts';

export const DELIVER_WEBHOOK_JOB = 'webhook.deliver';

/**
 * A delivery's job never runs out of attempts on the worker's count: the delivery row keeps the real attempt
 * count and its own schedule (webhook-schedule.ts), and waiting for an earlier delivery uses job runs too.
 */
export const DELIVERY_JOB_MAX_ATTEMPTS = 100_000;

/** The job of a delivery has an id derived from the delivery's, so the delivery can find it again. */
export function deliveryJobId(deliveryId: string): string {
  return `job_${deliveryId}`;
}

/** The body every endpoint receives for an event: the event exactly as GET /events shows it, as JSON text. */
export function eventPayload(event: EventRow): string {
  return JSON.stringify(toEventResponse(event));
}

/** Whether an endpoint's `enabled_events` (`*`, `<object_type>.*` or exact types) take this event. */
export function acceptsEvent(enabledEvents: readonly string[], event: Pick<EventRow, 'event_type' | 'object_type'>): boolean {
  return enabledEvents.some((filter) => filter === '*' || filter === event.event_type || filter === `${event.object_type}.*`);
}

/**
 * The event log's subscriber for webhooks: inside the transaction of the change, one delivery per event and
 * enabled endpoint that takes it, each with its durable job, so a delivery exists exactly when its event does
 * (STYLE habit 6). Costs one indexed query per batch of events when the provider has no endpoints.
 * Its jobs wake the worker after the commit like any other (jobs/job-wake.ts).
 */
export function webhookFanOut(clock: Clock): EventSubscriber {
  return async (trx, events) => {
    const deliveries: Insertable<WebhookDeliveryTable>[] = [];
    for (const [providerId, ofProvider] of Map.groupBy(events, (event) => event.provider_id)) {
      const endpoints = await findEnabledEndpoints(trx, providerId);
      if (endpoints.length === 0) continue;
      const filters = endpoints.map((endpoint) => ({ id: endpoint.id, enabledEvents: JSON.parse(endpoint.enabled_events) as string[] }));
      for (const event of ofProvider) {
        let payload: string | undefined;
        for (const endpoint of filters) {
          // An endpoint is not told about itself (its creation, or the change that enabled it again).
          if (event.object_id === endpoint.id || !acceptsEvent(endpoint.enabledEvents, event)) continue;
          payload ??= eventPayload(event);
          deliveries.push({
            // Ordered ids keep deliveries about one object in the order of their events, even within a millisecond.
            id: newId('webhook_delivery'),
            provider_id: providerId,
            endpoint_id: endpoint.id,
            event_id: event.id,
            event_type: event.event_type,
            object_id: event.object_id,
            payload,
            status: 'pending',
            attempt_count: 0,
            next_attempt_at: event.created_at,
            last_attempt_at: null,
            created_at: event.created_at,
            completed_at: null,
          });
        }
      }
    }
    if (deliveries.length === 0) return;
    await insertDeliveries(trx, deliveries);
    const jobs: NewJob[] = deliveries.map((delivery) => ({
      id: deliveryJobId(delivery.id),
      kind: DELIVER_WEBHOOK_JOB,
      payload: { delivery_id: delivery.id },
      maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS,
    }));
    await enqueueJobs(trx, clock, jobs);
  };
}
