import type { DeliveryChannel, Metrics } from './metrics.ts';

/** What the delivery jobs report of each attempt that went out (or tried to): for the metrics and the log. */
export interface DeliveryAttempt {
  channel: DeliveryChannel;
  succeeded: boolean;
  /** 1 for the first attempt. */
  attempt: number;
  /** Ids that say which delivery this was (endpoint and delivery, or EDI file and group); never content or secrets. */
  about: Readonly<Record<string, string>>;
  /** Why it failed, as safe to log: no secret, no body, no address the host resolved to. Null when it succeeded. */
  reason: string | null;
  /** When it is tried again; null when it is not (it succeeded, or no attempt is left). */
  retryAt: Date | null;
}

export interface DeliveryObserver {
  attempted(attempt: DeliveryAttempt): void;
}

interface WarnLog {
  warn(obj: object, msg: string): void;
}

/** Observes nothing: for handlers built without a server (tests, the sweep command). */
export const UNOBSERVED: DeliveryObserver = { attempted: () => undefined };

/**
 * Counts every attempt (benefits_delivery_attempts_total, benefits_delivery_failures_total) and logs each failed
 * one at warn, with its ids, attempt number, reason and next attempt: an operator sees a failing receiver or
 * carrier drop in the log, not only in the API.
 */
export function observeDeliveries(metrics: Metrics | undefined, log: WarnLog): DeliveryObserver {
  return {
    attempted({ channel, succeeded, attempt, about, reason, retryAt }) {
      metrics?.deliveryAttempted(channel, succeeded);
      if (succeeded) return;
      log.warn(
        { channel, ...about, attempt, reason, retryAt: retryAt?.toISOString() ?? null },
        retryAt ? `${channel} delivery failed; will retry` : `${channel} delivery failed; no retry`,
      );
    },
  };
}
