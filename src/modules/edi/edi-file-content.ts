// What a file carries, read from the database: the loops of a change file (benefit changes waiting for a file, and
// demographic changes of people the carrier holds) or, a page of members at a time, of a full file (everyone covered).
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { compareDates } from '../../shared/dates.ts';
import { ID_PREFIXES } from '../../shared/ids.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import * as groupCoverage from '../coverage/group-coverage.repository.ts';
import type { GroupCoverageItem } from '../coverage/group-coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { GroupRow } from '../groups/group.table.ts';
import { findMembersOnLeave } from '../members/employment-history.repository.ts';
import {
  addBenefitChange,
  addCoverageInForce,
  addDemographicChange,
  insuranceLineCodeOf,
  restoresEndedCoverage,
  subscriberParts,
  type CoverageContext,
  type SubscriberParts,
} from './edi-loops.ts';
import { demographicsDigest, priorNameOf, sentNameOf, type MemberFacts } from './edi-people.ts';
import type { CompanionGuide } from './edi-profile.ts';
import type { DemographicChange834 } from './x12-834-records.ts';
import * as contentRepository from './edi-file-content.repository.ts';
import * as fileRepository from './edi-file.repository.ts';
import { eventReasonsOf } from './x12-834-reasons.ts';

/** Most benefit changes one change file carries; the rest go in the next file. */
export const MAX_CHANGES_PER_FILE = 50_000;

/** How far before the group's last file the event log is read for demographic changes (see #demographicCandidates). */
const DEMOGRAPHICS_MARGIN_MS = 60 * 60 * 1000;

/** Coverage rows (about a member each) read, written and let go at a time while a full file is built. */
const FULL_FILE_PAGE_ROWS = 2_000;

/** A member's loops and, for a full file, each person and line it lists. */
export type FileParts = SubscriberParts & { people: { person_id: string; member_id: string; line_of_coverage: string }[] };

/** A page of a full file: its members' parts in member order, and the last member id it covers. */
interface FullPage {
  parts: Map<string, FileParts>;
  last: string;
}

/** Reads the facts a build writes: each member's loops, the benefit changes they carry and the digests last sent. */
export class EdiFileContent {
  readonly #encrypter: Encrypter;
  readonly #digestKey: string;

  constructor(encrypter: Encrypter, digestKey: string) {
    this.#encrypter = encrypter;
    this.#digestKey = digestKey;
  }

  /** The facts of members on `asOf`, their SSNs decrypted for this build only. */
  async #memberFacts(trx: Transaction<Database>, providerId: string, ids: readonly string[], asOf: string): Promise<Map<string, MemberFacts>> {
    const rows = await contentRepository.findMembers(trx, providerId, ids);
    const onLeave = await findMembersOnLeave(trx, [...rows.keys()], asOf);
    return new Map([...rows].map(([id, row]) => [id, this.#factsOf(row, onLeave.has(id))]));
  }

  #factsOf(row: MemberFacts['row'] & { ssn_encrypted: string | null }, onLeave: boolean): MemberFacts {
    return { row, ssn: row.ssn_encrypted === null ? null : this.#encrypter.decrypt(row.ssn_encrypted), onLeave };
  }

  /**
   * A change file's members' loops, the benefit changes each member's loops carry, and the digests the carrier
   * was last sent. `resending` (a rejected file's id) restricts it to that file's changes sent back, without
   * demographic maintenance.
   */
  async changeContent(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string, resending?: string) {
    const pending = await contentRepository.listUnsentChanges(trx, group.provider_id, group.id, MAX_CHANGES_PER_FILE, resending);
    const itemIds = pending.flatMap((change) => [change.previous_enrollment_plan_id, change.next_enrollment_plan_id].filter((id): id is string => id !== null));
    const items = new Map((await groupCoverage.findCoverageItems(trx, itemIds)).map((item) => [item.id, item]));
    // Lines the guide has no HD03 code for (and the profile maps to none) cannot go in an 834: they wait, and
    // the build names them (the file's `unmapped`, an admin alert once per change).
    const sendable = pending.filter((change) => insuranceLineCodeOf(guide, change.line_of_coverage) !== undefined);
    const unmapped = pending.filter((change) => insuranceLineCodeOf(guide, change.line_of_coverage) === undefined);
    const reinstated = await this.#reinstatements(trx, group.id, sendable);
    // The event behind each change (its enrollment's reason) gives INS04.
    const enrollments = await contentRepository.findEnrollmentReasons(
      trx,
      sendable.map((change) => change.enrollment_id),
    );

    // Who the carrier holds (covered in the group on as_of) and whose demographics changed since last sent.
    const { inForce, sentDigests } =
      resending === undefined
        ? await this.#demographicCandidates(trx, group, asOf)
        : { inForce: [], sentDigests: new Map<string, contentRepository.SentPerson>() };
    const memberIds = [...new Set([...sendable.map((change) => change.member_id), ...inForce.map((item) => item.member_id)])];
    // Everything these members hold with the group, to tell a line ending from the person leaving the carrier.
    const held = Map.groupBy(await groupCoverage.findCoverageOfGroupOfMembers(trx, group.provider_id, group.id, memberIds), (item) => item.member_id);
    const heldIds = [...held.values()].flat().map((item) => item.id);
    const coveredDependents = await groupCoverage.findCoveredDependentsOf(trx, [...new Set([...itemIds, ...inForce.map((item) => item.id), ...heldIds])]);
    const members = await this.#memberFacts(trx, group.provider_id, memberIds, asOf);
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
      const enrollment = enrollments.get(change.enrollment_id) ?? { category: 'qle' as const, reason: null };
      addBenefitChange(part, change, previous, next, context, { reasons: eventReasonsOf(enrollment), reinstated: reinstated.has(change.id) });
      changesOf.set(change.member_id, [...(changesOf.get(change.member_id) ?? []), change.id]);
    }
    // Each person once, however many lines cover them: a person the carrier holds whose digest differs from
    // the one last sent gets a demographic change (INS04 25, DTP*303 the file's date, 2100B when the name changed).
    const compared = new Set<string>();
    const changeOf = (personId: string, person: Parameters<typeof demographicsDigest>[1]): DemographicChange834 | undefined => {
      if (compared.has(personId)) return undefined;
      compared.add(personId);
      const sent = sentDigests.get(personId);
      if (sent === undefined || sent.digest === demographicsDigest(this.#digestKey, person)) return undefined;
      return { priorName: priorNameOf(sent.name, sentNameOf(person)), effective: asOf };
    };
    for (const item of inForce) {
      const facts = members.get(item.member_id);
      if (!facts) continue;
      const memberChange = changeOf(item.member_id, { kind: 'member', facts });
      if (memberChange) addDemographicChange(partOf(item.member_id)!, undefined, memberChange);
      for (const dependentId of coveredDependents.get(item.id) ?? []) {
        const row = dependents.get(dependentId);
        const dependentChange = row ? changeOf(dependentId, { kind: 'dependent', row }) : undefined;
        if (row && dependentChange) addDemographicChange(partOf(item.member_id)!, row, dependentChange);
      }
    }
    return { parts: [...parts.values()].map((part): FileParts => ({ ...part, people: [] })), changesOf, known: sentDigests, unmapped };
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
  ): Promise<{ inForce: GroupCoverageItem[]; sentDigests: Map<string, contentRepository.SentPerson> }> {
    const lastFile = await fileRepository.findLastFile(trx, group.provider_id, group.id);
    if (lastFile === undefined) return { inForce: [], sentDigests: new Map() };
    const since = new Date(Date.parse(lastFile.created_at) - DEMOGRAPHICS_MARGIN_MS).toISOString();
    if (!(await fileRepository.hasFileCreatedEvent(trx, lastFile))) {
      return {
        inForce: await groupCoverage.findCoverageOfGroupOn(trx, group.provider_id, group.id, asOf),
        sentDigests: await contentRepository.findSentDigests(trx, group.id),
      };
    }
    const updated = await contentRepository.findUpdatedPeople(trx, group.provider_id, since);
    // People a carrier file's resolution marked to be sent again (RESEND_DIGEST), updated or not.
    for (const personId of await contentRepository.findPeopleToResend(trx, group.id)) {
      (personId.startsWith(`${ID_PREFIXES.dependent}_`) ? updated.dependents : updated.members).push(personId);
    }
    if (updated.members.length === 0 && updated.dependents.length === 0) return { inForce: [], sentDigests: new Map() };
    const dependentRows = await contentRepository.findDependents(trx, group.provider_id, updated.dependents);
    const memberIds = [...updated.members, ...[...dependentRows.values()].map((row) => row.member_id)];
    const inForce = await groupCoverage.findCoverageOfGroupOnFor(trx, group.provider_id, group.id, asOf, memberIds);
    const coveredDependents = await groupCoverage.findCoveredDependentsOf(
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
  async fullContent(trx: Transaction<Database>, group: GroupRow, guide: CompanionGuide, asOf: string) {
    // What the carrier was last sent about everyone: only what differs is stored again.
    const known = await contentRepository.findSentDigests(trx, group.id);
    return { parts: this.#fullParts(trx, group, guide, asOf), changesOf: new Map<string, string[]>(), known, unmapped: [] as BenefitChangeRow[] };
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
    let inForce = await groupCoverage.findCoverageOfGroupPage(trx, group.provider_id, group.id, asOf, after, FULL_FILE_PAGE_ROWS);
    if (inForce.length === 0) return undefined;
    if (inForce.length === FULL_FILE_PAGE_ROWS) {
      const lastMember = inForce.at(-1)!.member_id;
      const complete = inForce.filter((item) => item.member_id !== lastMember);
      inForce =
        complete.length > 0
          ? complete
          : await groupCoverage.findCoverageOfGroupOn(trx, group.provider_id, group.id, asOf, { first: lastMember, last: lastMember });
    }
    // A range of ids, not a list: a page costs range scans of indexes, not thousands of parameters.
    const range = { first: inForce[0]!.member_id, last: inForce.at(-1)!.member_id };
    const page = [...new Set(inForce.map((item) => item.member_id))];
    // One coverage per member and line: the latest-starting (the query orders them so); lines the
    // profile cannot code are not in 834 files.
    const latest: GroupCoverageItem[] = [];
    const seen = new Set<string>();
    for (const item of inForce) {
      const key = `${item.member_id}|${item.line_of_coverage}`;
      if (seen.has(key) || insuranceLineCodeOf(guide, item.line_of_coverage) === undefined) continue;
      seen.add(key);
      latest.push(item);
    }
    const coveredDependents = await groupCoverage.findCoveredDependentsInRange(trx, range);
    const inPage = new Set(page);
    const rows = (await contentRepository.findMembersInRange(trx, group.provider_id, range)).filter((row) => inPage.has(row.id));
    const onLeave = await findMembersOnLeave(
      trx,
      rows.map((row) => row.id),
      asOf,
    );
    const members = new Map(rows.map((row) => [row.id, this.#factsOf(row, onLeave.has(row.id))]));
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
