import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { batches } from '../../shared/batches.ts';
import { addDays, compareDates } from '../../shared/dates.ts';
import { newId } from '../../shared/ids.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { CoverageChange, QualifyingEventRecorder } from '../cobra-events/cobra-event.service.ts';
import { terminationRuleOf } from '../cobra-events/cobra-rules.ts';
import { serviceEnrollmentRow } from '../enrollments/enrollment-lifecycle.ts';
import { enrollmentNotification } from '../enrollments/enrollment.response.ts';
import { ENROLLMENT_EVENT_ACTIONS, ENROLLMENT_TRANSITIONS } from '../enrollments/enrollment-status.ts';
import * as enrollments from '../enrollments/enrollment.repository.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import { findMemberSubclassIds, lockMemberById } from '../members/member.repository.ts';
import type { MemberRow, TerminationReason } from '../members/member.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { CoverageChangeRecorder, type BenefitChangeRecorder } from './coverage-change-recorder.ts';
import { cancelledByTermination, coverageLostBy, enrollmentStart, terminationCoverageEnd, terminationEffect, undoableOn, type TerminationEffect } from './coverage-rules.ts';
import type { CoverageEntry } from './coverage-entry.ts';
import * as repository from './coverage.repository.ts';
import type { CoverageEndCause, CoverageTerminationItemRow, CoverageTerminationRow } from './coverage.table.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';

type Entry = CoverageEntry;

/** Coverage a coverage end ends or cancels, and how (terminationEffect). */
export type EndedCoverage = { row: Entry; effect: TerminationEffect };

/**
 * What each cause of a coverage end records, one row per cause: the reason of its `qle` enrollment (which
 * decides its COBRA qualifying event, cobra-rules.ts), whether it cancels enrollments not yet approved, and
 * whether the member is told `enrollment_approved` (a termination's employer was told `member_terminated`).
 */
const END_CAUSES: Readonly<Record<CoverageEndCause, { reason: 'terminated' | 'employment_change'; cancelsEnrollments: boolean; notifiesMember: boolean }>> = {
  // 29 U.S.C. 1163(2): termination of employment.
  termination: { reason: 'terminated', cancelsEnrollments: true, notifiesMember: false },
  // 29 U.S.C. 1163(2): reduction of hours (docs/decisions.md "Loss of eligibility").
  eligibility_loss: { reason: 'employment_change', cancelsEnrollments: false, notifiesMember: true },
};

/** One coverage end to apply: why, the day of its cause, its last day of coverage and what it ends. */
export interface CoverageEndInput {
  cause: CoverageEndCause;
  /** The termination date, or the day of the change of hours or status. */
  changeDate: string;
  coverageEnd: string;
  ended: readonly EndedCoverage[];
}

/**
 * What a member's termination does to their coverage (docs/decisions.md "Terminations"), applied by the daily
 * sweep the day after termination_date, or at once when a termination_date already past is recorded:
 *
 * - every coverage of the member and their dependents ends on the plan configuration's coverage end date
 *   (terminationCoverageEnd); coverage that would start after it is cancelled (its last day the day before its
 *   first). Each gets a `removed` benefit change carrying its dates, handed to its carrier like any other;
 * - enrollments not yet approved (not_started, pending) that would start after it are cancelled, with
 *   cancellation_reason `member_terminated`;
 * - the COBRA qualifying event (29 U.S.C. 1163(2): termination of employment) is recorded once the coverage
 *   is lost, the day after the coverage end (recordDueCobraEvents), not before: a termination undone before
 *   then never was one (docs/decisions.md "COBRA events").
 *
 * Each coverage end is one `qle` enrollment with reason `terminated` (status approved, then synced once the
 * carriers have it) that waives the lines it ends, and one coverage_terminations row remembering what it
 * ended. Undoing the termination (clearing termination_date or moving it later) until the coverage end gives
 * back exactly that, with a `change` (date_change) benefit change per entry; from the first day without
 * coverage it is a rehire: nothing is given back, the member enrolls again. What either causes (benefit
 * changes, COBRA losses, events, the roll-up) is recorded by the CoverageChangeRecorder, as for approvals.
 *
 * Every method runs in the caller's transaction with the member locked (lockMemberById), as every path that
 * changes a member's enrollments does; the caller wakes the job worker once it has committed.
 */
export class CoverageTerminations {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #recorder: CoverageChangeRecorder;

  constructor(options: {
    db: Kysely<Database>;
    clock: Clock;
    commit: ChangeCommit;
    benefitChanges: BenefitChangeRecorder;
    qualifyingEvents: QualifyingEventRecorder;
  }) {
    this.#db = options.db;
    this.#clock = options.clock;
    const { benefitChanges, qualifyingEvents, commit } = options;
    this.#recorder = new CoverageChangeRecorder({ benefitChanges, qualifyingEvents, commit });
  }

  /**
   * Applies the member's termination_date to their coverage as of `today`. Returns how many coverage ends it
   * applied (0 when nothing was left to end: it is safe to call again).
   */
  async applyIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number> {
    const terminationDate = member.termination_date;
    if (terminationDate === null) return 0;
    // A date moved earlier after a later one was applied: the later one is replaced, never undone or recorded.
    await repository.supersedeTerminationsAfter(trx, member.id, terminationDate, this.#clock.now().toISOString());
    const rows = await repository.findCoverageRunningPast(trx, member.id, terminationDate);
    if (rows.length === 0) return 0;
    const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, member.provider_id, rows.map((row) => row.plan_id)), (c) => c.plan_id);
    const subclassIds = await findMemberSubclassIds(trx, member.id);
    const byEnd = new Map<string, EndedCoverage[]>();
    for (const row of rows) {
      const coverageEnd = terminationCoverageEnd(terminationDate, subclassIds, configurations.get(row.plan_id) ?? []);
      const effect = terminationEffect({ effectiveStart: row.effective_start, effectiveEnd: row.effective_end }, coverageEnd);
      if (effect === undefined) continue;
      byEnd.set(coverageEnd, [...(byEnd.get(coverageEnd) ?? []), { row, effect }]);
    }
    const ends = [...byEnd.keys()].sort(compareDates);
    for (const coverageEnd of ends) await this.endCoverageIn(trx, member, { cause: 'termination', changeDate: terminationDate, coverageEnd, ended: byEnd.get(coverageEnd)! }, today);
    return ends.length;
  }

  /**
   * Applies one coverage end (a termination's, or a loss of eligibility's: coverage/eligibility-loss.service.ts)
   * as of `today`: its enrollment, its record, the coverage ended with what it causes. Returns the record.
   */
  async endCoverageIn(trx: Transaction<Database>, member: MemberRow, input: CoverageEndInput, today: string): Promise<CoverageTerminationRow> {
    const { cause, changeDate, coverageEnd, ended } = input;
    const rules = END_CAUSES[cause];
    const now = this.#clock.now().toISOString();
    const lines = [...new Set(ended.map(({ row }) => row.line_of_coverage))];
    const enrollment = await this.#insertApprovedEnrollment(trx, member, {
      // A termination's reason decides (cobra-rules.ts TERMINATION_QUALIFYING_EVENTS): `death` for a death, so the
      // enrollment, its 834 and the COBRA event say so; a loss of eligibility is a change of employment.
      reason: cause === 'termination' ? terminationRuleOf(member.termination_reason).enrollmentReason : rules.reason,
      changeDate,
      effectiveStart: addDays(coverageEnd, 1),
      waivedLines: lines,
    });
    const dependents = await repository.findDependentIdsOfPlans(trx, ended.map(({ row }) => row.id));
    // A termination entered after its coverage end: the coverage is already lost, so is the event, recorded
    // with it (nobody else can claim a row this transaction is inserting).
    const lost = coverageLostBy(coverageEnd, today);
    const termination: CoverageTerminationRow = {
      id: newId('coverage_termination'),
      provider_id: member.provider_id,
      member_id: member.id,
      enrollment_id: enrollment.row.id,
      cause,
      termination_date: changeDate,
      coverage_end: coverageEnd,
      created_at: now,
      cobra_recorded_at: lost ? now : null,
      undone_at: null,
      undone_by_enrollment_id: null,
    };
    const items = ended.map(({ row, effect }, position): CoverageTerminationItemRow => ({
      termination_id: termination.id,
      enrolled_plan_id: row.id,
      previous_end: row.effective_end,
      ended_on: effect.lastDay,
      position,
    }));
    await repository.insertTermination(trx, termination, items);
    const cancelled = rules.cancelsEnrollments ? await this.#cancelEnrollmentsStartingAfter(trx, member.id, coverageEnd) : [];
    const rows = lost ? await withContinuedCoverage(trx, member.id, coverageEnd, ended.map(({ row }) => row)) : [];
    // The dependents of the ended rows are read already: only those of the coverage they would have continued are new.
    const continued = rows.slice(ended.length).map((row) => row.id);
    const lossDependents = continued.length > 0 ? new Map([...dependents, ...(await repository.findDependentIdsOfPlans(trx, continued))]) : dependents;
    await this.#recorder.record(trx, {
      enrollment: enrollment.row,
      events: enrollment.events,
      move: {
        kind: 'ends',
        ends: ended.map(({ row, effect }) => ({ entry: row, lastDay: effect.lastDay, dependentIds: dependents.get(row.id) ?? [] })),
        loss: lost ? coverageLoss(termination, enrollment.row, rows, lossDependents, member.termination_reason) : undefined,
      },
      cancelled,
      notification: rules.notifiesMember ? enrollmentNotification(enrollment.row, 'enrollment_approved', 'member') : undefined,
    });
    return termination;
  }

  /**
   * Undoes the member's terminations that their termination_date (cleared, or moved later than theirs) no
   * longer calls for and that have not taken effect on `today` (undoableOn): each enrolled plan gets back the
   * end it had, if nothing else changed it since, and each carrier a `change` (date_change) benefit change
   * saying so. Enrollments the termination cancelled stay cancelled: they were elections, not coverage. Returns
   * how many terminations it undid.
   */
  async undoIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number> {
    const undone = (await repository.findTerminationsInEffect(trx, member.id, 'termination')).filter(
      (termination) =>
        (member.termination_date === null || compareDates(termination.termination_date, member.termination_date) < 0) && undoableOn(termination.coverage_end, today),
    );
    // Newest first: each gives back the end the one before it left, which that one then gives back in turn.
    for (const termination of undone.reverse()) await this.undoEndIn(trx, member, termination, today);
    return undone.length;
  }

  /** Gives back what one coverage end (not yet in effect on `today`) ended: see undoIn. */
  async undoEndIn(trx: Transaction<Database>, member: MemberRow, termination: CoverageTerminationRow, today: string): Promise<void> {
    const items = await repository.findTerminationItems(trx, termination.id);
    const enrollment = await this.#insertApprovedEnrollment(trx, member, {
      // The employment goes on, or the hours are back: a change of employment status (docs/decisions.md
      // "Terminations": an undone termination; "Loss of eligibility").
      reason: 'employment_change',
      changeDate: today,
      effectiveStart: addDays(termination.coverage_end, 1),
      waivedLines: [],
    });
    const dependents = await repository.findDependentIdsOfPlans(trx, items.map((item) => item.id));
    await repository.markUndone(trx, termination.id, this.#clock.now().toISOString(), enrollment.row.id);
    await this.#recorder.record(trx, {
      enrollment: enrollment.row,
      events: enrollment.events,
      move: {
        kind: 'restores',
        restores: items.map((item) => ({ entry: item, endedOn: item.ended_on, previousEnd: item.previous_end, dependentIds: dependents.get(item.id) ?? [] })),
      },
    });
  }

  /**
   * Records the COBRA qualifying events of terminations whose coverage was lost by `day` (the daily sweep),
   * each once: a conditional update claims it in the transaction that records it, after locking the member;
   * `batchSize` terminations to a transaction. Returns how many it recorded.
   */
  async recordDueCobraEvents(day: string, batchSize: number): Promise<number> {
    let recorded = 0;
    for (const batch of batches(await repository.findTerminationsWithCobraDue(this.#db, day), batchSize)) {
      recorded += await this.#db.transaction().execute(async (trx) => {
        let done = 0;
        for (const due of batch) {
          const member = await lockMemberById(trx, { providerId: due.provider_id, employerId: null }, due.member_id);
          const termination = await repository.claimCobraRecording(trx, due.id, this.#clock.now().toISOString());
          if (!termination) continue;
          await this.#recorder.recordLoss(trx, await this.#lossOf(trx, termination, member?.termination_reason ?? null));
          done += 1;
        }
        return done;
      });
    }
    return recorded;
  }

  /** The qualifying event of a termination: who lost which line of group health coverage it ended (not what it cancelled). */
  async #lossOf(trx: Transaction<Database>, termination: CoverageTerminationRow, terminationReason: TerminationReason | null): Promise<CoverageChange> {
    if (termination.cobra_recorded_at === null) {
      termination = (await repository.claimCobraRecording(trx, termination.id, this.#clock.now().toISOString())) ?? termination;
    }
    const enrollment = await trx.selectFrom('enrollments').selectAll().where('id', '=', termination.enrollment_id).executeTakeFirstOrThrow();
    // A loss of eligibility whose coverage a termination ended sooner (or anything else changed since) lost
    // nothing itself: only the plans that still end where it ended them are its loss.
    const items = await withContinuedCoverage(
      trx,
      termination.member_id,
      termination.coverage_end,
      (await repository.findTerminationItems(trx, termination.id)).filter((item) => termination.cause !== 'eligibility_loss' || item.effective_end === item.ended_on),
    );
    const dependents = await repository.findDependentIdsOfPlans(
      trx,
      items.map((item) => item.id),
    );
    return coverageLoss(termination, enrollment, items, dependents, terminationReason);
  }

  /** Cancels the member's enrollments not yet approved that would start after `coverageEnd`; returns their events. */
  async #cancelEnrollmentsStartingAfter(trx: Transaction<Database>, memberId: string, coverageEnd: string): Promise<NewEvent[]> {
    const events: NewEvent[] = [];
    for (const { row, planStarts } of await repository.findEnrollmentsNotApproved(trx, memberId)) {
      if (!cancelledByTermination(enrollmentStart(row.effective_start, planStarts), coverageEnd)) continue;
      const { from, to } = ENROLLMENT_TRANSITIONS.cancel;
      if (!(await enrollments.transitionEnrollment(trx, row.id, from, to, { cancellation_reason: 'member_terminated' }))) continue;
      events.push(eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.cancel, { ...row, status: to }));
    }
    return events;
  }

  /**
   * A `qle` enrollment the service records for the member, submitted and approved at once: the one a
   * termination's (or its undoing's) benefit changes belong to. Returns the row and its events.
   */
  async #insertApprovedEnrollment(
    trx: Transaction<Database>,
    member: MemberRow,
    input: { reason: 'terminated' | 'death' | 'employment_change'; changeDate: string; effectiveStart: string; waivedLines: readonly LineOfCoverage[] },
  ): Promise<{ row: EnrollmentRow; events: NewEvent[] }> {
    const now = this.#clock.now().toISOString();
    const row = serviceEnrollmentRow(member, { status: 'approved', reason: input.reason, changeDate: input.changeDate, effectiveStart: input.effectiveStart, now });
    await enrollments.insertEnrollment(trx, row);
    await enrollments.insertElections(trx, {
      plans: [],
      dependents: [],
      designations: [],
      lines: new Map(),
      waivers: input.waivedLines.map((line, position) => ({
        id: newId('coverage_waiver'),
        enrollment_id: row.id,
        position,
        line_of_coverage: line,
        reason: 'other',
        member_id: member.id,
        dependent_id: null,
      })),
    });
    const pending = { ...row, status: 'pending' as const, approved_at: null };
    return {
      row,
      events: [
        eventOf('enrollment', 'created', { ...pending, status: 'not_started' as const }),
        eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.save_and_submit, pending),
        eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.approve, row),
      ],
    };
  }
}

/**
 * The entries a termination ended, with the coverage they would have continued: an election starting the day after
 * the coverage end (a marriage's from the first of the month) that the termination cancels took over coverage
 * ending that day, which the termination did not need to end; whoever it covered on the last day loses it all the
 * same (26 CFR 54.4980B-4 Q&A-1(c)). Found by the plan-year simulation: a termination on 09-30 and a marriage
 * from 10-01 recorded no COBRA event.
 */
async function withContinuedCoverage<T extends { id: string; line_of_coverage: LineOfCoverage; effective_start: string | null }>(
  trx: Transaction<Database>,
  memberId: string,
  coverageEnd: string,
  ended: readonly T[],
): Promise<(T | Awaited<ReturnType<typeof repository.findAllCoverageInForce>>[number])[]> {
  const firstDayWithout = addDays(coverageEnd, 1);
  const continuing = new Set(ended.filter((item) => item.effective_start === firstDayWithout).map((item) => item.line_of_coverage));
  if (continuing.size === 0) return [...ended];
  const endedIds = new Set(ended.map((item) => item.id));
  const lastDay = (await repository.findAllCoverageInForce(trx, memberId, coverageEnd)).filter(
    (entry) => continuing.has(entry.line_of_coverage) && entry.effective_end === coverageEnd && !endedIds.has(entry.id),
  );
  return [...ended, ...lastDay];
}

/**
 * The qualifying event of a termination, from its enrollment, the enrolled plans it ended (in their positions)
 * and who each covered: coverage cancelled before it began (starting after the coverage end) was never lost, so
 * it is left out.
 */
function coverageLoss(
  termination: CoverageTerminationRow,
  enrollment: EnrollmentRow,
  ended: readonly { id: string; line_of_coverage: LineOfCoverage; effective_start: string | null }[],
  dependents: ReadonlyMap<string, readonly string[]>,
  terminationReason: TerminationReason | null,
): CoverageChange {
  const lost = ended.filter((item) => item.effective_start === null || compareDates(item.effective_start, termination.coverage_end) <= 0);
  return {
    enrollment,
    before: lost.map((item) => ({ lineOfCoverage: item.line_of_coverage, dependentIds: dependents.get(item.id) ?? [] })),
    after: [],
    firstDayWithout: addDays(termination.coverage_end, 1),
    // A termination's reason decides its event; a loss of eligibility's is its enrollment's (reduction of hours).
    ...(termination.cause === 'termination' ? { terminationReason } : {}),
  };
}
