import { EVENT_OBJECT_TYPES, type EventObjectType } from './event.table.ts';

/**
 * Every event a record can have, by object type: `event_type` is `<object_type>.<action>`. Creates, updates and
 * deletes, plus one action per state change, named after the state it leads to (the enrollment and window
 * status machines name theirs from this catalog, checked when compiling; benefit changes move through their
 * carrier hand-off).
 */
export const EVENT_ACTIONS = {
  employer: ['created', 'updated'],
  carrier: ['created', 'updated'],
  group: ['created', 'updated'],
  business_unit: ['created', 'updated'],
  subclass: ['created', 'updated'],
  member: ['created', 'updated', 'deleted'],
  dependent: ['created', 'updated', 'deleted'],
  beneficiary: ['created', 'updated', 'deleted'],
  pay_rate: ['created', 'updated', 'deleted'],
  document: ['created', 'updated'],
  member_id_card: ['created', 'updated', 'deleted'],
  plan: ['created', 'updated'],
  plan_configuration: ['created', 'updated'],
  enrollment: ['created', 'updated', 'submitted', 'reopened', 'cancelled', 'approved', 'synced', 'failed', 'deleted'],
  // `returned`: a 999/TA1 rejected the file that carried it, so it waits for a file again; `rejected`: the carrier refused it.
  benefit_change: ['created', 'updated', 'sent', 'completed', 'rejected', 'reopened', 'returned'],
  open_enrollment_window: ['created', 'updated', 'activated', 'closed', 'completed'],
  notification: ['created'],
  // `disabled`: the service disabled it after 3 days of failed deliveries (a client's PATCH is `updated`).
  webhook_endpoint: ['created', 'updated', 'deleted', 'disabled'],
  // A COBRA qualifying event is recorded once; `updated` when a disability determination extends its coverage period.
  cobra_event: ['created', 'updated'],
  edi_profile: ['created', 'updated', 'deleted'],
  // A carrier file's life: built, confirmed (full files), delivered or not, and what the carrier's 999 said.
  edi_file: ['created', 'confirmed', 'cancelled', 'delivered', 'delivery_failed', 'accepted', 'accepted_with_errors', 'rejected'],
  // A member an 834 build could not write, reported once per member and reason; deleted once the member is written.
  edi_left_out: ['created', 'deleted'],
  // Something a person must act on (alerts/alert.table.ts), recorded once.
  alert: ['created'],
  // A carrier's file compared (created), and each of its discrepancies resolved by an admin (resent, or the carrier's value accepted), once.
  carrier_file: ['created', 'discrepancy_resolved'],
} as const satisfies Record<EventObjectType, readonly string[]>;

export type EventAction<T extends EventObjectType> = (typeof EVENT_ACTIONS)[T][number];

/** Every event type, e.g. `enrollment.approved`, in catalog order. */
export const EVENT_TYPES: readonly string[] = EVENT_OBJECT_TYPES.flatMap((objectType) => EVENT_ACTIONS[objectType].map((action) => `${objectType}.${action}`));

export function isEventObjectType(value: string): value is EventObjectType {
  return (EVENT_OBJECT_TYPES as readonly string[]).includes(value);
}

/** What one `?type=` value or `enabled_events` item names: every event, every event of an object type, or one event type. */
export type EventFilter = { kind: 'all' } | { kind: 'object_type'; objectType: EventObjectType } | { kind: 'event_type'; eventType: string };

/** `*`, `<object_type>.*` or an event type of the catalog; undefined for anything else. */
export function parseEventFilter(value: string): EventFilter | undefined {
  if (value === '*') return { kind: 'all' };
  if (value.endsWith('.*')) {
    const objectType = value.slice(0, -2);
    return isEventObjectType(objectType) ? { kind: 'object_type', objectType } : undefined;
  }
  return EVENT_TYPES.includes(value) ? { kind: 'event_type', eventType: value } : undefined;
}
