import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Executor } from '../../db/database.ts';
import { PermanentJobError, RetryJobLater } from '../../jobs/job-queue.ts';
import { bringJobForward } from '../../jobs/job.repository.ts';
import type { JobHandler } from '../../jobs/job-worker.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import type { DeliveryObserver } from '../../observability/delivery-observer.ts';
import { truncate } from '../../shared/text.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { DELIVER_WEBHOOK_JOB, deliveryJobId } from './webhook-fan-out.ts';
import * as repository from './webhook.repository.ts';
import type { WebhookEndpointRow } from './webhook.table.ts';
import { WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_ORDER_RECHECK_MAX_MS, WEBHOOK_ORDER_RECHECK_MIN_MS, webhookRetryDelayMs } from './webhook-schedule.ts';
import type { SendOutcome, WebhookSender } from './webhook-sender.ts';
import { webhookSignatureHeader } from './webhook-signature.ts';
import { webhookEndpointEvent } from './webhook-endpoint.service.ts';

export interface WebhookJobDependencies {
  db: Kysely<Database>;
  clock: Clock;
  encrypter: Encrypter;
  sender: WebhookSender;
  changes: ChangeCommit;
  /** Told of every attempt sent (metrics, and a warn log line for each failed one). */
  observer?: DeliveryObserver | undefined;
}

/** The job handlers of webhooks, by job kind, for the worker's registry. */
export function webhookJobHandlers(deps: WebhookJobDependencies): Record<string, JobHandler> {
  return { [DELIVER_WEBHOOK_JOB]: (payload) => deliverWebhook(deps, payload) };
}

/** Longest error text kept per attempt. */
const ATTEMPT_ERROR_LENGTH = 500;

/**
 * One attempt at a delivery. Jobs run at least once, so a delivery no longer pending is left alone. The POST
 * happens outside any transaction; its outcome, the endpoint's failure streak and the next attempt are recorded
 * in one. Retries follow the delivery's own schedule (RetryJobLater), not the worker's.
 */
async function deliverWebhook(deps: WebhookJobDependencies, payload: Record<string, unknown>): Promise<void> {
  const { db, clock } = deps;
  const id = payload.delivery_id;
  if (typeof id !== 'string') throw new PermanentJobError('The payload names no delivery_id.');
  const found = await repository.findDeliveryToSend(db, id);
  // Deleting an endpoint deletes its deliveries: nothing left to do.
  if (!found) return;
  const { delivery, endpoint } = found;
  if (delivery.status !== 'pending') return;

  if (endpoint.disabled) {
    await db.transaction().execute(async (trx) => {
      const now = clock.now().toISOString();
      const attempt = await repository.countDeliveryAttempt(trx, delivery.id, now);
      if (attempt === undefined) return;
      await repository.insertAttempt(trx, {
        delivery_id: delivery.id,
        attempt,
        status_code: null,
        duration_ms: 0,
        error: 'Not sent: the endpoint is disabled.',
        succeeded: false,
        created_at: now,
      });
      await settle(trx, clock, delivery, 'failed', now);
    });
    return;
  }

  // In order per object: an earlier delivery about the same object that is still pending goes first.
  const earlier = await repository.findAdjacentPendingDelivery(db, delivery, 'before');
  if (earlier) {
    const now = clock.now().getTime();
    const due = earlier.next_attempt_at ? Date.parse(earlier.next_attempt_at) : now;
    const wait = Math.min(Math.max(due - now, WEBHOOK_ORDER_RECHECK_MIN_MS), WEBHOOK_ORDER_RECHECK_MAX_MS);
    throw new RetryJobLater(new Date(now + wait), `Waiting for ${earlier.id}, an earlier delivery about the same object.`);
  }

  const startedAt = clock.now();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const outcome = await deps.sender.send(endpoint.url, delivery.payload, {
    'webhook-id': delivery.event_id,
    'webhook-delivery': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignatureHeader({
      id: delivery.event_id,
      payload: delivery.payload,
      timestamp,
      secrets: signingSecrets(deps.encrypter, endpoint, startedAt),
    }),
  });

  const next = await db.transaction().execute(async (trx) => {
    const recorded = await recordOutcome(trx, deps, delivery, endpoint, startedAt, outcome);
    // An endpoint disabled by this outcome is an event of its own.
    if (recorded.disabled) await deps.changes.commit(trx, { events: [webhookEndpointEvent(recorded.disabled, 'disabled')] });
    return recorded;
  });
  if (next.attempt !== undefined) {
    deps.observer?.attempted({
      channel: 'webhook',
      succeeded: outcome.succeeded,
      attempt: next.attempt,
      about: { endpoint: endpoint.id, delivery: delivery.id, event: delivery.event_id },
      // The receiver's body stays on the attempt record (the API shows it), out of the log: it may echo the payload.
      reason: outcome.succeeded ? null : outcome.statusCode === null ? outcome.error : `HTTP ${outcome.statusCode}`,
      retryAt: next.retryAt ?? null,
    });
  }
  if (next.retryAt) throw new RetryJobLater(next.retryAt, outcome.error ?? 'failed');
}

/** The endpoint's secret, and the one it replaced while that is still valid (24 h after a rotation). */
function signingSecrets(encrypter: Encrypter, endpoint: WebhookEndpointRow, now: Date): string[] {
  const secrets = [encrypter.decrypt(endpoint.secret_ciphertext)];
  const expires = endpoint.previous_secret_expires_at;
  if (endpoint.previous_secret_ciphertext && expires && Date.parse(expires) > now.getTime()) {
    secrets.push(encrypter.decrypt(endpoint.previous_secret_ciphertext));
  }
  return secrets;
}

async function recordOutcome(
  trx: Executor,
  deps: WebhookJobDependencies,
  delivery: OrderedDelivery,
  endpoint: WebhookEndpointRow,
  startedAt: Date,
  outcome: SendOutcome,
): Promise<{ attempt?: number; retryAt?: Date; disabled?: WebhookEndpointRow | undefined }> {
  const now = deps.clock.now();
  const attempt = await repository.countDeliveryAttempt(trx, delivery.id, now.toISOString());
  // Settled meanwhile (a retry of this very job that another worker took over): its outcome stands.
  if (attempt === undefined) return {};
  await repository.insertAttempt(trx, {
    delivery_id: delivery.id,
    attempt,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    error: outcome.error === null ? null : truncate(outcome.error, ATTEMPT_ERROR_LENGTH),
    succeeded: outcome.succeeded,
    created_at: startedAt.toISOString(),
  });

  if (outcome.succeeded) {
    if (endpoint.failing_since !== null) await repository.clearEndpointFailing(trx, endpoint.id);
    await settle(trx, deps.clock, delivery, 'succeeded', now.toISOString());
    return { attempt };
  }

  // 410 Gone (Standard Webhooks): the receiver will never take deliveries again. The endpoint is disabled and
  // the delivery fails now; the endpoint's other deliveries fail as their jobs find it disabled.
  if (outcome.statusCode === 410) {
    const disabled = await repository.disableGoneEndpoint(trx, endpoint.id, now.toISOString());
    await settle(trx, deps.clock, delivery, 'failed', now.toISOString());
    return { attempt, disabled };
  }
  const disabled = await noteFailure(trx, endpoint, now);
  const delay = webhookRetryDelayMs(attempt);
  if (delay === undefined) {
    await settle(trx, deps.clock, delivery, 'failed', now.toISOString());
    return { attempt, disabled };
  }
  const retryAt = new Date(now.getTime() + delay);
  await repository.settleDelivery(trx, delivery.id, { status: 'pending', next_attempt_at: retryAt.toISOString(), completed_at: null });
  return { attempt, retryAt, disabled };
}

/**
 * A failed attempt: the endpoint's failures begin now unless they already had; once they began 3 days ago or
 * more (no success since), the endpoint is disabled (returned: that is an event of its own).
 */
async function noteFailure(trx: Executor, endpoint: WebhookEndpointRow, now: Date): Promise<WebhookEndpointRow | undefined> {
  if (endpoint.failing_since === null) {
    await repository.markEndpointFailing(trx, endpoint.id, now.toISOString());
    return undefined;
  }
  const failingBefore = new Date(now.getTime() - WEBHOOK_DISABLE_AFTER_MS).toISOString();
  if (endpoint.failing_since > failingBefore) return undefined;
  return repository.disableFailingEndpoint(trx, endpoint.id, failingBefore, now.toISOString());
}

type OrderedDelivery = { id: string; endpoint_id: string; object_id: string; created_at: string };

/**
 * Settles a delivery for good and lets the next pending delivery about the same object go now (a job brought
 * forward wakes the worker once this one is done: jobs/job-wake.ts).
 */
async function settle(trx: Executor, clock: Clock, delivery: OrderedDelivery, status: 'succeeded' | 'failed', now: string): Promise<void> {
  await repository.settleDelivery(trx, delivery.id, { status, next_attempt_at: null, completed_at: now });
  const next = await repository.findAdjacentPendingDelivery(trx, delivery, 'after');
  if (next) await bringJobForward(trx, deliveryJobId(next.id), clock.now());
}
