/**
 * Approval, pending -> approved (docs/decisions.md "Enrollments"): the status moves, then the
 * CoverageChangeRecorder ends the coverage the enrollment replaces, records one benefit change per line it
 * touches (docs/decisions.md "Benefit changes and carriers"), its COBRA event if any (docs/decisions.md "COBRA
 * events"), the events and the member's `enrollment_approved` notification, in the caller's transaction. An
 * approval asked for (not a continuation's) then reaches forward to the member's later elections on its lines
 * (later-elections.ts).
 */
import { findPaySchedulesOfMembers } from '../payroll/pay-schedule.repository.ts';
import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { transactionRetriedOnConflict } from '../../db/transaction-conflicts.ts';
import type { Clock } from '../../shared/clock.ts';
import { toDateString } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { CoverageChangeRecorder, ElectedCoverage } from '../coverage/coverage-change-recorder.ts';
import { coverageItemWithVolumes, findCoverageReplacedBy } from '../coverage/coverage-history.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { moveEnrollment } from './enrollment-lifecycle.ts';
import { ENROLLMENT_EVENT_ACTIONS } from './enrollment-status.ts';
import * as repository from './enrollment.repository.ts';
import { enrollmentNotification, toEnrollmentResponse } from './enrollment.response.ts';
import type { EnrollmentResponse } from './enrollment.schemas.ts';
import type { EnrollmentRow } from './enrollment.table.ts';
import type { LaterElections } from './later-elections.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';

type Elections = repository.Elections;

/**
 * Approves an enrollment as stored, its member locked by the caller, without reaching forward: the first step of
 * every approval, and the whole of a continuation's (coverage-continuation.ts), whose rows it has just stored.
 */
export class StoredApproval {
  readonly #clock: Clock;
  readonly #recorder: CoverageChangeRecorder;

  constructor(options: { clock: Clock; recorder: CoverageChangeRecorder }) {
    this.#clock = options.clock;
    this.#recorder = options.recorder;
  }

  /**
   * Approves `enrollment` (pending, as stored) with its `elections` (as stored); `withEvents`, the caller's own,
   * are recorded first. Returns the enrollment as approved (its status rolled up) and the coverage it replaced
   * and elected.
   */
  async approve(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    elections: Elections,
    withEvents: readonly NewEvent[],
  ): Promise<{ approved: EnrollmentRow; coverage: ElectedCoverage }> {
    const approvedAt = this.#clock.now().toISOString();
    await moveEnrollment(trx, enrollment, 'approve', { approved_at: approvedAt });
    const coverage = await electedCoverage(trx, enrollment, elections, toDateString(this.#clock.now()));
    const approved = { ...enrollment, status: 'approved' as const, approved_at: approvedAt };
    const { status } = await this.#recorder.record(trx, {
      enrollment: approved,
      events: [...withEvents, eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.approve, approved)],
      move: { kind: 'replacement', coverage },
      notification: enrollmentNotification(enrollment, 'enrollment_approved', 'member'),
    });
    return { approved: { ...approved, status }, coverage };
  }
}

export class EnrollmentApproval {
  readonly #db: Kysely<Database>;
  readonly #stored: StoredApproval;
  readonly #laterElections: LaterElections;

  constructor(options: { db: Kysely<Database>; stored: StoredApproval; laterElections: LaterElections }) {
    this.#db = options.db;
    this.#stored = options.stored;
    this.#laterElections = options.laterElections;
  }

  /** `POST /enrollments/{id}/approve`, in a transaction of its own (its carrier jobs wake the worker by jobs/job-wake.ts). */
  async approve(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => this.approveIn(trx, scope, id));
  }

  /**
   * Approval inside the caller's transaction (also passive open enrollment's); the caller wakes the job worker
   * once it has committed. `withEvents`, the caller's own, are recorded first. Then the approval reaches forward
   * to the member's later elections on its lines (later-elections.ts), in this transaction.
   *
   * Locks: the member only, as every path that changes a member's enrollments locks them (so approvals of two
   * enrollments of one member run one after the other). The enrollment row needs no lock: the conditional
   * status update refuses it if another request moved it since it was read, and a pending enrollment's fields
   * do not change (EOI decisions lock the row through lockMemberThenEnrollment, so the update waits for them).
   * The later elections it amends are locked after the member (lockMemberThenEnrollment).
   */
  async approveIn(trx: Transaction<Database>, scope: Scope, id: string, withEvents: readonly NewEvent[] = []): Promise<EnrollmentResponse> {
    const enrollment = await repository.findEnrollmentById(trx, scope, id);
    if (!enrollment) throw new NotFound('enrollment');
    const member = await lockMemberById(trx, scope, enrollment.member_id);
    if (!member) throw new NotFound('enrollment');
    const elections = await repository.findElections(trx, [id]);
    const { approved, coverage } = await this.#stored.approve(trx, enrollment, elections, withEvents);
    // Its own elections' ends may move there (a later election takes over): `elections` shows them as they are.
    await this.#laterElections.reachForwardIn(trx, scope, { enrollment: approved, member, elections, previous: coverage.previous });
    return toEnrollmentResponse(approved, elections, await findPaySchedulesOfMembers(trx, [approved.member_id]));
  }
}

/**
 * The member's coverage before and after the enrollment, line by line (docs/decisions.md "Benefit changes and
 * carriers"): before is the coverage in force on the enrollment's start (`today` without one), or, for a plan
 * that renews another, the coverage on that plan the day before.
 */
export async function electedCoverage(trx: Executor, enrollment: EnrollmentRow, elections: Elections, today: string): Promise<ElectedCoverage> {
  const plans =
    elections.planRows ??
    new Map(
      (
        await findPlansByIds(
          trx,
          enrollment.provider_id,
          elections.plans.map((p) => p.plan_id),
        )
      ).map((p) => [p.id, p]),
    );
  const next = elections.plans.map((row) =>
    coverageItemWithVolumes(
      row,
      plans.get(row.plan_id)!,
      elections.dependents.filter((d) => d.enrolled_plan_id === row.id),
    ),
  );
  const waivedLines = [...new Set(elections.waivers.map((waiver) => waiver.line_of_coverage as LineOfCoverage))];
  const start = enrollment.effective_start ?? today;
  const replaced = await findCoverageReplacedBy(trx, { memberId: enrollment.member_id, enrollmentId: enrollment.id, start, next, waivedLines });
  return { next, waivedLines, ...replaced };
}
