/**
 * The one place that records what a change of a member's coverage causes: approvals (and through them
 * continuations, age-outs, EOI raises, renewals and passive open enrollment), terminations and their undoing.
 * Given the enrollment the change belongs to (approved in the caller's transaction) and how the coverage moves,
 * it moves the coverage, computes the per-carrier line changes against what each carrier was told (the carrier
 * ledger, carrier-ledger/carrier-ledger.ts: never against our own coverage before), writes the benefit changes (docs/decisions.md
 * "Benefit changes and carriers") and the COBRA losses (docs/decisions.md "COBRA events"), hands the events and
 * the notification to ChangeCommit and rolls the enrollment's status up (synced at once when no carrier has
 * anything to do), all in the caller's transaction, with the member locked by the caller.
 */
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { CoverageItem, LineChange } from '../benefit-changes/benefit-change-diff.ts';
import { diffCoverage } from '../benefit-changes/benefit-change-diff.ts';
import { expectedCoverage } from '../carrier-ledger/carrier-ledger.ts';
import { holdsAfter, ledgerKey, toldCoverageAt, type LedgerByKey, type LedgerEntry } from '../carrier-ledger/carrier-ledger-rules.ts';
import type { ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { CoverageChange, QualifyingEventRecorder } from '../cobra-events/cobra-event.service.ts';
import { ENROLLMENT_EVENT_ACTIONS } from '../enrollments/enrollment-status.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import { eventOf, type EventSource } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { compareDates } from '../../shared/dates.ts';
import { coverageItemOf, enrollmentOfCoverage, type CoverageEntry } from './coverage-entry.ts';
import { endCoverageReplacedBy, type ReplacedCoverage } from './coverage-history.ts';
import * as repository from './coverage.repository.ts';
import { retoldChange, type RetellKind } from './retell-rules.ts';

/**
 * What a change needs from the benefit-change module, inside its own transaction: the changes recorded, the
 * enrollment's status afterwards, and their events (recorded with the change's own).
 */
export interface BenefitChangeRecorder {
  recordChanges(
    trx: Transaction<Database>,
    input: {
      providerId: string;
      employerId: string;
      enrollmentId: string;
      memberId: string;
      changes: LineChange[];
      /** The enrollment has changes already (a change told again): the new ones come after them. */
      append?: boolean;
    },
  ): Promise<{ status: 'approved' | 'synced'; events: NewEvent[]; ids: string[] }>;
}

/** The member's coverage before and after an enrollment, line by line (what an approval replaces and elects). */
export type ElectedCoverage = ReplacedCoverage & { next: CoverageItem[]; waivedLines: LineOfCoverage[] };

/** Coverage a termination ends: the entry, its last day, and who it covers. */
export interface CoverageEnd {
  entry: CoverageEntry;
  lastDay: string;
  dependentIds: readonly string[];
}

/** Coverage an undone termination gives back: the entry as it is, the end the termination gave it and the end it had. */
export interface CoverageRestore {
  entry: CoverageEntry;
  endedOn: string;
  previousEnd: string | null;
  dependentIds: readonly string[];
}

/** How the coverage moves. */
export type CoverageMove =
  /** An approval: the coverage the enrollment replaces ends the day before it starts (coverage-history.ts). */
  | { kind: 'replacement'; coverage: ElectedCoverage }
  /** A termination: each entry ends on its last day; `loss` is its COBRA qualifying event once coverage is lost. */
  | { kind: 'ends'; ends: readonly CoverageEnd[]; loss: CoverageChange | undefined }
  /** A termination undone: each entry gets back the end it had, if nothing else changed it since. */
  | { kind: 'restores'; restores: readonly CoverageRestore[] };

export interface RecordedCoverageChange {
  /** The enrollment the change belongs to, approved in this transaction. */
  enrollment: EnrollmentRow;
  /** The caller's events, recorded first (the enrollment's own: created, submitted, approved). */
  events: readonly NewEvent[];
  move: CoverageMove;
  /** Events of enrollments the change cancelled (a termination's), recorded after those whose coverage it changed. */
  cancelled?: readonly NewEvent[];
  /** Who is told (an approval tells the member; a termination tells no one). */
  notification?: NewNotification;
}

/** One member's line of one carrier group to tell its carrier again (retell-rules.ts). */
export interface Retell {
  memberId: string;
  groupId: string;
  lineOfCoverage: LineOfCoverage;
  /** The day the carrier's file describes: our coverage then is what is told. */
  day: string;
  kind: RetellKind;
  differs: readonly ChangeKind[];
}

/** What a move did: the enrollments whose coverage changed, the line changes for the carriers, the COBRA loss if any. */
interface Moved {
  updated: EventSource<'enrollment'>[];
  changes: LineChange[];
  loss: CoverageChange | undefined;
  /** Enrollments whose coverage the move cancelled before it began (a termination's, reaching a later election). */
  cancelled?: string[];
}

export class CoverageChangeRecorder {
  readonly #benefitChanges: BenefitChangeRecorder;
  readonly #qualifyingEvents: QualifyingEventRecorder;
  readonly #commit: ChangeCommit;

  constructor(options: { benefitChanges: BenefitChangeRecorder; qualifyingEvents: QualifyingEventRecorder; commit: ChangeCommit }) {
    this.#benefitChanges = options.benefitChanges;
    this.#qualifyingEvents = options.qualifyingEvents;
    this.#commit = options.commit;
  }

  /**
   * Moves the coverage and records what it causes. Events, in this order: the caller's, `updated` of each
   * enrollment whose coverage changed, the cancelled ones, the benefit changes', the COBRA event's, those of
   * the COBRA events it withdraws, the enrollment's `synced` when no carrier has anything to do, then the
   * notification's. Returns the enrollment's status afterwards.
   */
  async record(trx: Transaction<Database>, change: RecordedCoverageChange): Promise<{ status: 'approved' | 'synced' }> {
    const { enrollment } = change;
    const moved = await this.#move(trx, enrollment, change.move);
    const recorded = await this.#benefitChanges.recordChanges(trx, {
      providerId: enrollment.provider_id,
      employerId: enrollment.employer_id,
      enrollmentId: enrollment.id,
      memberId: enrollment.member_id,
      changes: moved.changes,
    });
    // COBRA (29 U.S.C. 1163): group health coverage the change ends for a qualifying event is recorded with it.
    const cobra = moved.loss ? await this.#qualifyingEvents.recordCoverageLoss(trx, moved.loss) : [];
    // The COBRA events of coverage this change cancelled before it began no longer happen: a qualifying event is
    // one that causes a loss of coverage (29 U.S.C. 1163; 26 CFR 54.4980B-4 Q&A-1(c)), and the coverage those
    // events lost was already gone. Withdrawn (a dependent's age-out recorded for a day after a retroactive death
    // or termination ended the coverage); this change's own loss, recorded above or by the sweep once it comes,
    // covers everyone who had coverage. Boundary tests: test/api/daily-sweep.test.ts (withdrawn events).
    const withdrawn = moved.cancelled?.length ? await this.#qualifyingEvents.withdrawEventsOf(trx, moved.cancelled, enrollment.id) : [];
    const events = [
      ...change.events,
      ...moved.updated.map((other) => eventOf('enrollment', 'updated', other)),
      ...(change.cancelled ?? []),
      ...recorded.events,
      ...cobra,
      ...withdrawn,
      ...(recorded.status === 'synced' ? [eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.complete, { ...enrollment, status: 'synced' as const })] : []),
    ];
    await this.#commit.commit(trx, { events, notifications: change.notification ? [change.notification] : [] });
    return { status: recorded.status };
  }

  /**
   * Tells a carrier again what is true of one member's line (a carrier file's discrepancy resolved by a resend,
   * docs/decisions.md "Carrier files"): a benefit change measured against the carrier ledger (retell-rules.ts),
   * handed to the group's connection like any other (the next 834 change file, manual completion, the carrier
   * API) and recorded in the ledger, told once delivered. No coverage moves. The change belongs to the
   * enrollment of the coverage it describes (ours on `day`; for an end, the enrolled plan told last), whose
   * status does not move here: an approved one becomes synced once all its changes, this one too, are
   * delivered; a synced one stays synced (the machine has no way back to approved), unless the carrier refuses
   * the change (failed, as for any refusal). The member is locked by the caller. Returns the benefit changes'
   * ids, or undefined when nothing of ours describes the coverage (no coverage on the day; nothing told to end).
   */
  async retell(trx: Transaction<Database>, input: Retell): Promise<string[] | undefined> {
    const { memberId, groupId, lineOfCoverage, day, kind } = input;
    const ours = kind === 'end' ? undefined : await repository.findCoverageOfGroupLineOn(trx, { memberId, groupId, lineOfCoverage, date: day });
    const told = (await expectedCoverage(trx, memberId, [lineOfCoverage])).get(ledgerKey(groupId, lineOfCoverage)) ?? [];
    const lastTold = kind === 'end' ? told.at(-1) : undefined;
    const toldEntry = lastTold ? await repository.findCoverageEntryById(trx, lastTold.item.enrolledPlanId) : undefined;
    const dependents = ours ? await repository.findDependentIdsOfPlans(trx, [ours.id]) : new Map<string, string[]>();
    const change = retoldChange({
      kind,
      told,
      ours: ours ? coverageItemOf(ours, ours, dependents.get(ours.id) ?? []) : undefined,
      day,
      ourEnd: toldEntry?.effective_end ?? null,
      differs: input.differs,
    });
    const owner = ours ?? toldEntry;
    if (change === undefined || owner === undefined) return undefined;
    const recorded = await this.#benefitChanges.recordChanges(trx, {
      providerId: owner.provider_id,
      employerId: owner.enrollment_employer_id,
      enrollmentId: owner.enrollment_id,
      memberId,
      changes: [change],
      append: true,
    });
    await this.#commit.commit(trx, { events: recorded.events });
    return recorded.ids;
  }

  /** A COBRA qualifying event recorded after its change (a termination's, once its coverage is lost), with its events. */
  async recordLoss(trx: Transaction<Database>, loss: CoverageChange): Promise<void> {
    await this.#commit.commit(trx, { events: await this.#qualifyingEvents.recordCoverageLoss(trx, loss) });
  }

  /** The carriers' expected picture of the lines of the entries a termination ends or gives back, by group and line. */
  async #expected(trx: Transaction<Database>, enrollment: EnrollmentRow, of: readonly { entry: CoverageEntry }[]): Promise<LedgerByKey> {
    return expectedCoverage(
      trx,
      enrollment.member_id,
      of.map(({ entry }) => entry.line_of_coverage),
    );
  }

  async #move(trx: Transaction<Database>, enrollment: EnrollmentRow, move: CoverageMove): Promise<Moved> {
    switch (move.kind) {
      case 'replacement': {
        const { previous, next, waivedLines, start } = move.coverage;
        const lines = [...next.map((item) => item.lineOfCoverage), ...waivedLines];
        // What the carriers were told, not our coverage before: a carrier holds coverage past a plan year's end
        // until it is told otherwise (carrier-ledger-rules.ts toldCoverageAt).
        const toldItems = toldCoverageAt(await expectedCoverage(trx, enrollment.member_id, lines), start, next).map((entry) => entry.item);
        const updated = await endCoverageReplacedBy(trx, move.coverage);
        return { updated, changes: diffCoverage(toldItems, next, waivedLines, start), loss: { enrollment, before: previous, after: next, firstDayWithout: start } };
      }
      case 'ends':
        return { ...(await endCoverage(trx, move.ends, await this.#expected(trx, enrollment, move.ends))), loss: move.loss };
      case 'restores':
        return { ...(await restoreCoverage(trx, move.restores, await this.#expected(trx, enrollment, move.restores))), loss: undefined };
    }
  }
}

function expectedOf(expected: LedgerByKey, entry: CoverageEntry): readonly LedgerEntry[] | undefined {
  return expected.get(ledgerKey(entry.group_id, entry.line_of_coverage));
}

/**
 * Ends each entry on its last day: a `removed` change carrying its dates per entry, unless its carrier was
 * already told the line ends by then (or never holds it: cancelled).
 */
async function endCoverage(trx: Transaction<Database>, ends: readonly CoverageEnd[], expected: LedgerByKey): Promise<Omit<Moved, 'loss'>> {
  const changes: LineChange[] = [];
  const cancelled = new Set<string>();
  for (const { entry, lastDay, dependentIds } of ends) {
    await repository.endCoverage(trx, entry.id, lastDay);
    if (entry.effective_start !== null && compareDates(lastDay, entry.effective_start) < 0) cancelled.add(entry.enrollment_id);
    // Nothing to tell a carrier that holds nothing of the line after the last day any more (told already).
    const told = expectedOf(expected, entry);
    if (told !== undefined && !holdsAfter(told, lastDay)) continue;
    changes.push({
      lineOfCoverage: entry.line_of_coverage,
      status: 'removed',
      changes: [],
      previous: coverageItemOf(entry, entry, dependentIds),
      next: null,
      coverageStart: entry.effective_start,
      coverageEnd: lastDay,
    });
  }
  const updated = new Map(ends.map(({ entry }) => [entry.enrollment_id, enrollmentOfCoverage(entry)]));
  return { updated: [...updated.values()], changes, cancelled: [...cancelled] };
}

/**
 * Gives each entry back the end it had, if it still has the one it was given: a `change` (date_change) per
 * entry given back, measured against what its carrier was told (the termination's removal, as told).
 */
async function restoreCoverage(trx: Transaction<Database>, restores: readonly CoverageRestore[], expected: LedgerByKey): Promise<Omit<Moved, 'loss'>> {
  const changes: LineChange[] = [];
  const updated = new Map<string, EventSource<'enrollment'>>();
  for (const { entry, endedOn, previousEnd, dependentIds } of restores) {
    if (!(await repository.restoreEnd(trx, entry.id, endedOn, previousEnd))) continue;
    updated.set(entry.enrollment_id, enrollmentOfCoverage(entry));
    changes.push({
      lineOfCoverage: entry.line_of_coverage,
      status: 'change',
      changes: ['date_change'],
      // What its carrier was told of this entry (the termination's removal), else the entry as the termination left it.
      previous: expectedOf(expected, entry)?.findLast((told) => told.item.enrolledPlanId === entry.id)?.item ?? coverageItemOf(entry, entry, dependentIds, endedOn),
      next: coverageItemOf(entry, entry, dependentIds, previousEnd),
      coverageStart: entry.effective_start,
      coverageEnd: previousEnd,
    });
  }
  return { updated: [...updated.values()], changes };
}
