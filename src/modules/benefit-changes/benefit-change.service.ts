import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import type { Clock } from '../../shared/clock.ts';
import { TIMESTAMP_INPUT_MESSAGE, parseTimestamp, toTimestamp } from '../../shared/dates.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { lockEnrollmentStatus, settleEnrollment } from '../enrollments/enrollment-lifecycle.ts';
import { ENROLLMENT_EVENT_ACTIONS } from '../enrollments/enrollment-status.ts';
import type { ConnectionMethod } from '../groups/group.table.ts';
import type { LineChange } from './benefit-change-diff.ts';
import { assertDeliveryTransition } from './benefit-change-delivery.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { NewAlert } from '../alerts/alert.service.ts';
import type { EventAction } from '../events/event-types.ts';
import * as repository from './benefit-change.repository.ts';
import { recordTold } from '../carrier-ledger/carrier-ledger.ts';
import type { BenefitChangeResponse, UpdateBenefitChangeBody } from './benefit-change.schemas.ts';
import type { BenefitChangeRow, ChangeKind, DeliveryState } from './benefit-change.table.ts';

/** The job that hands one benefit change of an `api` group to the carrier adapter; payload `{ benefit_change }`. */
export const SEND_BENEFIT_CHANGE_JOB = 'carrier.send_benefit_change';

export const NO_CHANGE_MEMO = 'No change to send.';

export function toBenefitChangeResponse(row: BenefitChangeRow): BenefitChangeResponse {
  return {
    id: row.id,
    enrollment: row.enrollment_id,
    line_of_coverage: row.line_of_coverage,
    status: row.status,
    changes: JSON.parse(row.changes) as ChangeKind[],
    previous_enrollment_plan: row.previous_enrollment_plan_id,
    next_enrollment_plan: row.next_enrollment_plan_id,
    coverage_start: row.coverage_start,
    coverage_end: row.coverage_end,
    connection_method: row.connection_method,
    memo: row.memo,
    assignee: row.assignee,
    completed_at: row.completed_at,
    needs_manual_completion: Boolean(row.needs_manual_completion),
    delivery_state: row.delivery_state,
    created_at: row.created_at,
  };
}

/** Where a change that still has to reach its carrier waits, by connection (docs/decisions.md "Benefit changes and carriers"). */
function openDeliveryState(connectionMethod: ConnectionMethod): DeliveryState {
  switch (connectionMethod) {
    case 'manual':
      return 'manual';
    case 'edi':
      return 'awaiting_file';
    case 'api':
      return 'queued';
  }
}

export class BenefitChangeService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  /**
   * Records the benefit changes of an enrollment being approved, inside the approval's transaction (call it
   * once the enrollment is `approved` there): one row per line and group, with its coverage dates, each
   * addressed to the group of its plan (the next plan's, else the previous one's) and handed to that group's
   * connection. `api` changes get their
   * delivery job in this same transaction, so a change is never recorded without it, nor sent without being
   * recorded (whoever runs the approval wakes the worker after its commit: jobs/job-wake.ts). An enrollment
   * whose every line is `no_change` has nothing to send and is synced at once. Returns the enrollment's status afterwards (`approved`, or `synced` when nothing had to be sent) and the
   * `benefit_change.created` events of the changes, which the approval records with its own in one statement.
   */
  async recordChanges(
    trx: Transaction<Database>,
    input: { providerId: string; employerId: string; enrollmentId: string; memberId: string; changes: readonly LineChange[]; append?: boolean },
  ): Promise<{ status: 'approved' | 'synced'; events: NewEvent[]; ids: string[] }> {
    const groupOf = (change: LineChange): string => {
      const item = change.next ?? change.previous;
      if (item === null) throw new Error(`The ${change.lineOfCoverage} change has neither a previous nor a next enrolled plan.`);
      return item.groupId;
    };
    const connections = await repository.findConnectionMethodsOfGroups(trx, input.providerId, input.changes.map(groupOf));
    const now = this.#clock.now().toISOString();
    // A change told again (a resend) follows the enrollment's own; an approval's are its first.
    const firstPosition = input.append ? await repository.nextPositionOfEnrollment(trx, input.enrollmentId) : 0;
    const rows = input.changes.map((change, index): BenefitChangeRow => {
      const position = firstPosition + index;
      const groupId = groupOf(change);
      const connectionMethod = connections.get(groupId);
      if (connectionMethod === undefined) throw new Error(`Group ${groupId} of the ${change.lineOfCoverage} change does not exist.`);
      const nothingToSend = change.status === 'no_change';
      return {
        id: newId('benefit_change'),
        provider_id: input.providerId,
        employer_id: input.employerId,
        enrollment_id: input.enrollmentId,
        member_id: input.memberId,
        line_of_coverage: change.lineOfCoverage,
        status: change.status,
        changes: JSON.stringify(change.changes),
        previous_enrollment_plan_id: change.previous?.enrolledPlanId ?? null,
        next_enrollment_plan_id: change.next?.enrolledPlanId ?? null,
        coverage_start: change.coverageStart,
        coverage_end: change.coverageEnd,
        group_id: groupId,
        connection_method: connectionMethod,
        delivery_state: nothingToSend ? 'completed' : openDeliveryState(connectionMethod),
        memo: nothingToSend ? NO_CHANGE_MEMO : null,
        assignee: null,
        completed_at: nothingToSend ? now : null,
        needs_manual_completion: connectionMethod === 'manual',
        position,
        created_at: now,
      };
    });
    await repository.insertBenefitChanges(trx, rows);
    // What each change tells its carrier, in the carrier ledger (told once it reaches the carrier).
    await recordTold(
      trx,
      { providerId: input.providerId, employerId: input.employerId, memberId: input.memberId },
      rows.map((row, index) => ({ benefitChangeId: row.id, change: input.changes[index]!, completed: row.delivery_state === 'completed' })),
      now,
    );
    for (const row of rows.filter((change) => change.delivery_state === 'queued')) {
      await enqueueJob(trx, this.#clock, { kind: SEND_BENEFIT_CHANGE_JOB, payload: { benefit_change: row.id } });
    }
    const events = rows.map((row) => eventOf('benefit_change', 'created', row));
    const ids = rows.map((row) => row.id);
    // The enrollment was approved in this transaction and these are all its changes (an approved enrollment is
    // never approved again), so they alone settle it; no need to lock and read them back as rollUpEnrollment does.
    if (rows.some((row) => row.delivery_state !== 'completed')) return { status: 'approved', events, ids };
    await settleEnrollment(trx, input.enrollmentId, 'complete');
    return { status: 'synced', events, ids };
  }

  /** Endpoint 1: every benefit change of the enrollment, in line order. */
  async listForEnrollment(scope: Scope, enrollmentId: string): Promise<BenefitChangeResponse[]> {
    const enrollment = await repository.findEnrollmentById(this.#db, scope, enrollmentId);
    if (!enrollment) throw new NotFound('enrollment');
    const rows = await repository.listBenefitChangesOfEnrollment(this.#db, enrollment.id);
    return rows.map(toBenefitChangeResponse);
  }

  async getBenefitChange(scope: Scope, id: string): Promise<BenefitChangeResponse> {
    const row = await repository.findBenefitChangeById(this.#db, scope, id);
    if (!row) throw new NotFound('benefit change');
    return toBenefitChangeResponse(row);
  }

  /**
   * Manual completion (docs/decisions.md "Benefit changes and carriers"): `completed_at` completes a change of a
   * manual or edi connection, or (null) reopens it while the enrollment is still approved; `memo` and `assignee` may
   * be set on any change.
   */
  async updateBenefitChange(scope: Scope, id: string, input: UpdateBenefitChangeBody): Promise<BenefitChangeResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockBenefitChangeById(trx, scope, id);
      if (!current) throw new NotFound('benefit change');
      let updated = applyChanges(current, input, ['memo', 'assignee']);
      if (input.completed_at !== undefined) updated = { ...updated, ...(await this.#completion(trx, current, input.completed_at)) };
      await repository.updateBenefitChange(trx, updated, current.delivery_state, this.#clock.now().toISOString());
      const events = await rollUpEnrollment(trx, current.enrollment_id, [eventOf('benefit_change', deliveryEventAction(current, updated), updated)]);
      await this.#changes.commit(trx, { events });
      return toBenefitChangeResponse(updated);
    });
  }

  /**
   * Records the carrier's business refusal of a change (docs/decisions.md "Benefit changes and carriers",
   * Refusals): learned from its report or portal by an admin, with its reason (kept in memo). The change becomes
   * `rejected` (the carrier ledger marks it refused), its enrollment `failed` (also from synced: a carrier may
   * refuse after accepting a file), and the member and the employer get a `benefit_change_refused` alert.
   * Change row first, then the enrollment: the order every roll-up takes its locks in.
   */
  async refuseBenefitChange(scope: Scope, id: string, reason: string): Promise<BenefitChangeResponse> {
    if (reason.trim() === '') throw validationFailed(['reason'], 'Cannot be blank: say why the carrier refused the change.');
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockBenefitChangeById(trx, scope, id);
      if (!current) throw new NotFound('benefit change');
      if (current.status === 'no_change') throw new InvalidState('A no_change benefit change sent the carrier nothing: there is nothing it could refuse.');
      const refused: BenefitChangeRow = {
        ...current,
        delivery_state: assertDeliveryTransition('refuse', current.delivery_state),
        completed_at: null,
        memo: reason,
      };
      if (!(await repository.transitionDelivery(trx, current.id, 'refuse', this.#clock.now().toISOString(), { completed_at: null, memo: reason }))) {
        throw new InvalidState('The benefit change changed while this request ran; read it again.');
      }
      const events = await rollUpEnrollment(trx, current.enrollment_id, [eventOf('benefit_change', 'rejected', refused)]);
      await this.#changes.commit(trx, { events, alerts: refusalAlerts(refused) });
      return toBenefitChangeResponse(refused);
    });
  }

  async #completion(
    trx: Transaction<Database>,
    current: BenefitChangeRow,
    completedAt: string | null,
  ): Promise<Pick<BenefitChangeRow, 'completed_at' | 'delivery_state'>> {
    if (current.connection_method === 'api') {
      throw new InvalidState('This change goes through the carrier API: the carrier adapter completes it, so completed_at cannot be set.');
    }
    if (current.status === 'no_change') {
      throw new InvalidState('A no_change benefit change has nothing to send: it was completed when the enrollment was approved.');
    }
    if (completedAt === null) {
      if (current.delivery_state !== 'completed') return { completed_at: null, delivery_state: current.delivery_state };
      // Change row first, then the enrollment: the order every roll-up takes its locks in.
      const enrollment = await lockEnrollmentStatus(trx, current.enrollment_id);
      if (enrollment?.status !== 'approved') {
        throw new InvalidState(`The enrollment is ${enrollment?.status ?? 'gone'}: a completed change can be reopened only while its enrollment is approved.`);
      }
      return {
        completed_at: null,
        delivery_state: assertDeliveryTransition(current.connection_method === 'edi' ? 'reopen_file' : 'reopen_manual', current.delivery_state),
      };
    }
    const instant = parseTimestamp(completedAt);
    if (!instant) throw validationFailed(['completed_at'], TIMESTAMP_INPUT_MESSAGE);
    if (instant > this.#clock.now()) throw validationFailed(['completed_at'], 'Cannot be in the future.');
    if (instant < new Date(current.created_at)) {
      throw validationFailed(['completed_at'], `Cannot be before the benefit change was recorded (${current.created_at}).`);
    }
    return { completed_at: toTimestamp(instant), delivery_state: assertDeliveryTransition('complete_by_hand', current.delivery_state) };
  }
}

/**
 * The event of a change to a benefit change: its hand-off completing, rejected, sent back or reopened, else `updated`
 * (memo, assignee, or a new completion date of a change already completed).
 */
export function deliveryEventAction(
  before: Pick<BenefitChangeRow, 'delivery_state'>,
  after: Pick<BenefitChangeRow, 'delivery_state'>,
): EventAction<'benefit_change'> {
  if (before.delivery_state === after.delivery_state) return 'updated';
  switch (after.delivery_state) {
    case 'completed':
      return 'completed';
    case 'rejected':
      return 'rejected';
    case 'sent':
      return 'sent';
    case 'awaiting_file':
      if (before.delivery_state === 'sent') return 'returned';
      return before.delivery_state === 'completed' ? 'reopened' : 'updated';
    case 'manual':
    case 'queued':
      return before.delivery_state === 'completed' ? 'reopened' : 'updated';
  }
}

/**
 * Settles the enrollment once its changes are settled (docs/decisions.md "Benefit changes and carriers"): `failed`
 * when a carrier refused one (from approved, or from synced: a refusal may come after the carrier accepted the
 * file), `synced` when every one is completed (also when it has none: nothing had to be sent). A conditional
 * UPDATE, so a race loses cleanly. The enrollment row is locked before the changes are read, so two changes
 * completing at once cannot both see the other one still open. Returns `withEvents` (the caller's events of the
 * changes that settled) followed by the enrollment's own event, for the caller to commit.
 */
export async function rollUpEnrollment(trx: Transaction<Database>, enrollmentId: string, withEvents: readonly NewEvent[]): Promise<NewEvent[]> {
  const enrollment = await lockEnrollmentStatus(trx, enrollmentId);
  if (enrollment === undefined || (enrollment.status !== 'approved' && enrollment.status !== 'synced')) return [...withEvents];
  const action = settlingAction(await repository.listDeliveryStatesOfEnrollment(trx, enrollmentId));
  // A synced enrollment settles again only when a carrier refuses one of its changes.
  if (action === undefined || (enrollment.status === 'synced' && action !== 'reject')) return [...withEvents];
  const to = await settleEnrollment(trx, enrollmentId, action);
  if (to === undefined) return [...withEvents];
  return [...withEvents, eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS[action], { ...enrollment, status: to })];
}

function settlingAction(states: readonly DeliveryState[]): 'complete' | 'reject' | undefined {
  if (states.includes('rejected')) return 'reject';
  if (states.every((state) => state === 'completed')) return 'complete';
  return undefined;
}

/**
 * What the member and the employer are told when a carrier refuses a benefit change (an admin's `refuse`, or the
 * carrier API's final refusal): one `benefit_change_refused` alert each, once per change. The carrier's reason
 * stays in the change's memo (free text: it is not copied into alerts).
 */
export function refusalAlerts(
  change: Pick<
    BenefitChangeRow,
    'id' | 'provider_id' | 'employer_id' | 'member_id' | 'enrollment_id' | 'group_id' | 'line_of_coverage' | 'status' | 'delivery_state'
  >,
): NewAlert[] {
  const payload = {
    benefit_change: change.id,
    enrollment: change.enrollment_id,
    group: change.group_id,
    line_of_coverage: change.line_of_coverage,
    status: change.status,
    delivery_state: change.delivery_state,
  };
  const alert = (audience: 'member' | 'employer', message: string): NewAlert => ({
    providerId: change.provider_id,
    employerId: change.employer_id,
    audience,
    kind: 'benefit_change_refused',
    relatedObjectType: 'benefit_change',
    relatedObjectId: change.id,
    memberId: change.member_id,
    message,
    payload,
    key: `benefit_change_refused:${change.id}:${audience}`,
  });
  return [
    alert(
      'member',
      `The carrier did not accept the change to your ${change.line_of_coverage} coverage (benefit change ${change.id} of enrollment ${change.enrollment_id}). Your employer's benefits team has the carrier's reason and will help you with what to do next.`,
    ),
    alert(
      'employer',
      `The carrier refused the ${change.line_of_coverage} benefit change ${change.id} (${change.status}) of member ${change.member_id}; enrollment ${change.enrollment_id} is failed. The carrier's reason is in the benefit change's memo: review it with the member, correct what the carrier needs and enroll again, or take it up with the carrier.`,
    ),
  ];
}
