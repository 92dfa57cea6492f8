import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { transitionChangesOfEdiFile } from '../benefit-changes/benefit-change.repository.ts';
import { MEMO_MAX_LENGTH } from '../benefit-changes/benefit-change.schemas.ts';
import { rollUpEnrollment } from '../benefit-changes/benefit-change.service.ts';
import { truncate } from '../../shared/text.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import {
  controlNumberDigits,
  describeMismatches,
  matchAcknowledgement,
  shown,
  type Mismatch,
  type SentEnvelope,
  type Verdict,
} from './acknowledgement-matching.ts';
import type { EdiUnmatchedAcknowledgementResponse } from './edi-acknowledgement.schemas.ts';
import type { EdiFileResponse } from './edi-file.schemas.ts';
import type { EdiFileService } from './edi-file.service.ts';
import * as acknowledgementRepository from './edi-acknowledgement.repository.ts';
import * as fileRepository from './edi-file.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { EdiFileRow, EdiProfileRow, EdiUnmatchedAcknowledgementRow, EdiUnmatchedKind } from './edi.table.ts';
import { AcknowledgementFormatError, readAcknowledgement, type Acknowledgement } from './x12-acknowledgement.ts';

/** What the file was sent with: its control numbers, and the ids and codes of its group's profile. */
function sentEnvelopeOf(file: EdiFileRow, profile: EdiProfileRow): SentEnvelope {
  return {
    senderQualifier: profile.interchange_sender_qualifier,
    senderId: profile.interchange_sender_id,
    receiverQualifier: profile.interchange_receiver_qualifier,
    receiverId: profile.interchange_receiver_id,
    applicationSenderCode: profile.application_sender_code,
    applicationReceiverCode: profile.application_receiver_code,
    interchangeControlNumber: Number(file.interchange_control_number),
    groupControlNumber: Number(file.group_control_number),
    transactionSetControlNumber: file.transaction_set_control_number,
  };
}

/** A remote file the pickup downloaded: where from, and what it is remembered by. */
export interface PickedUpFile {
  /** The carrier folder's key (edi-scheduler.ts folderKey, as a digest). */
  folderKey: string;
  name: string;
  /** -1 when the server did not say. */
  size: number;
  modifiedAt: number;
}

/** What the pickup did with one downloaded file: applied (some part named one of our files, or had already), else stored unmatched. */
export interface PickupOutcome {
  outcome: 'applied' | 'unmatched' | 'unreadable';
  /** Acknowledgements (999 groups, TA1s) of the file that were about one of our files. */
  applied: number;
}

/** Why one acknowledgement of a picked-up interchange is not applied, for its unmatched row. */
interface Unmatched {
  kind: EdiUnmatchedKind;
  controlNumber: string | null;
  fileId: string | null;
  reason: string;
  mismatches: Mismatch[];
}

export function toUnmatchedAcknowledgementResponse(row: EdiUnmatchedAcknowledgementRow): EdiUnmatchedAcknowledgementResponse {
  const party = (qualifier: string | null, id: string | null) => (qualifier === null || id === null ? null : { qualifier, id });
  return {
    id: row.id,
    object: 'edi_unmatched_acknowledgement',
    received_via: row.received_via,
    remote_file: row.remote_file,
    kind: row.kind,
    interchange_sender: party(row.sender_qualifier, row.sender_id),
    interchange_receiver: party(row.receiver_qualifier, row.receiver_id),
    interchange_control_number: row.interchange_control_number,
    control_number: row.control_number,
    edi_file: row.edi_file_id,
    reason: row.reason,
    mismatches: JSON.parse(row.mismatches) as Mismatch[],
    created_at: row.created_at,
  };
}

/**
 * Applies carriers' acknowledgements: a 999 that accepts the file completes its benefit changes (and their
 * enrollments roll up to synced); one that rejects it (or a TA1 that rejects the interchange) sends them back
 * to wait for a file, with the codes in their memo (enrollments and coverage stay as they are). Posted by an admin, or picked up over SFTP. Only an
 * acknowledgement that matches the file in every element applies (acknowledgement-matching.ts); a picked-up
 * one that matches none of ours is stored unmatched, with why.
 */
export class EdiAcknowledgements {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  readonly #files: Pick<EdiFileService, 'getFile'>;

  /** `files` answers with the file acknowledged. */
  constructor(options: { db: Kysely<Database>; clock: Clock; changes: ChangeCommit; files: Pick<EdiFileService, 'getFile'> }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#changes = options.changes;
    this.#files = options.files;
  }

  async acknowledge(scope: Scope, fileId: string, content: string): Promise<EdiFileResponse> {
    const acknowledgement = this.#read(content);
    await this.#db.transaction().execute(async (trx) => {
      const file = await fileRepository.lockFile(trx, scope, fileId);
      if (!file) throw new NotFound('EDI file');
      // Control numbers start at 1 for every trading partner: the envelope must be this file's, swapped.
      const profile = await profileRepository.findProfile(trx, file.group_id);
      if (!profile) throw new InvalidState("The file's group has no EDI profile: there is no envelope to check the acknowledgement against.");
      const match = matchAcknowledgement(acknowledgement, sentEnvelopeOf(file, profile));
      if (match.kind === 'unrelated') {
        const named = [
          ...acknowledgement.groupAcknowledgements.map((group) => `functional group ${shown(group.groupControlNumber)} (AK102)`),
          ...acknowledgement.interchangeAcknowledgements.map((ta1) => `interchange ${shown(ta1.interchangeControlNumber)} (TA101)`),
        ];
        throw new InvalidState(
          `This acknowledgement is not about this file: it names no functional group ${file.group_control_number} (999 AK102, digits only) nor interchange ${file.interchange_control_number} (TA1 TA101); it names ${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''}.`,
        );
      }
      if (match.kind === 'mismatched') {
        throw new InvalidState(`This acknowledgement names this file's control number but is not for this file: ${describeMismatches(match.mismatches)}.`);
      }
      await this.#changes.commit(trx, { events: await this.#applyIn(trx, file, match.verdict) });
    });
    return this.#files.getFile(scope, fileId);
  }

  /**
   * Picked up from a carrier's outbound folder (the scheduler): each 999 group and TA1 of the interchange is
   * held against the provider's files from that carrier it names, and applied to the one it matches in every
   * element; the others are stored unmatched. The file is remembered as read in the same transaction.
   */
  async acknowledgePickedUp(providerId: string, content: string, picked: PickedUpFile): Promise<PickupOutcome> {
    let acknowledgement: Acknowledgement;
    try {
      acknowledgement = readAcknowledgement(content);
    } catch (error) {
      if (!(error instanceof AcknowledgementFormatError)) throw error;
      await this.#db.transaction().execute(async (trx) => {
        await this.#storeUnmatched(trx, providerId, picked, undefined, {
          kind: 'unreadable',
          controlNumber: null,
          fileId: null,
          reason: error.message,
          mismatches: [],
        });
        await this.#remember(trx, providerId, picked, 'unreadable');
      });
      return { outcome: 'unreadable', applied: 0 };
    }
    return this.#db.transaction().execute(async (trx) => {
      const parts: Acknowledgement[] = [
        ...acknowledgement.groupAcknowledgements.map((group) => ({ ...acknowledgement, groupAcknowledgements: [group], interchangeAcknowledgements: [] })),
        ...acknowledgement.interchangeAcknowledgements.map((ta1) => ({ ...acknowledgement, groupAcknowledgements: [], interchangeAcknowledgements: [ta1] })),
      ];
      if (parts.length > MAX_ACKNOWLEDGEMENTS_PER_FILE) {
        const reason = `The interchange holds ${parts.length} acknowledgements; at most ${MAX_ACKNOWLEDGEMENTS_PER_FILE} are read from one file.`;
        await this.#storeUnmatched(trx, providerId, picked, acknowledgement, { kind: 'unreadable', controlNumber: null, fileId: null, reason, mismatches: [] });
        await this.#remember(trx, providerId, picked, 'unreadable');
        return { outcome: 'unreadable', applied: 0 };
      }
      let applied = 0;
      const events: NewEvent[] = [];
      for (const part of parts) {
        const unmatched = await this.#applyPart(trx, providerId, part, events);
        if (unmatched) await this.#storeUnmatched(trx, providerId, picked, part, unmatched);
        else applied += 1;
      }
      await this.#remember(trx, providerId, picked, applied > 0 ? 'applied' : 'unmatched');
      await this.#changes.commit(trx, { events });
      return { outcome: applied > 0 ? 'applied' : 'unmatched', applied };
    });
  }

  async listUnmatched(scope: Scope, page: PageRequest): Promise<Page<EdiUnmatchedAcknowledgementResponse & { created_at: string; id: string }>> {
    return mapPage(await acknowledgementRepository.listUnmatchedAcknowledgements(this.#db, scope, page), toUnmatchedAcknowledgementResponse);
  }

  /**
   * One 999 group or TA1 (`part` holds just it): applied to the file it matches (or already applied), its
   * events added to `events`; else why not.
   */
  async #applyPart(trx: Transaction<Database>, providerId: string, part: Acknowledgement, events: NewEvent[]): Promise<Unmatched | undefined> {
    const group = part.groupAcknowledgements[0];
    const ta1 = part.interchangeAcknowledgements[0];
    const kind = group ? '999' : 'TA1';
    const sentAs = group ? group.groupControlNumber : (ta1?.interchangeControlNumber ?? '');
    const element = group ? 'AK102' : 'TA101';
    const digits = controlNumberDigits(sentAs);
    if (digits === undefined) {
      const mismatches = [{ element, expected: group ? '1 to 9 digits' : '9 digits', found: shown(sentAs) }];
      return { kind, controlNumber: shown(sentAs), fileId: null, reason: `${describeMismatches(mismatches)}: it names no control number.`, mismatches };
    }
    const carrier = { qualifier: part.interchange.senderQualifier, id: part.interchange.senderId };
    const ids = await acknowledgementRepository.findFileIdsByControlNumber(
      trx,
      providerId,
      group ? { group: Number(digits) } : { interchange: Number(digits) },
      carrier,
    );
    let first: { fileId: string; mismatches: Mismatch[] } | undefined;
    for (const id of ids) {
      const candidate = await fileRepository.findFileById(trx, id);
      const profile = candidate && (await profileRepository.findProfile(trx, candidate.group_id));
      if (!candidate || !profile) continue;
      const match = matchAcknowledgement(part, sentEnvelopeOf(candidate, profile));
      if (match.kind === 'matched') {
        const file = await fileRepository.lockFileById(trx, id);
        if (!file) continue;
        if (file.status === 'delivered') events.push(...(await this.#applyIn(trx, file, match.verdict)));
        else if (!ACKNOWLEDGED.has(file.status)) {
          const mismatches = [{ element: 'file status', expected: 'delivered', found: file.status }];
          return { kind, controlNumber: shown(sentAs), fileId: file.id, reason: `The file it is for is ${file.status}, not delivered.`, mismatches };
        }
        return undefined;
      }
      if (match.kind === 'mismatched') first ??= { fileId: id, mismatches: match.mismatches };
    }
    if (first)
      return {
        kind,
        controlNumber: shown(sentAs),
        fileId: first.fileId,
        reason: `Not for file ${first.fileId}: ${describeMismatches(first.mismatches)}.`,
        mismatches: first.mismatches,
      };
    return {
      kind,
      controlNumber: shown(sentAs),
      fileId: null,
      reason: `No file of ours sent to ${shown(carrier.qualifier)}/${shown(carrier.id)} (ISA05/ISA06) has ${group ? 'functional group' : 'interchange'} control number ${digits} (${element}).`,
      mismatches: [],
    };
  }

  async #storeUnmatched(
    trx: Transaction<Database>,
    providerId: string,
    picked: PickedUpFile,
    part: Acknowledgement | undefined,
    unmatched: Unmatched,
  ): Promise<void> {
    const envelope = part?.interchange;
    await acknowledgementRepository.insertUnmatchedAcknowledgement(trx, {
      id: newId('edi_acknowledgement'),
      provider_id: providerId,
      received_via: 'sftp_pickup',
      remote_file: picked.name,
      kind: unmatched.kind,
      sender_qualifier: envelope ? envelope.senderQualifier : null,
      sender_id: envelope ? envelope.senderId : null,
      receiver_qualifier: envelope ? envelope.receiverQualifier : null,
      receiver_id: envelope ? envelope.receiverId : null,
      interchange_control_number: envelope ? envelope.controlNumber : null,
      control_number: unmatched.controlNumber,
      edi_file_id: unmatched.fileId,
      reason: unmatched.reason,
      mismatches: JSON.stringify(unmatched.mismatches),
      created_at: this.#clock.now().toISOString(),
    });
  }

  async #remember(trx: Transaction<Database>, providerId: string, picked: PickedUpFile, outcome: 'applied' | 'unmatched' | 'unreadable'): Promise<void> {
    await acknowledgementRepository.rememberSeenFile(trx, {
      folder_key: picked.folderKey,
      name: picked.name,
      size: picked.size,
      modified_at: picked.modifiedAt,
      provider_id: providerId,
      outcome,
      seen_at: this.#clock.now().toISOString(),
    });
  }

  #read(content: string): Acknowledgement {
    try {
      return readAcknowledgement(content);
    } catch (error) {
      if (error instanceof AcknowledgementFormatError) throw validationFailed(['content'], error.message);
      throw error;
    }
  }

  /**
   * Records the verdict on the locked file and settles its benefit changes (a TA1 that accepts changes nothing
   * but the record). Returns the events, for the caller to commit.
   */
  async #applyIn(trx: Transaction<Database>, file: EdiFileRow, verdict: Verdict): Promise<NewEvent[]> {
    if (file.status !== 'delivered') {
      throw new InvalidState(
        file.status === 'accepted' || file.status === 'accepted_with_errors' || file.status === 'rejected'
          ? `The file was already acknowledged (${file.status}).`
          : `The file is ${file.status}: only a delivered file can be acknowledged.`,
      );
    }
    const now = this.#clock.now().toISOString();
    const record = { kind: verdict.kind, result: verdict.result ?? 'accepted', codes: verdict.codes, received_at: now };
    if (verdict.result === undefined) {
      await fileRepository.updateFile(trx, { ...file, acknowledgement: JSON.stringify(record) });
      return [];
    }
    const updated: EdiFileRow = { ...file, status: verdict.result, acknowledgement: JSON.stringify(record), acknowledged_at: now };
    await fileRepository.updateFile(trx, updated);
    if (verdict.result === 'rejected') return [...(await this.#returnChanges(trx, file, verdict, now)), eventOf('edi_file', 'rejected', updated)];
    const memo = `Accepted by the carrier's ${verdict.kind} for file ${file.id} (ISA13 ${file.interchange_control_number}): ${verdict.codes.join(' ')}`;
    const settled = await transitionChangesOfEdiFile(trx, file.id, 'file_accept', now, { completed_at: now, memo });
    const byEnrollment = Map.groupBy(settled, (change) => change.enrollment_id);
    const events: NewEvent[] = [];
    for (const enrollmentId of [...byEnrollment.keys()].sort()) {
      const changes = byEnrollment.get(enrollmentId)!.map((change) => eventOf('benefit_change', 'completed', change));
      events.push(...(await rollUpEnrollment(trx, enrollmentId, changes)));
    }
    return [...events, eventOf('edi_file', verdict.result, updated)];
  }

  /**
   * A 999 or TA1 rejected the file: that is about the file's syntax or envelope (005010X231A1; TA1 of the ISA),
   * not the carrier refusing anyone, so coverage and enrollments stay as they are, and the file's changes go
   * back to wait for a file (file_return; the carrier ledger no longer counts them as told), each with a
   * `returned` event and the codes in its memo. The next change file, or a resend of this one, carries them.
   */
  async #returnChanges(trx: Transaction<Database>, file: EdiFileRow, verdict: Verdict, now: string): Promise<NewEvent[]> {
    const memo = `Sent back: the carrier's ${verdict.kind} rejected file ${file.id} (ISA13 ${file.interchange_control_number}): ${verdict.codes.join(' ')}. The next change file (or POST /edi_files/${file.id}/resend) carries it again.`;
    const returned = await transitionChangesOfEdiFile(trx, file.id, 'file_return', now, { completed_at: null, memo: truncate(memo, MEMO_MAX_LENGTH) });
    await fileRepository.markFileChangesReturned(trx, file.id, now);
    return returned.map((change) => eventOf('benefit_change', 'returned', change));
  }
}

/** One picked-up file is one transaction: a carrier's batch of 999s is far smaller than this. */
const MAX_ACKNOWLEDGEMENTS_PER_FILE = 1_000;

/** A file an acknowledgement has settled: a second one that matches it is taken as already applied. */
const ACKNOWLEDGED: ReadonlySet<string> = new Set(['accepted', 'accepted_with_errors', 'rejected']);
