import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { truncate } from '../../shared/text.ts';
import { transitionChangesOfEdiFile } from '../benefit-changes/benefit-change.repository.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import * as fileRepository from './edi-file.repository.ts';
import type { EdiFileRow, EdiFileStatus } from './edi.table.ts';

/**
 * Statuses from which a file may be (re)sent: never one awaiting confirmation or cancelled, nor one the carrier
 * rejected (its changes were sent back; POST /edi_files/{id}/resend builds a new file of them).
 */
export const SENDABLE_STATUSES: readonly EdiFileStatus[] = ['ready', 'delivered', 'delivery_failed', 'accepted', 'accepted_with_errors'];

/** Longest delivery error kept on the file (for a person reading it). */
const MAX_DELIVERY_ERROR = 500;

/**
 * The file reached the carrier (uploaded, or taken to the portal by hand): it is `delivered` (unless an
 * acknowledgement already came), and its benefit changes still waiting for a file are `sent`, in the caller's
 * transaction (the file row locked by the caller). Returns the events, for the caller to commit.
 */
export async function recordDelivered(trx: Transaction<Database>, clock: Clock, file: EdiFileRow, remotePath: string | null): Promise<NewEvent[]> {
  const acknowledged = file.status === 'accepted' || file.status === 'accepted_with_errors' || file.status === 'rejected';
  const updated: EdiFileRow = {
    ...file,
    status: acknowledged ? file.status : 'delivered',
    delivered_at: clock.now().toISOString(),
    delivery_attempts: Number(file.delivery_attempts) + 1,
    delivery_error: null,
    next_delivery_attempt_at: null,
    remote_path: remotePath ?? file.remote_path,
  };
  await fileRepository.updateFile(trx, updated);
  const sent = await transitionChangesOfEdiFile(trx, file.id, 'deliver_file', clock.now().toISOString());
  return [...sent.map((change) => eventOf('benefit_change', 'sent', change)), eventOf('edi_file', 'delivered', updated)];
}

/**
 * A delivery attempt failed (in the transaction that puts its job back in the queue or fails it, the file row
 * locked by the caller): the file counts the attempt and shows its error and when the queue tries again. When
 * no attempt is left (`retryAt` null), a file waiting for delivery becomes `delivery_failed` (a file the
 * carrier already has, sent again, keeps its status) with `edi_file.delivery_failed`. Returns the events, for
 * the caller to commit.
 */
export async function recordDeliveryAttemptFailed(trx: Transaction<Database>, file: EdiFileRow, error: string, retryAt: Date | null): Promise<NewEvent[]> {
  const updated: EdiFileRow = {
    ...file,
    status: retryAt === null && file.status === 'ready' ? 'delivery_failed' : file.status,
    delivery_attempts: Number(file.delivery_attempts) + 1,
    delivery_error: truncate(error, MAX_DELIVERY_ERROR),
    next_delivery_attempt_at: retryAt?.toISOString() ?? null,
  };
  await fileRepository.updateFile(trx, updated);
  return retryAt === null ? [eventOf('edi_file', 'delivery_failed', updated)] : [];
}
