import type { Selectable } from 'kysely';

/** The kinds of record an event can be about (its `object_type`). */
export const EVENT_OBJECT_TYPES = [
  'employer',
  'carrier',
  'group',
  'business_unit',
  'subclass',
  'member',
  'dependent',
  'beneficiary',
  'pay_rate',
  'document',
  'member_id_card',
  'plan',
  'plan_configuration',
  'enrollment',
  'benefit_change',
  'open_enrollment_window',
  'notification',
  'webhook_endpoint',
  'cobra_event',
  'edi_profile',
  'edi_file',
  'edi_left_out',
  'alert',
  'carrier_file',
] as const;
export type EventObjectType = (typeof EVENT_OBJECT_TYPES)[number];

export interface EventTable {
  id: string;
  provider_id: string;
  employer_id: string | null;
  /** `<object_type>.<action>`, e.g. `enrollment.approved`, `member.updated`, `notification.created`. */
  event_type: string;
  object_type: EventObjectType;
  object_id: string;
  /** JSON text: ids and statuses of the object, never personal data. */
  data: string;
  created_at: string;
}

export type EventRow = Selectable<EventTable>;
