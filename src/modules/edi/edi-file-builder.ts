// Writes one 834: the envelope, each member's loops as they are read (a member the file cannot carry is left out
// with the reason), the encrypted chunks, and what the file carried (changes, people, digests, left-out reports).
import { createHash } from 'node:crypto';
import type { Transaction } from '../../db/database.ts';
import { InFlight } from '../../db/in-flight.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { InvalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewAlert } from '../alerts/alert.service.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { GroupRow } from '../groups/group.table.ts';
import { toSubscriber834, type SubscriberParts } from './edi-loops.ts';
import { demographicsDigest, sentNameOf, type SentName } from './edi-people.ts';
import { LeftOutReports, NothingWrittenError, type LeftOutEntry } from './edi-left-out.ts';
import { companionGuideOf, tradingPartnerKey } from './edi-profile.ts';
import * as contentRepository from './edi-file-content.repository.ts';
import * as fileRepository from './edi-file.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { EdiFileAction, EdiFileKind, EdiFileRow, EdiProfileRow } from './edi.table.ts';
import { write834 } from './x12-834.ts';
import type { Envelope834, Subscriber834 } from './x12-834-records.ts';
import { X12ValueError } from './x12-elements.ts';
import { EdiFileContent, type FileParts } from './edi-file-content.ts';

/** People's demographics digests stored per statement while a file is built, and such writes sent ahead of their answers. */
const DIGESTS_PER_WRITE = 2_000;
const DIGEST_WRITES_IN_FLIGHT = 2;

/** Plain text per stored chunk before encryption (the file is stored and read in pieces of this size). */
const CHUNK_CHARACTERS = 32 * 1024;

/** Chunk writes sent ahead of their answers while a file is built (InFlight): at most this many chunks held. */
const CHUNK_WRITES_IN_FLIGHT = 4;

interface MissingPerson {
  member: string;
  person: string;
  line_of_coverage: string;
}

/** The admin alert of a benefit change an 834 cannot carry (docs/decisions.md "Alerts"): once per change. */
function unmappedAlert(change: BenefitChangeRow): NewAlert {
  return {
    providerId: change.provider_id,
    employerId: change.employer_id,
    audience: 'admin',
    kind: 'edi_unmapped_line',
    relatedObjectType: 'benefit_change',
    relatedObjectId: change.id,
    memberId: change.member_id,
    message:
      `Benefit change ${change.id} (${change.line_of_coverage}) of group ${change.group_id} cannot go in an 834: the line has no HD03 code. ` +
      `Map it in the group's EDI profile (companion_guide.line_of_coverage_codes.${change.line_of_coverage}), or complete the change by hand (PATCH /benefit_changes/{id} with completed_at).`,
    payload: {
      benefit_change: change.id,
      group: change.group_id,
      member: change.member_id,
      enrollment: change.enrollment_id,
      line_of_coverage: change.line_of_coverage,
    },
    key: `edi_unmapped_line:${change.id}`,
  };
}

/** The file name carriers see: sender, receiver, kind and interchange control number (unique per partner). */
function fileNameOf(profile: EdiProfileRow, kind: EdiFileKind, interchange: number): string {
  const safe = (text: string) => text.trim().replace(/[^A-Za-z0-9]+/g, '');
  return `834_${safe(profile.interchange_sender_id)}_${safe(profile.interchange_receiver_id)}_${kind}_${String(interchange).padStart(9, '0')}.x12`;
}

/**
 * Builds one file in the caller's transaction, which holds the group's lock: takes the trading partner's next
 * control numbers, writes the file and stores it. The caller commits its events (edi_file.created, after the
 * left-out reports' own) and queues its delivery. `replaces` (a change file resent for a rejected one) carries
 * only that file's changes sent back.
 */
export class EdiFileBuilder {
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #digestKey: string;
  readonly #content: EdiFileContent;

  constructor(clock: Clock, encrypter: Encrypter, digestKey: string) {
    this.#clock = clock;
    this.#encrypter = encrypter;
    this.#digestKey = digestKey;
    this.#content = new EdiFileContent(encrypter, digestKey);
  }

  async build(
    trx: Transaction<Database>,
    group: GroupRow,
    profile: EdiProfileRow,
    kind: EdiFileKind,
    action: EdiFileAction,
    asOf: string,
    replaces?: string,
  ): Promise<{ file: EdiFileRow | undefined; events: NewEvent[]; alerts: NewAlert[] }> {
    const guide = companionGuideOf(profile);
    const content =
      kind === 'change' ? await this.#content.changeContent(trx, group, guide, asOf, replaces) : await this.#content.fullContent(trx, group, guide, asOf);
    // Changes whose line has no 834 code wait; each is alerted once (by its key), whether or not a file is written.
    const alerts = content.unmapped.map(unmappedAlert);
    if (Array.isArray(content.parts) && content.parts.length === 0) return { file: undefined, events: [], alerts };
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
      unmapped: JSON.stringify(content.unmapped.map((change) => ({ benefit_change: change.id, line_of_coverage: change.line_of_coverage }))),
      delivery_method: profile.delivery_method,
      delivery_attempts: 0,
      delivery_error: null,
      // The delivery job the caller enqueues with the file (EdiFileService) is due now.
      next_delivery_attempt_at: kind === 'change' && profile.delivery_method === 'sftp' ? now.toISOString() : null,
      remote_path: null,
      acknowledgement: null,
      created_at: now.toISOString(),
      confirmed_at: null,
      delivered_at: null,
      acknowledged_at: null,
      replaces_file_id: replaces ?? null,
    };
    await fileRepository.insertFile(trx, row);
    // What earlier builds reported left out: a member written now is cleared (edi-left-out.ts).
    const reports = await LeftOutReports.load(trx, group.id);
    const cleared: string[] = [];
    // One pass: each member's loops are written as they are made; one the file cannot carry (no subscriber
    // id, a value X12 cannot hold) is left out with the reason, and everyone else's file goes on. A member's
    // fate is known once the writer asks for the next one.
    const leftOut = new Map<string, string>();
    const written = {
      members: 0,
      changeIds: [] as string[],
      people: [] as FileParts['people'],
      digests: new Map<string, { digest: string; name: SentName }>(),
    };
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
    // Rolled back (no file, no control numbers used); the caller reports the members left out (EdiFileService's #reportNothingWritten).
    if (written.members === 0 && kind === 'change') throw new NothingWrittenError(leftOut, alerts);
    const reported = await reports.record(trx, this.#clock, group, leftOut, cleared, id);
    const stored: EdiFileRow = {
      ...row,
      ...stats,
      member_count: written.members,
      benefit_change_count: written.changeIds.length,
      // A change file lists who is newly left out; a full file, awaiting an admin's confirmation, everyone it leaves out.
      left_out: JSON.stringify(kind === 'full' ? [...leftOut].map(([member, reason]): LeftOutEntry => ({ member, reason })) : reported.entries),
    };
    if (kind === 'full') {
      const previous = action === 'replace' ? await fileRepository.findLastAcceptedFullFile(trx, group.id) : undefined;
      await fileRepository.insertFilePeople(trx, id, written.people);
      stored.missing = JSON.stringify(previous ? await this.#missingSince(trx, previous, written.people) : []);
    }
    await fileRepository.updateFile(trx, stored);
    await fileRepository.insertFileChanges(trx, id, written.changeIds);
    return { file: stored, events: [...reported.events, eventOf('edi_file', 'created', stored)], alerts: [...alerts, ...reported.alerts] };
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

  /** The demographics digests and names of a member's people in the file, as the carrier now holds them. */
  #addDigests(digests: Map<string, { digest: string; name: SentName }>, part: SubscriberParts): void {
    const member = { kind: 'member', facts: part.member } as const;
    digests.set(part.member.row.id, { digest: demographicsDigest(this.#digestKey, member), name: sentNameOf(member) });
    for (const { row } of part.dependents.values()) {
      const dependent = { kind: 'dependent', row } as const;
      digests.set(row.id, { digest: demographicsDigest(this.#digestKey, dependent), name: sentNameOf(dependent) });
    }
  }
}
