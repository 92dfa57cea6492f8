import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { PermanentJobError } from '../../jobs/job-queue.ts';
import type { FailureRecorder, JobContext, JobHandler } from '../../jobs/job-worker.ts';
import type { JobRow } from '../../jobs/job.table.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import type { DeliveryObserver } from '../../observability/delivery-observer.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { withoutAddresses } from './delivery-error.ts';
import { SENDABLE_STATUSES, recordDelivered, recordDeliveryAttemptFailed } from './edi-file-state.ts';
import { DELIVER_EDI_FILE_JOB } from './edi-file.service.ts';
import { sftpSettingsOf, sftpTargetOf } from './edi-profile.ts';
import * as fileRepository from './edi-file.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { EdiFileRow } from './edi.table.ts';
import { SftpDeliveryError } from './sftp-errors.ts';
import { uploadFile, type SftpOptions } from './sftp-transport.ts';

export interface EdiJobDependencies {
  db: Kysely<Database>;
  clock: Clock;
  changes: ChangeCommit;
  /** Decrypts the profile's SFTP secret, for the moment of the connection only. */
  encrypter: Encrypter;
  /** The stored file's text, chunk by chunk (EdiFileService). */
  files: { decryptedChunks(fileId: string): AsyncIterable<string> };
  /** SFTP timeouts; the transport's defaults when absent. */
  sftp?: SftpOptions;
  /** Told of every attempt (metrics, and a warn log line for each failed one). */
  observer?: DeliveryObserver | undefined;
}

/** The job handlers of carrier EDI, by job kind, for the worker's registry. */
export function ediJobHandlers(deps: EdiJobDependencies): Record<string, JobHandler> {
  const deliver: JobHandler = (payload, context) => deliverEdiFile(deps, payload, context);
  deliver.abandoned = (trx, job) => recordAbandonedDelivery(deps, trx, job);
  return { [DELIVER_EDI_FILE_JOB]: deliver };
}

/** The file's delivery_error when the server stopped during the last attempt. */
const ABANDONED_DELIVERY_ERROR =
  'Not sent: the server stopped during the last delivery attempt and no attempt is left; whether the upload finished is not known. Retry to send the file again.';

/** The stored content no longer matches the file's recorded digest: sending it would not be the file the carrier was told of. */
class StoredContentMismatch extends Error {
  override readonly name = 'StoredContentMismatch';
}

/**
 * Uploads one stored file to its group's SFTP drop and records it delivered. The file is never rebuilt: a
 * re-upload (deliver) sends the same stored bytes under the same name (the carrier's file is replaced). Jobs run
 * at least once, so a file no longer sendable (a rejected one among them: resend builds a new file) is left
 * alone. The upload happens outside any transaction; only its outcome is recorded in one.
 *
 * Every failed attempt is recorded on the file in the transaction that settles the job (JobContext.onFailure):
 * the attempt counted, its error, and when the queue tries again (the queue's own backoff, or sooner if a
 * manual retry brought the job forward). A failure no retry can cure (a wrong host key, refused credentials,
 * a missing folder, a profile gone) fails the job at once; any other is retried, and the file becomes
 * `delivery_failed` when no attempt is left (also when the server stops during the last one:
 * recordAbandonedDelivery). Error texts name the host and the step, never a secret, content or an address the
 * host resolved to (delivery-error.ts).
 */
async function deliverEdiFile(deps: EdiJobDependencies, payload: Record<string, unknown>, context: JobContext): Promise<void> {
  const { db, encrypter } = deps;
  const id = payload.edi_file;
  if (typeof id !== 'string') throw new PermanentJobError('The payload names no edi_file.');
  const file = await db.transaction().execute((trx) => fileRepository.lockFileById(trx, id));
  if (!file || !SENDABLE_STATUSES.includes(file.status)) return;

  const profile = await profileRepository.findProfile(db, file.group_id);
  if (profile?.delivery_method !== 'sftp' || profile.sftp === null) {
    const reason = profile ? "Not sent: the group's EDI profile no longer delivers over SFTP." : "Not sent: the group's EDI profile was deleted.";
    context.onFailure?.(attemptRecorder(deps, file.id, reason));
    throw new PermanentJobError(reason);
  }

  let remotePath: string;
  try {
    const target = sftpTargetOf(profile, encrypter);
    if (!target) throw new PermanentJobError('Not sent: the EDI profile has no SFTP settings.');
    ({ remotePath } = await uploadFile(target, file.file_name, verifiedContent(deps.files.decryptedChunks(file.id), file), deps.sftp));
  } catch (error) {
    const text = withoutAddresses(failureText(error), sftpSettingsOf(profile)?.host);
    context.onFailure?.(attemptRecorder(deps, file.id, text));
    if (isPermanent(error) && !(error instanceof PermanentJobError)) throw new PermanentJobError(text);
    // The job's last_error and the log are the operator's: they keep the error as it was.
    throw error;
  }

  const attempt = await db.transaction().execute(async (trx) => {
    const locked = await fileRepository.lockFileById(trx, file.id);
    if (!locked || !SENDABLE_STATUSES.includes(locked.status)) return undefined;
    await deps.changes.commit(trx, { events: await recordDelivered(trx, deps.clock, locked, remotePath) });
    return Number(locked.delivery_attempts) + 1;
  });
  if (attempt !== undefined) {
    deps.observer?.attempted({ channel: 'edi', succeeded: true, attempt, about: { ediFile: file.id, group: file.group_id }, reason: null, retryAt: null });
  }
}

/**
 * Records the failed attempt on the file: the file's lock first, then the job's (settle), the order a manual
 * retry takes them in (EdiFileService.retryDelivery).
 */
function attemptRecorder(deps: EdiJobDependencies, fileId: string, reason: string): FailureRecorder {
  return async (trx, settle) => {
    const locked = await fileRepository.lockFileById(trx, fileId);
    const { recorded, retryAt } = await settle();
    if (!recorded || !locked || !SENDABLE_STATUSES.includes(locked.status)) return;
    await deps.changes.commit(trx, { events: await recordDeliveryAttemptFailed(trx, locked, reason, retryAt) });
    // The reason is the file's delivery_error: the host and the step, never a secret or a resolved address.
    deps.observer?.attempted({
      channel: 'edi',
      succeeded: false,
      attempt: Number(locked.delivery_attempts) + 1,
      about: { ediFile: locked.id, group: locked.group_id },
      reason,
      retryAt,
    });
  };
}

/**
 * The queue failed a delivery job whose worker stopped during its last attempt (JobHandler.abandoned): the
 * file records it as a last attempt that failed (delivery_failed, with its event), unless it is no longer
 * sendable or another delivery of it is pending (a retry queued one, whose outcome the file will show).
 */
async function recordAbandonedDelivery(deps: EdiJobDependencies, trx: Transaction<Database>, job: JobRow): Promise<void> {
  const id = fileIdOf(job.payload);
  if (id === undefined) return;
  const file = await fileRepository.lockFileById(trx, id);
  if (!file || !SENDABLE_STATUSES.includes(file.status)) return;
  if ((await fileRepository.findPendingJobId(trx, DELIVER_EDI_FILE_JOB, JSON.stringify({ edi_file: file.id }))) !== undefined) return;
  await deps.changes.commit(trx, { events: await recordDeliveryAttemptFailed(trx, file, ABANDONED_DELIVERY_ERROR, null) });
}

function fileIdOf(payload: string): string | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    const id: unknown = value !== null && typeof value === 'object' ? (value as { edi_file?: unknown }).edi_file : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The stored text as it goes out, checked against the digest and size recorded when it was built. A mismatch
 * is thrown after the last chunk, before the upload is given its final name, so the carrier never sees it.
 */
async function* verifiedContent(chunks: AsyncIterable<string>, file: EdiFileRow): AsyncGenerator<string> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += Buffer.byteLength(chunk);
    yield chunk;
  }
  if (bytes !== Number(file.byte_count) || hash.digest('hex') !== file.content_sha256) {
    throw new StoredContentMismatch('Not sent: the stored content does not match the digest recorded when the file was built.');
  }
}

function isPermanent(error: unknown): boolean {
  if (error instanceof SftpDeliveryError) return !error.retryable;
  return error instanceof PermanentJobError || error instanceof StoredContentMismatch;
}

/** What the file's delivery_error says: the transport's own messages carry no secret; anything else only its kind. */
function failureText(error: unknown): string {
  if (error instanceof SftpDeliveryError || error instanceof PermanentJobError || error instanceof StoredContentMismatch) return error.message;
  return `Not sent: an internal error stopped the upload (${error instanceof Error ? error.name : typeof error}).`;
}
