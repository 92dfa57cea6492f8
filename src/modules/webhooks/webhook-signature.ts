import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures by the Standard Webhooks specification (docs/webhooks.md): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}` (the id and the timestamp as their headers carry them, the body
 * as its exact bytes); the key is the base64-decoded part of the endpoint's `whsec_<base64>` secret; the
 * signature is the base64 HMAC-SHA256, sent as `Webhook-Signature: v1,<signature>`. While a rotated-out secret
 * is still valid, a second `v1,` entry signed with it follows, space-separated. Receivers can verify with the
 * `standardwebhooks` package (or svix, or their ports) or with `verifyWebhookSignature` here: this module is
 * part of the package's public entry point.
 */
export const ID_HEADER = 'webhook-id';
export const SIGNATURE_HEADER = 'webhook-signature';
export const TIMESTAMP_HEADER = 'webhook-timestamp';
export const SIGNATURE_SCHEME = 'v1';
export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The HMAC key of a `whsec_<base64>` secret: its base64-decoded part (a secret without the prefix is read whole as base64). */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The base64 HMAC-SHA256 of `${id}.${timestamp}.${payload}` under the secret's key: the value of one `v1,` entry. */
export function computeWebhookSignature(options: { id: string; payload: string | Uint8Array; timestamp: number | string; secret: string }): string {
  const hmac = createHmac('sha256', webhookSecretKey(options.secret));
  hmac.update(`${options.id}.${String(options.timestamp)}.`);
  hmac.update(options.payload);
  return hmac.digest('base64');
}

/** The whole `Webhook-Signature` header value for a message signed with one or more secrets. */
export function webhookSignatureHeader(options: { id: string; payload: string | Uint8Array; timestamp: number; secrets: readonly string[] }): string {
  return options.secrets.map((secret) => `${SIGNATURE_SCHEME},${computeWebhookSignature({ ...options, secret })}`).join(' ');
}

/** Request headers as Node's `IncomingMessage#headers` or a Fetch `Headers` give them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookSignatureOptions {
  /** The raw request body, exactly as received (not re-serialized JSON). */
  payload: string | Uint8Array;
  /** The request headers (Webhook-Id, Webhook-Signature and Webhook-Timestamp are read from them)... */
  headers?: WebhookHeaders;
  /** ...or the three header values given directly. */
  id?: string;
  signatureHeader?: string;
  timestamp?: number | string;
  /** The endpoint's signing secret (`whsec_...`); several while the receiver itself is between secrets. */
  secret: string | readonly string[];
  /** How far the timestamp may be from now, either way; 300 s by default. */
  toleranceSeconds?: number;
  /** Now, in Unix seconds; the system clock by default. */
  now?: number;
}

/**
 * True when one of the signature's `v1,` entries is the HMAC of the message under one of the secrets (compared
 * in constant time) and the timestamp is within the tolerance of now (a replayed old request fails).
 */
export function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): boolean {
  const id = options.id ?? headerValue(options.headers, ID_HEADER);
  const signatureHeader = options.signatureHeader ?? headerValue(options.headers, SIGNATURE_HEADER);
  const timestampText = options.timestamp !== undefined ? String(options.timestamp) : headerValue(options.headers, TIMESTAMP_HEADER);
  const signedTimestamp = timestampText?.trim();
  if (id === undefined || signatureHeader === undefined || signedTimestamp === undefined || !/^\d{1,12}$/.test(signedTimestamp)) return false;
  const timestamp = Number(signedTimestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) return false;

  const given = signatureHeader
    .split(' ')
    .filter((entry) => entry.startsWith(`${SIGNATURE_SCHEME},`))
    .map((entry) => Buffer.from(entry.slice(SIGNATURE_SCHEME.length + 1), 'utf8'));
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  let valid = false;
  for (const secret of secrets) {
    const expected = Buffer.from(computeWebhookSignature({ id, payload: options.payload, timestamp: signedTimestamp, secret }), 'utf8');
    // Every pair is compared, so the time taken does not tell which entry or secret matched.
    for (const candidate of given) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) valid = true;
    }
  }
  return valid;
}

function headerValue(headers: WebhookHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.join(' ');
}
