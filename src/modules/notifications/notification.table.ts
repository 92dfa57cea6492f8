import type { Selectable } from 'kysely';

/** notification_type: the contract's values (docs/api.md "Notification"); when each is recorded: docs/decisions.md "Notifications". */
export const NOTIFICATION_TYPES = [
  'enrollment_submitted',
  'enrollment_approved',
  'member_terminated',
  'welcome',
  'newly_eligible',
  'dependent_age_out',
  'open_enrollment_kickoff',
  'open_enrollment_reminder',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** docs/decisions.md "Notifications". */
export const NOTIFICATION_OWNERS = ['member', 'employer', 'broker'] as const;
export type NotificationOwner = (typeof NOTIFICATION_OWNERS)[number];

export const RELATED_OBJECT_TYPES = ['member', 'dependent', 'enrollment', 'open_enrollment_window'] as const;
export type RelatedObjectType = (typeof RELATED_OBJECT_TYPES)[number];

export interface NotificationTable {
  id: string;
  provider_id: string;
  employer_id: string | null;
  notification_type: NotificationType;
  related_object_type: RelatedObjectType;
  related_object_id: string;
  /** JSON text: ids and statuses only, never personal data. */
  payload: string;
  owner: NotificationOwner;
  occurrence_key: string | null;
  created_at: string;
}

export type NotificationRow = Selectable<NotificationTable>;
