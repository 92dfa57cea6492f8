import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { truncate } from '../../shared/text.ts';
import { eventOf } from '../events/event-data.ts';
import type { EventLog } from '../events/event-log.ts';
import * as repository from './edi.repository.ts';
import type { EdiFileRow, EdiFileStatus } from './edi.table.ts';

/** Statuses from which a file may be (re)sent: never one awaiting confirmation or cancelled. */
export const SENDABLE_STATUSES: readonly EdiFileStatus[] = ['ready', 'delivered', 'delivery_failed', 'accepted', 'accepted_with_errors', 'rejected'];

/** Longest delivery error kept on the file (for a person reading it). */
const MAX_DELIVERY_ERROR = 500;

/**
 * The file reached the carrier (uploaded, or taken to the portal by hand): it is `delivered` (unless an
 * acknowledgement already came), and its benefit changes still waiting for a file are `sent`, each with its
 * event, in the caller's transaction (the file row locked by the caller).
 */
export async function recordDelivered(
  trx: Transaction<Database>,
  clock: Clock,
  events: EventLog,
  file: EdiFileRow,
  remotePath: string | null,
): Promise<EdiFileRow> {
  const acknowledged = file.status === 'accepted' || file.status === 'accepted_with_errors' || file.status === 'rejected';
  const updated: EdiFileRow = {
    ...file,
    status: acknowledged ? file.status : 'delivered',
    delivered_at: clock.now().toISOString(),
    delivery_attempts: Number(file.delivery_attempts) + 1,
    delivery_error: null,
    remote_path: remotePath ?? file.remote_path,
  };
  await repository.updateFile(trx, updated);
  const sent = await repository.markChangesSent(trx, file.id);
  await events.recordMany(trx, [...sent.map((change) => eventOf('benefit_change', 'sent', change)), eventOf('edi_file', 'delivered', updated)]);
  return updated;
}

/** Every retry failed: the file is `delivery_failed` with the last error (it can be sent again). */
export async function recordDeliveryFailed(trx: Transaction<Database>, events: EventLog, file: EdiFileRow, error: string): Promise<EdiFileRow> {
  const updated: EdiFileRow = {
    ...file,
    status: file.status === 'ready' || file.status === 'delivery_failed' ? 'delivery_failed' : file.status,
    delivery_attempts: Number(file.delivery_attempts) + 1,
    delivery_error: truncate(error, MAX_DELIVERY_ERROR),
  };
  await repository.updateFile(trx, updated);
  if (updated.status === 'delivery_failed') await events.record(trx, eventOf('edi_file', 'delivery_failed', updated));
  return updated;
}
