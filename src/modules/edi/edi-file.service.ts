import { hkdfSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { NewJob } from '../../jobs/job-queue.ts';
import { bringJobForward } from '../../jobs/job.repository.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { lockGroupById } from '../groups/group.repository.ts';
import type { GroupRow } from '../groups/group.table.ts';
import { SENDABLE_STATUSES, recordDelivered } from './edi-file-state.ts';
import { LeftOutReports, NothingWrittenError, listLeftOut, nothingWritten, type LeftOutEntry } from './edi-left-out.ts';
import type { CreateEdiFileBody, EdiFileResponse, EdiLeftOutResponse } from './edi-file.schemas.ts';
import * as fileRepository from './edi-file.repository.ts';
import { EdiFileBuilder } from './edi-file-builder.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { EdiFileAction, EdiFileKind, EdiFileRow, EdiFileStatus, EdiProfileRow } from './edi.table.ts';

/** The durable job that uploads one file over SFTP; payload `{ edi_file }`. */
export const DELIVER_EDI_FILE_JOB = 'edi.deliver_file';

export function toEdiFileResponse(row: EdiFileRow, benefitChanges: readonly string[]): EdiFileResponse {
  return {
    id: row.id,
    group: row.group_id,
    employer: row.employer_id,
    kind: row.kind,
    action: row.action,
    status: row.status,
    as_of: row.as_of,
    interchange_control_number: Number(row.interchange_control_number),
    group_control_number: Number(row.group_control_number),
    transaction_set_control_number: row.transaction_set_control_number,
    usage_indicator: row.usage_indicator,
    member_count: Number(row.member_count),
    segment_count: Number(row.segment_count),
    byte_count: Number(row.byte_count),
    file_name: row.file_name,
    content_sha256: row.content_sha256,
    benefit_changes: [...benefitChanges],
    missing: row.missing === null ? null : (JSON.parse(row.missing) as EdiFileResponse['missing']),
    left_out: JSON.parse(row.left_out) as LeftOutEntry[],
    unmapped: JSON.parse(row.unmapped) as EdiFileResponse['unmapped'],
    delivery_method: row.delivery_method,
    delivery_attempts: Number(row.delivery_attempts),
    delivery_error: row.delivery_error,
    next_delivery_attempt_at: row.next_delivery_attempt_at,
    remote_path: row.remote_path,
    acknowledgement: row.acknowledgement === null ? null : (JSON.parse(row.acknowledgement) as EdiFileResponse['acknowledgement']),
    created_at: row.created_at,
    confirmed_at: row.confirmed_at,
    delivered_at: row.delivered_at,
    acknowledged_at: row.acknowledged_at,
    replaces: row.replaces_file_id,
  };
}

/**
 * Builds X12 834 files (edi-file-builder.ts writes each) from a group's benefit changes (change files) or coverage (full files), stores them
 * encrypted, and moves them through confirmation and delivery. Lock order: the group row, then the trading
 * partner's control numbers, then benefit changes (as approvals take them: change rows before enrollments).
 */
export class EdiFileService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #builder: EdiFileBuilder;
  readonly #changes: ChangeCommit;

  /** `encrypter` encrypts the stored files; `encryptionKey` is the service key it uses, from which the demographics digests' key is derived. */
  constructor(options: { db: Kysely<Database>; clock: Clock; encrypter: Encrypter; encryptionKey: Buffer; changes: ChangeCommit }) {
    const { clock, encrypter } = options;
    this.#db = options.db;
    this.#clock = clock;
    this.#encrypter = encrypter;
    // A key of its own for the demographics digests, derived from the service key (never the key itself).
    const digestKey = Buffer.from(hkdfSync('sha256', options.encryptionKey, Buffer.alloc(0), 'benefits edi demographics digest', 32)).toString('hex');
    this.#changes = options.changes;
    this.#builder = new EdiFileBuilder(clock, encrypter, digestKey);
  }

  async getFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    const row = await fileRepository.findFile(this.#db, scope, id);
    if (!row) throw new NotFound('EDI file');
    return toEdiFileResponse(row, await fileRepository.listFileChangeIds(this.#db, row.id));
  }

  async listFiles(
    scope: Scope,
    filter: { group?: string | undefined; kind?: EdiFileKind | undefined; status?: EdiFileStatus | undefined },
    page: PageRequest,
  ): Promise<Page<EdiFileResponse>> {
    const rows = await fileRepository.listFiles(this.#db, scope, { groupId: filter.group, kind: filter.kind, status: filter.status }, page);
    const changes = await fileRepository.listChangeIdsOfFiles(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return mapPage(rows, (row) => toEdiFileResponse(row, changes.get(row.id) ?? []));
  }

  /** Members the group's builds leave out, as reported (each member and reason once), newest first. */
  async listLeftOut(scope: Scope, filter: { group?: string | undefined; member?: string | undefined }, page: PageRequest): Promise<Page<EdiLeftOutResponse>> {
    const rows = await listLeftOut(this.#db, scope, { groupId: filter.group, memberId: filter.member }, page);
    return mapPage(rows, (row) => ({
      id: row.id,
      group: row.group_id,
      employer: row.employer_id,
      member: row.member_id,
      reason: row.reason,
      edi_file: row.edi_file_id,
      created_at: row.created_at,
    }));
  }

  /** The file's X12 text, decrypted chunk by chunk as it is sent (admin keys only; the route checks). */
  async content(scope: Scope, id: string): Promise<{ fileName: string; byteCount: number; chunks: AsyncIterable<string> }> {
    const row = await fileRepository.findFile(this.#db, scope, id);
    if (!row) throw new NotFound('EDI file');
    return { fileName: row.file_name, byteCount: Number(row.byte_count), chunks: this.decryptedChunks(row.id) };
  }

  async *decryptedChunks(fileId: string): AsyncGenerator<string> {
    for await (const chunk of fileRepository.readChunks(this.#db, fileId)) yield this.#encrypter.decrypt(chunk);
  }

  /**
   * Builds a file now: a change file of every benefit change of the group not yet in a file (and of
   * demographic changes of people the carrier holds), or a full file of everyone covered on `as_of`. One
   * transaction: the group is locked, so two builds of one group run one after the other and each change goes
   * in exactly one file.
   */
  async createFile(scope: Scope, input: CreateEdiFileBody): Promise<EdiFileResponse> {
    if (input.kind === 'change' && input.action !== undefined) throw new InvalidState('action is for full files only (replace or verify).');
    const built = await this.#db
      .transaction()
      .execute(async (trx) => {
        // Every build of a group's files (and every change to its profile) takes the group's lock first.
        const group = await lockGroupById(trx, scope, input.group);
        // The group is a field of the body (as every create names what it refers to): 400, like POST /plans.
        if (!group) throw validationFailed(['group'], 'No such group.');
        const profile = await this.#profileOf(trx, group);
        const asOf = input.as_of ?? toDateString(this.#clock.now());
        const action: EdiFileAction = input.kind === 'change' ? 'change' : (input.action ?? 'replace');
        // Nothing to send is answered after the commit: the build's alerts (lines without a code) stand.
        return this.#build(trx, group, profile, input.kind, action, asOf);
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof NothingWrittenError)) throw error;
        await this.#reportNothingWritten(scope, input.group, error);
        throw nothingWritten(error.leftOut);
      });
    if (!built) throw new InvalidState('Nothing to send: the group has no benefit change waiting for a file and no demographic change.');
    return this.getFile(scope, built.id);
  }

  /**
   * The scheduler's build of a group's change file for `day` (no scope: it runs for every provider). The day
   * is claimed in the build's own transaction (claimScheduledDay), so exactly one process builds it, and a
   * build that fails leaves the day unclaimed for the next check. `claimed: false` when another process has
   * it; `file` undefined when there was nothing to send (or the group's profile or connection changed).
   */
  async buildScheduledChangeFile(
    scheduled: Pick<EdiProfileRow, 'group_id' | 'provider_id'>,
    day: string,
  ): Promise<{ claimed: boolean; file: EdiFileRow | undefined }> {
    const scope = { providerId: scheduled.provider_id, employerId: null };
    return this.#db
      .transaction()
      .execute(async (trx) => {
        const group = await lockGroupById(trx, scope, scheduled.group_id);
        if (!group || !(await profileRepository.claimScheduledDay(trx, group.id, day))) return { claimed: false, file: undefined };
        if (group.connection_method !== 'edi') return { claimed: true, file: undefined };
        // The profile as it is now, under the group's lock: it may have changed since the scheduler listed it.
        const profile = await profileRepository.findProfile(trx, group.id);
        if (!profile) return { claimed: true, file: undefined };
        return { claimed: true, file: await this.#build(trx, group, profile, 'change', 'change', toDateString(this.#clock.now())) };
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof NothingWrittenError)) throw error;
        // Everyone waiting is left out: reported once, and the day is done (the next day's build tries again).
        return { claimed: await this.#reportNothingWritten(scope, scheduled.group_id, error, day), file: undefined };
      });
  }

  /** A full file that leaves people out goes to the carrier only once an admin confirms it. */
  async confirmFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (file.status !== 'awaiting_confirmation') throw new InvalidState(`The file is ${file.status}: only a file awaiting confirmation can be confirmed.`);
      const now = this.#clock.now().toISOString();
      const sftp = file.delivery_method === 'sftp';
      const updated: EdiFileRow = { ...file, status: 'ready', confirmed_at: now, next_delivery_attempt_at: sftp ? now : null };
      await fileRepository.updateFile(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('edi_file', 'confirmed', updated)], jobs: sftp ? [deliveryJob(updated.id)] : [] });
    });
    return this.getFile(scope, id);
  }

  async cancelFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (file.status !== 'awaiting_confirmation') throw new InvalidState(`The file is ${file.status}: only a file awaiting confirmation can be cancelled.`);
      const updated: EdiFileRow = { ...file, status: 'cancelled' };
      await fileRepository.updateFile(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('edi_file', 'cancelled', updated)] });
    });
    return this.getFile(scope, id);
  }

  /**
   * Sends the stored file again over SFTP (never rebuilt: the same bytes, the same control numbers), or, for
   * download delivery, records that someone took it to the carrier's portal.
   */
  async deliverFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (file.status === 'rejected')
        throw new InvalidState(
          `The carrier rejected this file (its ${file.kind === 'change' ? 'changes were sent back' : 'content'}): it is not sent again as it is; POST /edi_files/${file.id}/resend builds a new file${file.kind === 'change' ? ' of its changes' : ''}.`,
        );
      if (!SENDABLE_STATUSES.includes(file.status)) throw new InvalidState(`The file is ${file.status}: it cannot be delivered.`);
      // The group's delivery as it is now: a profile switched to download since the build lets a person take it.
      const method = (await profileRepository.findProfile(trx, file.group_id))?.delivery_method ?? file.delivery_method;
      if (method === 'sftp') {
        // One upload at a time: a delivery already queued or running sends these same bytes.
        if (await fileRepository.hasPendingJob(trx, DELIVER_EDI_FILE_JOB, JSON.stringify({ edi_file: file.id }))) return;
        await fileRepository.updateFile(trx, { ...file, next_delivery_attempt_at: this.#clock.now().toISOString() });
        await this.#changes.commit(trx, { jobs: [deliveryJob(file.id)] });
        return;
      }
      if (file.status === 'ready' || file.status === 'delivery_failed')
        await this.#changes.commit(trx, { events: await recordDelivered(trx, this.#clock, file, null) });
    });
    return this.getFile(scope, id);
  }

  /**
   * Tries the file's SFTP delivery now: a `ready` file's queued attempt is brought forward (one running finishes
   * first, and a failure it ends with retries at once), and a `delivery_failed` file gets a new delivery job.
   * The file row is locked first, so two retries at once make one job. Other statuses are 409 (`deliver`
   * sends a file the carrier already has again), as is a group whose profile does not deliver over SFTP.
   */
  async retryDelivery(scope: Scope, id: string): Promise<EdiFileResponse> {
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (file.status !== 'ready' && file.status !== 'delivery_failed')
        throw new InvalidState(
          `The file is ${file.status}: only a ready or delivery_failed file's delivery can be retried (${file.status === 'rejected' ? `POST /edi_files/${file.id}/resend builds a new file of a rejected file's changes` : 'deliver sends a delivered file again'}).`,
        );
      const profile = await profileRepository.findProfile(trx, file.group_id);
      if (profile?.delivery_method !== 'sftp')
        throw new InvalidState("The group's EDI profile does not deliver over SFTP: nothing to retry (deliver records a file taken to the carrier's portal).");
      const now = this.#clock.now();
      // The file's lock, then the job's: the order a failed attempt is recorded in (edi-delivery.job.ts).
      const pending = await fileRepository.findPendingJobId(trx, DELIVER_EDI_FILE_JOB, JSON.stringify({ edi_file: file.id }));
      const broughtForward = pending !== undefined && (await bringJobForward(trx, pending, now));
      await fileRepository.updateFile(trx, { ...file, next_delivery_attempt_at: now.toISOString() });
      await this.#changes.commit(trx, { jobs: broughtForward ? [] : [deliveryJob(file.id)] });
    });
    return this.getFile(scope, id);
  }

  /**
   * Builds a new change file now of a rejected file's changes that its rejection sent back and that still wait
   * for a file (docs/decisions.md "Carrier EDI", Resend): the build path of createFile (the group's lock, new
   * control numbers, left-out reports, delivery queued over SFTP), restricted to those changes, the new file
   * naming the one it replaces. Only a rejected change file is resent (409 otherwise: deliver and retry upload
   * a file as it is); 409 too when none of its changes is left to send (carried by a later file, completed or
   * refused since).
   */
  async resendFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    const built = await this.#db
      .transaction()
      .execute(async (trx) => {
        const file = await fileRepository.findFile(trx, scope, id);
        if (!file) throw new NotFound('EDI file');
        if (file.status !== 'rejected')
          throw new InvalidState(
            `The file is ${file.status}: only a file the carrier rejected is resent as a new file (deliver or retry uploads a file again as it is).`,
          );
        if (file.kind !== 'change')
          throw new InvalidState('A full file carries no benefit changes to resend: build a new full file (POST /edi_files with kind full).');
        // The group's lock first, as every build takes it: a resend and a change build run one after the other.
        const group = await lockGroupById(trx, scope, file.group_id);
        if (!group) throw new NotFound('EDI file');
        const profile = await this.#profileOf(trx, group);
        if ((await fileRepository.countChangesToResend(trx, file.id)) === 0)
          throw new InvalidState(
            'Nothing to resend: every benefit change of the file has been carried by a later file, completed or refused since it was rejected.',
          );
        const result = await this.#build(trx, group, profile, 'change', 'change', toDateString(this.#clock.now()), file.id);
        if (!result)
          throw new InvalidState(
            "Nothing to resend: the file's changes waiting are of lines the profile has no 834 code for (line_of_coverage_codes) or their members are gone.",
          );
        return result;
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof NothingWrittenError)) throw error;
        const file = await fileRepository.findFile(this.#db, scope, id);
        if (file) await this.#reportNothingWritten(scope, file.group_id, error);
        throw nothingWritten(error.leftOut);
      });
    return this.getFile(scope, built.id);
  }

  /**
   * After a change build that wrote no one rolled back: records its left-out members (edi-left-out.ts) in a
   * transaction of their own, under the group's lock, and for a scheduled build claims the day. Returns whether
   * the day was claimed (true when no day is given).
   */
  async #reportNothingWritten(scope: Scope, groupId: string, nothing: NothingWrittenError, day?: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const group = await lockGroupById(trx, scope, groupId);
      if (!group) return false;
      if (day !== undefined && !(await profileRepository.claimScheduledDay(trx, group.id, day))) return false;
      const reports = await LeftOutReports.load(trx, group.id);
      const { events, alerts } = await reports.record(trx, this.#clock, group, nothing.leftOut, [], null);
      await this.#changes.commit(trx, { events, alerts: [...nothing.alerts, ...alerts] });
      return true;
    });
  }

  async #profileOf(trx: Transaction<Database>, group: GroupRow): Promise<EdiProfileRow> {
    if (group.connection_method !== 'edi')
      throw new InvalidState(`The group's connection_method is ${group.connection_method}: files are built for edi groups.`);
    const profile = await profileRepository.findProfile(trx, group.id);
    if (!profile) throw new InvalidState('The group has no EDI profile: PUT /groups/{id}/edi_profile first.');
    return profile;
  }

  /**
   * Builds a file in the build's transaction and commits it: its events and, for a ready file delivered over
   * SFTP, its delivery (due now).
   */
  async #build(
    trx: Transaction<Database>,
    group: GroupRow,
    profile: EdiProfileRow,
    kind: EdiFileKind,
    action: EdiFileAction,
    asOf: string,
    replaces?: string,
  ): Promise<EdiFileRow | undefined> {
    const { file, events, alerts } = await this.#builder.build(trx, group, profile, kind, action, asOf, replaces);
    await this.#changes.commit(trx, { events, alerts, jobs: file?.status === 'ready' && file.delivery_method === 'sftp' ? [deliveryJob(file.id)] : [] });
    return file;
  }
}

/** The job that uploads the file (DELIVER_EDI_FILE_JOB). */
function deliveryJob(fileId: string): NewJob {
  return { kind: DELIVER_EDI_FILE_JOB, payload: { edi_file: fileId } };
}
