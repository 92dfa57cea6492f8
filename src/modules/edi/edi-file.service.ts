import { createHash, hkdfSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import { InFlight } from '../../db/in-flight.ts';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import { bringJobForward } from '../../jobs/job.repository.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { EventLog } from '../events/event-log.ts';
import { lockGroupById } from '../groups/group.repository.ts';
import type { GroupRow } from '../groups/group.table.ts';
import {
  addBenefitChange,
  addCoverageInForce,
  addDemographicChange,
  demographicsDigest,
  insuranceLineCodeOf,
  restoresEndedCoverage,
  subscriberParts,
  toSubscriber834,
  type CoverageContext,
  type MemberFacts,
  type SubscriberParts,
} from './edi-loops.ts';
import { SENDABLE_STATUSES, recordDelivered } from './edi-file-state.ts';
import { LeftOutReports, NothingWrittenError, listLeftOut, nothingWritten, type LeftOutEntry } from './edi-left-out.ts';
import { companionGuideOf, tradingPartnerKey, type CompanionGuide } from './edi-profile.ts';
import type { CreateEdiFileBody, EdiFileResponse, EdiLeftOutResponse } from './edi-file.schemas.ts';
import * as contentRepository from './edi-file-content.repository.ts';
import * as fileRepository from './edi-file.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { CoverageItem } from './edi-file-content.repository.ts';
import type { EdiFileAction, EdiFileKind, EdiFileRow, EdiFileStatus, EdiProfileRow } from './edi.table.ts';
import { X12ValueError, write834, type Envelope834, type Subscriber834 } from './x12-834.ts';

/** The durable job that uploads one file over SFTP; payload `{ edi_file }`. */
export const DELIVER_EDI_FILE_JOB = 'edi.deliver_file';

/** Most benefit changes one change file carries; the rest go in the next file. */
export const MAX_CHANGES_PER_FILE = 50_000;

/** How far before the group's last file the event log is read for demographic changes (see #demographicCandidates). */
const DEMOGRAPHICS_MARGIN_MS = 60 * 60 * 1000;

/** Coverage rows (about a member each) read, written and let go at a time while a full file is built. */
const FULL_FILE_PAGE_ROWS = 2_000;

/** A member's loops and, for a full file, each person and line it lists. */
type FileParts = SubscriberParts & { people: { person_id: string; member_id: string; line_of_coverage: string }[] };

/** People's demographics digests stored per statement while a file is built, and such writes sent ahead of their answers. */
const DIGESTS_PER_WRITE = 2_000;
const DIGEST_WRITES_IN_FLIGHT = 2;

/** A page of a full file: its members' parts in member order, and the last member id it covers. */
interface FullPage {
  parts: Map<string, FileParts>;
  last: string;
}

/** Plain text per stored chunk before encryption (the file is stored and read in pieces of this size). */
const CHUNK_CHARACTERS = 32 * 1024;

/** Chunk writes sent ahead of their answers while a file is built (InFlight): at most this many chunks held. */
const CHUNK_WRITES_IN_FLIGHT = 4;

interface MissingPerson {
  member: string;
  person: string;
  line_of_coverage: string;
}

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
  };
}

/** The file name carriers see: sender, receiver, kind and interchange control number (unique per partner). */
function fileNameOf(profile: EdiProfileRow, kind: EdiFileKind, interchange: number): string {
  const safe = (text: string) => text.trim().replace(/[^A-Za-z0-9]+/g, '');
  return `834_${safe(profile.interchange_sender_id)}_${safe(profile.interchange_receiver_id)}_${kind}_${String(interchange).padStart(9, '0')}.x12`;
}

/**
 * Builds X12 834 files from a group's benefit changes (change files) or coverage (full files), stores them
 * encrypted, and moves them through confirmation and delivery. Lock order: the group row, then the trading
 * partner's control numbers, then benefit changes (as approvals take them: change rows before enrollments).
 */
export class EdiFileService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #digestKey: string;
  readonly #events: EventLog;
  readonly #jobs: { wake(): void } | undefined;

  constructor(db: Kysely<Database>, clock: Clock, encrypter: Encrypter, encryptionKey: Buffer, events: EventLog, jobs?: { wake(): void }) {
    this.#db = db;
    this.#clock = clock;
    this.#encrypter = encrypter;
    // A key of its own for the demographics digests, derived from the service key (never the key itself).
    this.#digestKey = Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'benefits edi demographics digest', 32)).toString('hex');
    this.#events = events;
    this.#jobs = jobs;
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
        const result = await this.#build(trx, group, profile, input.kind, action, asOf);
        if (!result) throw new InvalidState('Nothing to send: the group has no benefit change waiting for a file and no demographic change.');
        return result;
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof NothingWrittenError)) throw error;
        await this.#reportNothingWritten(scope, input.group, error.leftOut);
        throw nothingWritten(error.leftOut);
      });
    if (built.status === 'ready' && built.delivery_method === 'sftp') this.#jobs?.wake();
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
    const built = await this.#db
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
        return { claimed: await this.#reportNothingWritten(scope, scheduled.group_id, error.leftOut, day), file: undefined };
      });
    if (built.file?.delivery_method === 'sftp') this.#jobs?.wake();
    return built;
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
      if (sftp) await this.#enqueueDelivery(trx, updated.id);
      await this.#events.record(trx, eventOf('edi_file', 'confirmed', updated));
    });
    this.#jobs?.wake();
    return this.getFile(scope, id);
  }

  async cancelFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (file.status !== 'awaiting_confirmation') throw new InvalidState(`The file is ${file.status}: only a file awaiting confirmation can be cancelled.`);
      const updated: EdiFileRow = { ...file, status: 'cancelled' };
      await fileRepository.updateFile(trx, updated);
      await this.#events.record(trx, eventOf('edi_file', 'cancelled', updated));
    });
    return this.getFile(scope, id);
  }

  /**
   * Sends the stored file again over SFTP (never rebuilt: the same bytes, the same control numbers), or, for
   * download delivery, records that someone took it to the carrier's portal.
   */
  async deliverFile(scope: Scope, id: string): Promise<EdiFileResponse> {
    const queued = await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, id);
      if (!file) throw new NotFound('EDI file');
      if (!SENDABLE_STATUSES.includes(file.status)) throw new InvalidState(`The file is ${file.status}: it cannot be delivered.`);
      // The group's delivery as it is now: a profile switched to download since the build lets a person take it.
      const method = (await profileRepository.findProfile(trx, file.group_id))?.delivery_method ?? file.delivery_method;
      if (method === 'sftp') {
        // One upload at a time: a delivery already queued or running sends these same bytes.
        if (!(await fileRepository.hasPendingJob(trx, DELIVER_EDI_FILE_JOB, JSON.stringify({ edi_file: file.id })))) {
          await this.#enqueueDelivery(trx, file.id);
          await fileRepository.updateFile(trx, { ...file, next_delivery_attempt_at: this.#clock.now().toISOString() });
        }
        return true;
      }
      if (file.status === 'ready' || file.status === 'delivery_failed') await recordDelivered(trx, this.#clock, this.#events, file, null);
      return false;
    });
    if (queued) this.#jobs?.wake();
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
          `The file is ${file.status}: only a ready or delivery_failed file's delivery can be retried (deliver sends a delivered file again).`,
        );
      const profile = await profileRepository.findProfile(trx, file.group_id);
      if (profile?.delivery_method !== 'sftp')
        throw new InvalidState("The group's EDI profile does not deliver over SFTP: nothing to retry (deliver records a file taken to the carrier's portal).");
      const now = this.#clock.now();
      // The file's lock, then the job's: the order a failed attempt is recorded in (edi-delivery.job.ts).
      const pending = await fileRepository.findPendingJobId(trx, DELIVER_EDI_FILE_JOB, JSON.stringify({ edi_file: file.id }));
      if (pending === undefined || !(await bringJobForward(trx, pending, now))) await this.#enqueueDelivery(trx, file.id);
      await fileRepository.updateFile(trx, { ...file, next_delivery_attempt_at: now.toISOString() });
    });
    this.#jobs?.wake();
    return this.getFile(scope, id);
  }

  /**
   * After a change build that wrote no one rolled back: records its left-out members (edi-left-out.ts) in a
   * transaction of their own, under the group's lock, and for a scheduled build claims the day. Returns whether
   * the day was claimed (true when no day is given).
   */
  async #reportNothingWritten(scope: Scope, groupId: string, leftOut: ReadonlyMap<string, string>, day?: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const group = await lockGroupById(trx, scope, groupId);
      if (!group) return false;
      if (day !== undefined && !(await profileRepository.claimScheduledDay(trx, group.id, day))) return false;
      const reports = await LeftOutReports.load(trx, group.id);
      await reports.record(trx, { clock: this.#clock, events: this.#events }, group, leftOut, [], null);
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

  async #enqueueDelivery(trx: Transaction<Database>, fileId: string): Promise<void> {
    await enqueueJob(trx, this.#clock, { kind: DELIVER_EDI_FILE_JOB, payload: { edi_file: fileId } });
  }

  async #build(
    trx: Transaction<Database>,
    group: GroupRow,
    profile: EdiProfileRow,
    kind: EdiFileKind,
    action: EdiFileAction,
    asOf: string,
  ): Promise<EdiFileRow | undefined> {
    const guide = companionGuideOf(profile);
    const content = kind === 'change' ? await this.#changeContent(trx, group, guide, asOf) : await this.#fullContent(trx, group, guide, asOf);
    if (Array.isArray(content.parts) && content.parts.length === 0) return undefined;
    // Handed out in this transaction, after the group's lock: numbers increase in the order files are stored,
    // and a build that fails stores nothing (no file ever carried its number).
    const numbers = await profileRepository.nextControlNumbers(trx, profile.provider_id, tradingPartnerKey(profile));
    const now = this.#clock.now();
    const id = newId('edi_file');
    const envelope: Envelope834 = {
      sender: { qualifier: profile.interchange_sender_qualifier as Envelope834['sender']['qualifier'], id: profile.interchange_sender_id },
      receiver: { qualifier: profile.interchange_receiver_qualifier as Envelope834['receiver']['qualifier'], id: profile.interchange_receiver_id },
      interchangeControlNumber: numbers.interchange,
      acknowledgementRequested: true,
      usage: profile.usage_indicator === 'P' ? 'production' : 'test',
      createdAt: now,
      applicationSenderCode: profile.application_sender_code,
      applicationReceiverCode: profile.application_receiver_code,
      groupControlNumber: numbers.group,
      transactionSetControlNumber: 1,
      referenceId: id,
      action,
      masterPolicyNumber: profile.master_policy_number ?? group.group_number,
      ...(kind === 'full' ? { fileEffectiveDate: asOf } : {}),
      sponsor: { name: profile.sponsor_name, fein: profile.sponsor_tax_id },
      payer: { name: profile.payer_name, idQualifier: profile.payer_id_qualifier as Envelope834['payer']['idQualifier'], id: profile.payer_id },
    };
    const row: EdiFileRow = {
      id,
      provider_id: group.provider_id,
      employer_id: group.employer_id,
      group_id: group.id,
      kind,
      action,
      status: kind === 'full' ? 'awaiting_confirmation' : 'ready',
      as_of: asOf,
      interchange_control_number: numbers.interchange,
      group_control_number: numbers.group,
      transaction_set_control_number: '0001',
      usage_indicator: profile.usage_indicator,
      member_count: 0,
      segment_count: 0,
      byte_count: 0,
      benefit_change_count: 0,
      file_name: fileNameOf(profile, kind, numbers.interchange),
      content_sha256: '',
      missing: null,
      left_out: '[]',
      delivery_method: profile.delivery_method,
      delivery_attempts: 0,
      delivery_error: null,
      // The delivery job enqueued below is due now.
      next_delivery_attempt_at: kind === 'change' && profile.delivery_method === 'sftp' ? now.toISOString() : null,
      remote_path: null,
      acknowledgement: null,
      created_at: now.toISOString(),
      confirmed_at: null,
      delivered_at: null,
      acknowledged_at: null,
    };
    await fileRepository.insertFile(trx, row);
    // What earlier builds reported left out: a member written now is cleared (edi-left-out.ts).
    const reports = await LeftOutReports.load(trx, group.id);
    const cleared: string[] = [];
    // One pass: each member's loops are written as they are made; one the file cannot carry (no subscriber
    // id, a value X12 cannot hold) is left out with the reason, and everyone else's file goes on. A member's
    // fate is known once the writer asks for the next one.
    const leftOut = new Map<string, string>();
    const written = { members: 0, changeIds: [] as string[], people: [] as FileParts['people'], digests: new Map<string, string>() };
    // The digests of people written are stored as the file goes (DIGESTS_PER_WRITE at a time, sent ahead of their
    // answers), so that on PostgreSQL the server stores them while the rest of the file is written.
    const digestWrites = new InFlight(DIGEST_WRITES_IN_FLIGHT);
    const saveDigests = async () => {
      const digests = written.digests;
      written.digests = new Map();
      await digestWrites.add(contentRepository.saveSentDigests(trx, group.id, id, digests, content.known));
    };
    const settle = async (part: FileParts) => {
      if (leftOut.has(part.member.row.id)) return;
      if (reports.has(part.member.row.id)) cleared.push(part.member.row.id);
      written.members += 1;
      written.changeIds.push(...(content.changesOf.get(part.member.row.id) ?? []));
      written.people.push(...part.people);
      this.#addDigests(written.digests, part);
      if (written.digests.size >= DIGESTS_PER_WRITE) await saveDigests();
    };
    // Dependents' SSNs are decrypted only while their loops are written, and only when the carrier wants them.
    const dependentSsn = (row: DependentRow) => (row.ssn_encrypted === null ? null : this.#encrypter.decrypt(row.ssn_encrypted));
    let current: FileParts | undefined;
    async function* subscribers(): AsyncGenerator<Subscriber834> {
      for await (const part of content.parts) {
        if (current) await settle(current);
        current = part;
        const subscriber = toSubscriber834(part, guide, asOf, kind, dependentSsn);
        if (subscriber) yield subscriber;
        else leftOut.set(part.member.row.id, `No subscriber id: the profile's REF*0F source (${guide.subscriber_id_source}) is not set for this member.`);
      }
      if (current) await settle(current);
    }
    let text: AsyncIterable<string>;
    try {
      text = write834(envelope, subscribers(), {
        onInvalidSubscriber: (_subscriber, error) => leftOut.set(current!.member.row.id, `${error.element}: ${error.reason}`),
      });
    } catch (error) {
      if (error instanceof X12ValueError) throw new InvalidState(`The group's EDI profile cannot be written in an 834: ${error.element} ${error.reason}.`);
      throw error;
    }
    const stats = await digestWrites.around(async () => {
      const stored = await this.#store(trx, id, text);
      await saveDigests();
      return stored;
    });
    // Rolled back (no file, no control numbers used); the caller reports the members left out (#reportNothingWritten).
    if (written.members === 0 && kind === 'change') throw new NothingWrittenError(leftOut);
    const newlyLeftOut = await reports.record(trx, { clock: this.#clock, events: this.#events }, group, leftOut, cleared, id);
    const stored: EdiFileRow = {
      ...row,
      ...stats,
      member_count: written.members,
      benefit_change_count: written.changeIds.length,
      // A change file lists who is newly left out; a full file, awaiting an admin's confirmation, everyone it leaves out.
      left_out: JSON.stringify(kind === 'full' ? [...leftOut].map(([member, reason]): LeftOutEntry => ({ member, reason })) : newlyLeftOut),
    };
    if (kind === 'full') {
      const previous = action === 'replace' ? await fileRepository.findLastAcceptedFullFile(trx, group.id) : undefined;
      await fileRepository.insertFilePeople(trx, id, written.people);
      stored.missing = JSON.stringify(previous ? await this.#missingSince(trx, previous, written.people) : []);
    }
    await fileRepository.updateFile(trx, stored);
    await fileRepository.insertFileChanges(trx, id, written.changeIds);
    await this.#events.record(trx, eventOf('edi_file', 'created', stored));
    if (stored.status === 'ready' && stored.delivery_method === 'sftp') await this.#enqueueDelivery(trx, id);
    return stored;
  }

  /** Writes the file's chunks (encrypted) as the writer produces them; its size, segments and digest. */
  async #store(
    trx: Transaction<Database>,
    fileId: string,
    text: AsyncIterable<string>,
  ): Promise<Pick<EdiFileRow, 'segment_count' | 'byte_count' | 'content_sha256'>> {
    const hash = createHash('sha256');
    let pending = '';
    let position = 0;
    let bytes = 0;
    let segments = 0;
    const writes = new InFlight(CHUNK_WRITES_IN_FLIGHT);
    const flush = async (all: boolean) => {
      const pieces: string[] = [];
      while (pending.length >= CHUNK_CHARACTERS || (all && pending.length > 0)) {
        pieces.push(this.#encrypter.encrypt(pending.slice(0, CHUNK_CHARACTERS)));
        pending = pending.slice(CHUNK_CHARACTERS);
      }
      await writes.add(fileRepository.insertChunks(trx, fileId, pieces, position));
      position += pieces.length;
    };
    await writes.around(async () => {
      for await (const chunk of text) {
        hash.update(chunk);
        bytes += Buffer.byteLength(chunk);
        // The segment terminator never occurs inside an element (the writer refuses it).
        for (let index = chunk.indexOf('~'); index !== -1; index = chunk.indexOf('~', index + 1)) segments += 1;
        pending += chunk;
        if (pending.length >= CHUNK_CHARACTERS) await flush(false);
      }
      await flush(true);
    });
    return { segment_count: segments, byte_count: bytes, content_sha256: hash.digest('hex') };
  }

  async #missingSince(
    trx: Transaction<Database>,
    previous: EdiFileRow,
    people: readonly { person_id: string; member_id: string; line_of_coverage: string }[],
  ): Promise<MissingPerson[]> {
    const now = new Set(people.map((person) => `${person.person_id}|${person.line_of_coverage}`));
    return (await fileRepository.listFilePeople(trx, previous.id))
      .filter((person) => !now.has(`${person.person_id}|${person.line_of_coverage}`))
      .map((person) => ({ member: person.member_id, person: person.person_id, line_of_coverage: person.line_of_coverage }))
      .sort((a, b) => a.member.localeCompare(b.member) || a.person.localeCompare(b.person) || a.line_of_coverage.localeCompare(b.line_of_coverage));
  }

  /** The facts of members, their SSNs decrypted for this build only. */
  async #memberFacts(trx: Transaction<Database>, providerId: string, ids: readonly string[]): Promise<Map<string, MemberFacts>> {
    const rows = await contentRepository.findMembers(trx, providerId, ids);
    return new Map([...rows].map(([id, row]) => [id, { row, ssn: row.ssn_encrypted === null ? null : this.#encrypter.decrypt(row.ssn_encrypted) }]));
  }

  /** The demographics digests of a member's people in the file, as the carrier now holds them. */
  #addDigests(digests: Map<string, string>, part: SubscriberParts): void {
    digests.set(part.member.row.id, demographicsDigest(this.#digestKey, { kind: 'member', facts: part.member }));
    for (const { row } of part.dependents.values()) digests.set(row.id, demographicsDigest(this.#digestKey, { kind: 'dependent', row }));
  }

  async #changeContent(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string) {
    const pending = await contentRepository.listUnsentChanges(trx, group.provider_id, group.id, MAX_CHANGES_PER_FILE);
    const itemIds = pending.flatMap((change) => [change.previous_enrollment_plan_id, change.next_enrollment_plan_id].filter((id): id is string => id !== null));
    const items = new Map((await contentRepository.findCoverageItems(trx, itemIds)).map((item) => [item.id, item]));
    // Lines the guide has no HD03 code for (and the profile maps to none) cannot go in an 834: they wait.
    const sendable = pending.filter((change) => insuranceLineCodeOf(guide, change.line_of_coverage) !== undefined);
    const reinstated = await this.#reinstatements(trx, group.id, sendable);

    // Who the carrier holds (covered in the group on as_of) and whose demographics changed since last sent.
    const { inForce, sentDigests } = await this.#demographicCandidates(trx, group, asOf);
    const memberIds = [...new Set([...sendable.map((change) => change.member_id), ...inForce.map((item) => item.member_id)])];
    // Everything these members hold with the group, to tell a line ending from the person leaving the carrier.
    const held = Map.groupBy(await contentRepository.findCoverageOfGroupOfMembers(trx, group.provider_id, group.id, memberIds), (item) => item.member_id);
    const heldIds = [...held.values()].flat().map((item) => item.id);
    const coveredDependents = await contentRepository.findCoveredDependents(trx, [...new Set([...itemIds, ...inForce.map((item) => item.id), ...heldIds])]);
    const members = await this.#memberFacts(trx, group.provider_id, memberIds);
    const dependents = await contentRepository.findDependents(trx, group.provider_id, [...coveredDependents.values()].flat());
    const context: CoverageContext = {
      ...this.#context(guide, coveredDependents, dependents),
      coveredInGroup: (personId, memberId, date, except) =>
        (held.get(memberId) ?? []).some(
          (item) =>
            item.id !== except &&
            item.effective_start !== null &&
            compareDates(item.effective_start, date) <= 0 &&
            (item.effective_end === null || compareDates(item.effective_end, date) >= 0) &&
            (personId === memberId || (coveredDependents.get(item.id) ?? []).includes(personId)),
        ),
    };

    const parts = new Map<string, SubscriberParts>();
    const partOf = (memberId: string) => {
      const existing = parts.get(memberId);
      if (existing) return existing;
      const facts = members.get(memberId);
      if (!facts) return undefined;
      const created = subscriberParts(facts);
      parts.set(memberId, created);
      return created;
    };
    const changesOf = new Map<string, string[]>();
    for (const change of sendable) {
      const part = partOf(change.member_id);
      if (!part) continue;
      const previous = change.previous_enrollment_plan_id ? items.get(change.previous_enrollment_plan_id) : undefined;
      const next = change.next_enrollment_plan_id ? items.get(change.next_enrollment_plan_id) : undefined;
      addBenefitChange(part, change, previous, next, context, reinstated.has(change.id));
      changesOf.set(change.member_id, [...(changesOf.get(change.member_id) ?? []), change.id]);
    }
    // Each person once, however many lines cover them.
    const compared = new Set<string>();
    const changed = (personId: string, digest: () => string) => {
      if (compared.has(personId)) return false;
      compared.add(personId);
      const sent = sentDigests.get(personId);
      return sent !== undefined && sent !== digest();
    };
    for (const item of inForce) {
      const facts = members.get(item.member_id);
      if (!facts) continue;
      if (changed(item.member_id, () => demographicsDigest(this.#digestKey, { kind: 'member', facts })))
        addDemographicChange(partOf(item.member_id)!, undefined);
      for (const dependentId of coveredDependents.get(item.id) ?? []) {
        const row = dependents.get(dependentId);
        if (row && changed(dependentId, () => demographicsDigest(this.#digestKey, { kind: 'dependent', row })))
          addDemographicChange(partOf(item.member_id)!, row);
      }
    }
    return { parts: [...parts.values()].map((part): FileParts => ({ ...part, people: [] })), changesOf, known: sentDigests };
  }

  /**
   * The people whose demographics may have changed since the group's last file, with their coverage in the
   * group and what was last sent about them. The event log records every update of a member or dependent in
   * the transaction that makes it, so those updated since the last file (less an hour, for processes' clocks
   * and late commits; more is harmless, the digests decide) are the candidates; everyone the group covers when
   * retention has deleted the last file's own event (the log may no longer reach back that far), and no one
   * before the group's first file.
   */
  async #demographicCandidates(
    trx: Transaction<Database>,
    group: GroupRow,
    asOf: string,
  ): Promise<{ inForce: CoverageItem[]; sentDigests: Map<string, string> }> {
    const lastFile = await fileRepository.findLastFile(trx, group.id);
    if (lastFile === undefined) return { inForce: [], sentDigests: new Map() };
    const since = new Date(Date.parse(lastFile.created_at) - DEMOGRAPHICS_MARGIN_MS).toISOString();
    if (!(await fileRepository.hasFileCreatedEvent(trx, lastFile))) {
      return {
        inForce: await contentRepository.findCoverageOfGroupOn(trx, group.provider_id, group.id, asOf),
        sentDigests: await contentRepository.findSentDigests(trx, group.id),
      };
    }
    const updated = await contentRepository.findUpdatedPeople(trx, group.provider_id, since);
    if (updated.members.length === 0 && updated.dependents.length === 0) return { inForce: [], sentDigests: new Map() };
    const dependentRows = await contentRepository.findDependents(trx, group.provider_id, updated.dependents);
    const memberIds = [...updated.members, ...[...dependentRows.values()].map((row) => row.member_id)];
    const inForce = await contentRepository.findCoverageOfGroupOnFor(trx, group.provider_id, group.id, asOf, memberIds);
    const coveredDependents = await contentRepository.findCoveredDependents(
      trx,
      inForce.map((item) => item.id),
    );
    const people = [...new Set(inForce.map((item) => item.member_id)), ...[...coveredDependents.values()].flat()];
    return { inForce, sentDigests: await contentRepository.findSentDigests(trx, group.id, people) };
  }

  /**
   * Everyone covered on `asOf`, a page of members at a time (FULL_FILE_PAGE), so that a full file of 50,000
   * members is never all in memory: each page's loops are written before the next page is read.
   */
  async #fullContent(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string) {
    // What the carrier was last sent about everyone: only what differs is stored again.
    const known = await contentRepository.findSentDigests(trx, group.id);
    return { parts: this.#fullParts(trx, group, guide, asOf), changesOf: new Map<string, string[]>(), known };
  }

  async *#fullParts(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string): AsyncGenerator<FileParts> {
    // The next page is read while this one is written (on PostgreSQL the server answers meanwhile); it is
    // waited for before the generator ends, however it ends, so no read outlives the transaction.
    let next: Promise<FullPage | undefined> | undefined = this.#fullPage(trx, group, guide, asOf, '');
    next.catch(() => undefined);
    try {
      for (;;) {
        const page: FullPage | undefined = await next;
        next = undefined;
        if (!page) return;
        next = this.#fullPage(trx, group, guide, asOf, page.last);
        next.catch(() => undefined);
        yield* page.parts.values();
        // A turn of the event loop between pages: the rest of the process (and the garbage collector's tasks,
        // which run there) is not held up for the whole file.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await next?.catch(() => undefined);
    }
  }

  /** The members covered on `asOf` after the member id `after`, a page of them, with everything their loops need. */
  async #fullPage(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string, after: string): Promise<FullPage | undefined> {
    // The next rows of coverage in member order; the last member's rows may go on past the limit, so that
    // member waits for the next page (unless it is the only one: then all its rows are read).
    let inForce = await contentRepository.findCoverageOfGroupPage(trx, group.provider_id, group.id, asOf, after, FULL_FILE_PAGE_ROWS);
    if (inForce.length === 0) return undefined;
    if (inForce.length === FULL_FILE_PAGE_ROWS) {
      const lastMember = inForce.at(-1)!.member_id;
      const complete = inForce.filter((item) => item.member_id !== lastMember);
      inForce =
        complete.length > 0
          ? complete
          : await contentRepository.findCoverageOfGroupOn(trx, group.provider_id, group.id, asOf, { first: lastMember, last: lastMember });
    }
    // A range of ids, not a list: a page costs range scans of indexes, not thousands of parameters.
    const range = { first: inForce[0]!.member_id, last: inForce.at(-1)!.member_id };
    const page = [...new Set(inForce.map((item) => item.member_id))];
    // One coverage per member and line: the latest-starting (the query orders them so); lines the
    // profile cannot code are not in 834 files.
    const latest: CoverageItem[] = [];
    const seen = new Set<string>();
    for (const item of inForce) {
      const key = `${item.member_id}|${item.line_of_coverage}`;
      if (seen.has(key) || insuranceLineCodeOf(guide, item.line_of_coverage) === undefined) continue;
      seen.add(key);
      latest.push(item);
    }
    const coveredDependents = await contentRepository.findCoveredDependentsInRange(trx, range);
    const inPage = new Set(page);
    const members = new Map(
      (await contentRepository.findMembersInRange(trx, group.provider_id, range))
        .filter((row) => inPage.has(row.id))
        .map((row) => [row.id, { row, ssn: row.ssn_encrypted === null ? null : this.#encrypter.decrypt(row.ssn_encrypted) }]),
    );
    const dependents = new Map((await contentRepository.findDependentsInRange(trx, group.provider_id, range)).map((row) => [row.id, row]));
    const context = this.#context(guide, coveredDependents, dependents);
    const parts = new Map<string, FileParts>();
    for (const item of latest) {
      const facts = members.get(item.member_id);
      if (!facts) continue;
      const part = parts.get(item.member_id) ?? { ...subscriberParts(facts), people: [] };
      parts.set(item.member_id, part);
      addCoverageInForce(part, item, context);
      part.people.push({ person_id: item.member_id, member_id: item.member_id, line_of_coverage: item.line_of_coverage });
      for (const dependentId of coveredDependents.get(item.id) ?? []) {
        part.people.push({ person_id: dependentId, member_id: item.member_id, line_of_coverage: item.line_of_coverage });
      }
    }
    return { parts, last: range.last };
  }

  #context(guide: CompanionGuide, coveredDependents: ReadonlyMap<string, readonly string[]>, dependents: ReadonlyMap<string, DependentRow>): CoverageContext {
    return {
      guide,
      dependentsOf: (enrolledPlanId) => coveredDependents.get(enrolledPlanId) ?? [],
      dependentRow: (id) => dependents.get(id),
    };
  }

  /**
   * Changes that restore coverage this group's carrier was last told had ended, without a gap: a `new`
   * coverage, or a `change` giving back the end a termination took (undoing it), when the last change of the
   * member and line the group's files carried is a `removed` whose last day is at most the day before the
   * restored coverage's start. They go as reinstatements (INS03/HD01 025), not as additions or changes.
   */
  async #reinstatements(trx: Transaction<Database>, groupId: string, changes: readonly BenefitChangeRow[]): Promise<Set<string>> {
    // Only a member and line the group's files ended can be reinstated: ask the files about the others only.
    const candidates = changes.filter((change) => change.status === 'new' || change.status === 'change');
    if (candidates.length === 0) return new Set();
    const lastSent = await contentRepository.findLastSentChanges(
      trx,
      groupId,
      candidates.map((change) => change.member_id),
    );
    const reinstated = new Set<string>();
    for (const change of candidates) {
      if (restoresEndedCoverage(change, lastSent.get(`${change.member_id}|${change.line_of_coverage}`))) reinstated.add(change.id);
    }
    return reinstated;
  }
}
