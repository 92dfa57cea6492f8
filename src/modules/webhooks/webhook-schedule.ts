/**
 * When webhook deliveries are tried again, and when an endpoint that keeps failing is disabled
 * (docs/decisions.md "Webhooks", Schedule and Failing endpoints; docs/webhooks.md "Answering, retries and
 * failure"): retries with backoff for at least 24 hours and at least 10 attempts; 3 days of continuous failure
 * disables an endpoint.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after failed attempt n (1-based), before jitter: 12 attempts over about 52 hours. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  10 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
];

/** Attempts before a delivery is marked failed. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** An endpoint is disabled by a failed attempt this long after its failures began (with no success since). */
export const WEBHOOK_DISABLE_AFTER_MS = 3 * 24 * HOUR;

/** The job of a delivery waits for an earlier delivery about the same object at most this long before looking again. */
export const WEBHOOK_ORDER_RECHECK_MAX_MS = 1 * HOUR;
/** ...and at least this long (an earlier delivery being attempted right now pulls this one forward when done). */
export const WEBHOOK_ORDER_RECHECK_MIN_MS = 1 * SECOND;

/**
 * The wait after failed attempt `attempt`, or undefined after the last one. ±10% jitter spreads the retries
 * of deliveries that failed together (a receiver's outage) instead of sending them back all at once.
 */
export function webhookRetryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, not ${attempt}`);
  const base = WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.9 + random() * 0.2));
}
