import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { rollUpEnrollment } from '../benefit-changes/benefit-change.service.ts';
import { eventOf } from '../events/event-data.ts';
import type { EventLog } from '../events/event-log.ts';
import type { EdiFileResponse } from './edi-file.schemas.ts';
import type { EdiFileService } from './edi-file.service.ts';
import * as repository from './edi.repository.ts';
import type { EdiFileRow } from './edi.table.ts';
import { AcknowledgementFormatError, readAcknowledgement, type Acknowledgement } from './x12-acknowledgement.ts';

type Result = 'accepted' | 'accepted_with_errors' | 'rejected';

/** What an acknowledgement says of one file: its result and the codes behind it, or nothing (not this file's). */
interface Verdict {
  kind: '999' | 'TA1';
  /** undefined: a TA1 that accepts the envelope only (the 999 tells about the content). */
  result: Result | undefined;
  codes: string[];
}

/**
 * The result of a 999's group (AK901) for our one transaction set: A accepted, E accepted with errors, P
 * (partially accepted) as the set's IK501 says, M/R/W/X rejected (005010X231A1 AK901 715, IK501 717).
 */
function verdictOf999(acknowledgement: Acknowledgement, file: EdiFileRow): Verdict | undefined {
  const group = acknowledgement.groupAcknowledgements.find((candidate) => Number(candidate.groupControlNumber) === Number(file.group_control_number));
  if (!group) return undefined;
  const set = group.transactionSets.find((candidate) => Number(candidate.controlNumber) === Number(file.transaction_set_control_number));
  const codes = [
    `AK9:${group.result}`,
    ...group.errors.map((error) => `AK9:${error.code}`),
    ...(set
      ? [
          `IK5:${set.result}`,
          ...set.errors.map((error) => `IK5:${error.code}`),
          ...set.segmentErrors.flatMap((segment) => [
            ...(segment.error ? [`IK3:${segment.segmentId}@${segment.position}:${segment.error.code}`] : []),
            ...segment.elementErrors.map((element) => `IK4:${segment.segmentId}${String(element.position).padStart(2, '0')}:${element.error.code}`),
          ]),
        ]
      : []),
  ];
  const setResult = set?.result;
  const effective = group.result === 'P' ? (setResult ?? 'R') : group.result;
  const result: Result = effective === 'A' ? 'accepted' : effective === 'E' ? 'accepted_with_errors' : 'rejected';
  return { kind: '999', result, codes };
}

/** TA104 (X12.5 I17): R rejects the whole interchange; A and E accept the envelope and leave the content to the 999. */
function verdictOfTa1(acknowledgement: Acknowledgement, file: EdiFileRow): Verdict | undefined {
  const ta1 = acknowledgement.interchangeAcknowledgements.find(
    (candidate) => Number(candidate.interchangeControlNumber) === Number(file.interchange_control_number),
  );
  if (!ta1) return undefined;
  return { kind: 'TA1', result: ta1.result === 'R' ? 'rejected' : undefined, codes: [`TA1:${ta1.result}`, `TA105:${ta1.note.code}`] };
}

/**
 * Applies carriers' acknowledgements: a 999 that accepts the file completes its benefit changes (and their
 * enrollments roll up to synced); one that rejects it (or a TA1 that rejects the interchange) rejects them,
 * with the codes in their memo (their enrollments fail). Posted by an admin, or picked up over SFTP.
 */
export class EdiAcknowledgements {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #events: EventLog;
  readonly #files: EdiFileService;

  constructor(db: Kysely<Database>, clock: Clock, events: EventLog, files: EdiFileService) {
    this.#db = db;
    this.#clock = clock;
    this.#events = events;
    this.#files = files;
  }

  async acknowledge(scope: Scope, fileId: string, content: string): Promise<EdiFileResponse> {
    const acknowledgement = this.#read(content);
    await this.#db.transaction().execute(async (trx) => {
      const file = await repository.lockFile(trx, scope, fileId);
      if (!file) throw new NotFound('EDI file');
      // Control numbers start at 1 for every trading partner: the envelope must come from this file's carrier.
      const profile = await repository.findProfile(trx, file.group_id);
      const sender = acknowledgement.interchange;
      if (profile && (sender.senderQualifier !== profile.interchange_receiver_qualifier || sender.senderId !== profile.interchange_receiver_id)) {
        throw new InvalidState(
          `This acknowledgement comes from ${sender.senderQualifier}/${sender.senderId} (ISA05/ISA06), not from the file's carrier ${profile.interchange_receiver_qualifier}/${profile.interchange_receiver_id}.`,
        );
      }
      const verdict = verdictOf999(acknowledgement, file) ?? verdictOfTa1(acknowledgement, file);
      if (!verdict) {
        throw new InvalidState(
          `This acknowledgement is not about this file: it names no functional group ${file.group_control_number} (999 AK102) nor interchange ${file.interchange_control_number} (TA1 TA101).`,
        );
      }
      await this.applyIn(trx, file, verdict);
    });
    return this.#files.getFile(scope, fileId);
  }

  /**
   * Picked up from the carrier's outbound folder (the scheduler): the file the acknowledgement names among
   * the provider's files for that receiver; false when it names none (left for a person to look at).
   */
  async acknowledgePickedUp(providerId: string, content: string): Promise<boolean> {
    const acknowledgement = this.#read(content);
    const partner = { receiverQualifier: acknowledgement.interchange.senderQualifier, receiverId: acknowledgement.interchange.senderId };
    return this.#db.transaction().execute(async (trx) => {
      const candidates = [
        ...acknowledgement.groupAcknowledgements.map((group) => ({ group: Number(group.groupControlNumber) })),
        ...acknowledgement.interchangeAcknowledgements.map((ta1) => ({ interchange: Number(ta1.interchangeControlNumber) })),
      ];
      for (const filter of candidates) {
        const found = await repository.findFileByControlNumber(trx, providerId, filter, partner);
        if (!found) continue;
        const file = await repository.lockFileById(trx, found.id);
        const verdict = file && (verdictOf999(acknowledgement, file) ?? verdictOfTa1(acknowledgement, file));
        if (!file || !verdict) continue;
        if (file.status !== 'delivered') return true;
        await this.applyIn(trx, file, verdict);
        return true;
      }
      return false;
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

  /** Records the verdict on the locked file and settles its benefit changes (a TA1 that accepts changes nothing but the record). */
  async applyIn(trx: Transaction<Database>, file: EdiFileRow, verdict: Verdict): Promise<void> {
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
      await repository.updateFile(trx, { ...file, acknowledgement: JSON.stringify(record) });
      return;
    }
    const updated: EdiFileRow = { ...file, status: verdict.result, acknowledgement: JSON.stringify(record), acknowledged_at: now };
    await repository.updateFile(trx, updated);
    const rejected = verdict.result === 'rejected';
    const memo = `${rejected ? 'Rejected' : 'Accepted'} by the carrier's ${verdict.kind} for file ${file.id} (ISA13 ${file.interchange_control_number}): ${verdict.codes.join(' ')}`;
    const settled = await repository.settleFileChanges(trx, file.id, {
      delivery_state: rejected ? 'rejected' : 'completed',
      completed_at: rejected ? null : now,
      memo,
    });
    const byEnrollment = Map.groupBy(settled, (change) => change.enrollment_id);
    for (const enrollmentId of [...byEnrollment.keys()].sort()) {
      await rollUpEnrollment(
        trx,
        this.#events,
        enrollmentId,
        byEnrollment.get(enrollmentId)!.map((change) => eventOf('benefit_change', rejected ? 'rejected' : 'completed', change)),
      );
    }
    await this.#events.record(trx, eventOf('edi_file', verdict.result, updated));
  }
}
