import type { Selectable } from 'kysely';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export interface WebhookEndpointTable {
  id: string;
  provider_id: string;
  url: string;
  description: string | null;
  /** JSON text: an array of event types, or ["*"]. */
  enabled_events: string;
  /** Encrypted with the service's key (Encrypter): signing needs the secret itself. */
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  disabled: boolean | number;
  /** 'failing' when the service disabled the endpoint after 3 days of failures; null otherwise. */
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  metadata: string;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  provider_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  object_id: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface WebhookAttemptTable {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  succeeded: boolean | number;
  created_at: string;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>;
