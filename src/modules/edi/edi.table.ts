import type { Selectable } from 'kysely';

/** How a group's files reach the carrier: uploaded over SFTP, or taken by hand from the carrier's portal. */
export const EDI_DELIVERY_METHODS = ['sftp', 'download'] as const;
export type EdiDeliveryMethod = (typeof EDI_DELIVERY_METHODS)[number];

/** ISA15: test or production data. */
export const EDI_USAGE_INDICATORS = ['T', 'P'] as const;
export type EdiUsageIndicator = (typeof EDI_USAGE_INDICATORS)[number];

/** change: BGN08 `2` (what changed since the last file); full: BGN08 `RX` or `4` (everyone covered on a date). */
export const EDI_FILE_KINDS = ['change', 'full'] as const;
export type EdiFileKind = (typeof EDI_FILE_KINDS)[number];

/** A full file replaces the carrier's list (`replace`, BGN08 RX) or only asks it to compare (`verify`, BGN08 4). */
export const EDI_FILE_ACTIONS = ['change', 'replace', 'verify'] as const;
export type EdiFileAction = (typeof EDI_FILE_ACTIONS)[number];

/**
 * Where a file stands. awaiting_confirmation: a full file, built, waiting for an admin to confirm who it leaves
 * out; ready: waiting for delivery (or, for download delivery, for someone to take it to the portal);
 * delivered: with the carrier; delivery_failed: every retry failed (it can be sent again); accepted,
 * accepted_with_errors, rejected: what the carrier's 999 (or TA1) said; cancelled: a full file not confirmed.
 */
export const EDI_FILE_STATUSES = [
  'awaiting_confirmation',
  'ready',
  'delivered',
  'delivery_failed',
  'accepted',
  'accepted_with_errors',
  'rejected',
  'cancelled',
] as const;
export type EdiFileStatus = (typeof EDI_FILE_STATUSES)[number];

export interface EdiProfileTable {
  group_id: string;
  provider_id: string;
  employer_id: string;
  interchange_sender_qualifier: string;
  interchange_sender_id: string;
  interchange_receiver_qualifier: string;
  interchange_receiver_id: string;
  application_sender_code: string;
  application_receiver_code: string;
  usage_indicator: EdiUsageIndicator;
  sponsor_name: string;
  sponsor_tax_id: string;
  payer_name: string;
  payer_id: string;
  payer_id_qualifier: string;
  master_policy_number: string | null;
  /** JSON text: CompanionGuide (edi-profile.ts). */
  companion_guide: string;
  schedule_time: string | null;
  schedule_time_zone: string | null;
  last_scheduled_on: string | null;
  delivery_method: EdiDeliveryMethod;
  /** JSON text: StoredSftpSettings (secrets encrypted); null for download delivery. */
  sftp: string | null;
  created_at: string;
  updated_at: string;
}

export interface EdiControlNumberTable {
  partner_key: string;
  provider_id: string;
  last_interchange_control_number: number;
  last_group_control_number: number;
}

export interface EdiFileTable {
  id: string;
  provider_id: string;
  employer_id: string;
  group_id: string;
  kind: EdiFileKind;
  action: EdiFileAction;
  status: EdiFileStatus;
  as_of: string;
  interchange_control_number: number;
  group_control_number: number;
  transaction_set_control_number: string;
  usage_indicator: EdiUsageIndicator;
  member_count: number;
  segment_count: number;
  byte_count: number;
  benefit_change_count: number;
  file_name: string;
  content_sha256: string;
  /** JSON text: MissingPerson[] (full files). */
  missing: string | null;
  /** JSON text: LeftOut[]. */
  left_out: string;
  /** JSON text: the benefit changes a change file could not carry for want of an 834 code of their line ({ benefit_change, line_of_coverage }[]). */
  unmapped: string;
  delivery_method: EdiDeliveryMethod;
  delivery_attempts: number;
  delivery_error: string | null;
  /** When the job queue will next try to upload the file; null when no attempt is scheduled. */
  next_delivery_attempt_at: string | null;
  remote_path: string | null;
  /** JSON text: the acknowledgement's result. */
  acknowledgement: string | null;
  created_at: string;
  confirmed_at: string | null;
  delivered_at: string | null;
  acknowledged_at: string | null;
  /** The rejected file this one was built to resend (POST /edi_files/{id}/resend); null otherwise. */
  replaces_file_id: string | null;
}

export interface EdiFileChunkTable {
  edi_file_id: string;
  position: number;
  /** Encrypted (shared/crypto.ts). */
  content: string;
}

/**
 * A benefit change a change file carried. A change is in at most one file whose rows are not returned (a
 * unique index over `returned_at is null`); a 999/TA1 rejection of the file sets `returned_at`, and the change
 * may then go in another file.
 */
export interface EdiFileChangeTable {
  benefit_change_id: string;
  edi_file_id: string;
  position: number;
  /** When the file's rejection sent the change back to be sent again; null while the file stands. */
  returned_at: string | null;
}

export interface EdiFilePersonTable {
  edi_file_id: string;
  position: number;
  /** JSON text: [person id, member id, line of coverage][]. */
  people: string;
}

export interface EdiSentDemographicsTable {
  group_id: string;
  person_id: string;
  digest: string;
  edi_file_id: string;
  /** The name as the file sent it (2100B of a later name change); null for people sent before names were kept. */
  last_name: string | null;
  first_name: string | null;
  middle_name: string | null;
}

export type EdiProfileRow = Selectable<EdiProfileTable>;
export type EdiFileRow = Selectable<EdiFileTable>;

/** How an unmatched acknowledgement reached us. */
export const EDI_ACKNOWLEDGEMENT_SOURCES = ['sftp_pickup'] as const;
export type EdiAcknowledgementSource = (typeof EDI_ACKNOWLEDGEMENT_SOURCES)[number];

/** '999' or 'TA1' as read; 'unreadable': X12 text that is not a well-formed 999 or TA1. */
export const EDI_UNMATCHED_KINDS = ['999', 'TA1', 'unreadable'] as const;
export type EdiUnmatchedKind = (typeof EDI_UNMATCHED_KINDS)[number];

/** A carrier acknowledgement that is not for one of our files: stored with why, never applied. */
export interface EdiUnmatchedAcknowledgementTable {
  id: string;
  provider_id: string;
  received_via: EdiAcknowledgementSource;
  remote_file: string | null;
  kind: EdiUnmatchedKind;
  sender_qualifier: string | null;
  sender_id: string | null;
  receiver_qualifier: string | null;
  receiver_id: string | null;
  interchange_control_number: string | null;
  control_number: string | null;
  edi_file_id: string | null;
  reason: string;
  /** JSON text: Mismatch[] (acknowledgement-matching.ts). */
  mismatches: string;
  created_at: string;
}

/** What the pickup did with a remote file it read (or chose not to). */
export type EdiPickupOutcome = 'applied' | 'unmatched' | 'unreadable' | 'not_x12' | 'too_large';

/** A remote file the acknowledgement pickup has read, by name, size and modification time (-1: not announced). */
export interface EdiPickupSeenFileTable {
  folder_key: string;
  name: string;
  size: number;
  modified_at: number;
  provider_id: string;
  outcome: EdiPickupOutcome;
  seen_at: string;
}

export type EdiUnmatchedAcknowledgementRow = Selectable<EdiUnmatchedAcknowledgementTable>;

/** A member a group's 834 builds could not write, and why: reported once (docs/decisions.md "Carrier EDI"). */
export interface EdiLeftOutTable {
  id: string;
  provider_id: string;
  employer_id: string;
  group_id: string;
  member_id: string;
  reason: string;
  /** The file whose `left_out` listed it; null when the build wrote no file. */
  edi_file_id: string | null;
  created_at: string;
}

export type EdiLeftOutRow = Selectable<EdiLeftOutTable>;
