/**
 * EOI decisions on enrolled plans or dependents (docs/decisions.md "Enrollments", EOI). Before approval they
 * change the election in place: an approval puts the requested volume in force, a denial keeps the guaranteed
 * amount, and plans rated per unit of volume are priced again. After approval (approved or synced), on coverage
 * still running on the decision date: a denial is recorded in place (nothing changes for the carrier), and an
 * approval raises the volume from the decision date through a continuation (coverage-continuation.ts).
 */
import { findPaySchedulesOfMembers } from '../payroll/pay-schedule.repository.ts';
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { transactionRetriedOnConflict } from '../../db/transaction-conflicts.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { eventOf } from '../events/event-data.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { CoverageContinuation } from './coverage-continuation.ts';
import { reelect } from './election-builder.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import * as repository from './enrollment.repository.ts';
import { toEnrollmentResponse } from './enrollment.response.ts';
import type { EnrollmentResponse, EoiDecisionBody } from './enrollment.schemas.ts';
import type { EnrolledPlanRow, EnrollmentRow } from './enrollment.table.ts';
import { rowOfPerson, runsOn, storedVolumes, volumeColumnsOf, type KeptVolumes } from './stored-elections.ts';

type Elections = repository.Elections;
type Decision = 'approved' | 'denied';
/** The decisions of one request: per enrolled plan, per person on it (null for the member). */
type Decided = Map<EnrolledPlanRow, Map<string | null, Decision>>;

export class EoiDecisions {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #commit: ChangeCommit;
  readonly #continuation: CoverageContinuation;

  constructor(options: { db: Kysely<Database>; clock: Clock; commit: ChangeCommit; continuation: CoverageContinuation }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#commit = options.commit;
    this.#continuation = options.continuation;
  }

  /** `PATCH /enrollments/{id}` with a body of EOI decisions (isEoiDecisionBody); the member, then the enrollment, locked. */
  async decide(scope: Scope, id: string, input: EoiDecisionBody): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => {
      const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
      if (!locked) throw new NotFound('enrollment');
      return this.#decideIn(trx, locked.enrollment, locked.member, input);
    });
  }

  async #decideIn(trx: Transaction<Database>, enrollment: EnrollmentRow, member: MemberRow, input: EoiDecisionBody): Promise<EnrollmentResponse> {
    const beforeApproval = enrollment.status === 'not_started' || enrollment.status === 'pending';
    if (!beforeApproval && enrollment.status !== 'approved' && enrollment.status !== 'synced') {
      throw new InvalidState(`EOI decisions are recorded on enrollments not_started, pending, approved or synced; this one is ${enrollment.status}.`);
    }
    const others = Object.keys(input).filter((key) => key !== 'enrolled_plans' && key !== 'metadata');
    if (others.length > 0) {
      throw new ValidationFailed(others.map((key) => inputError([key], 'EOI decisions cannot be combined with other changes.')));
    }
    const elections = await repository.findElections(trx, [enrollment.id]);
    const today = toDateString(this.#clock.now());
    const decided = readDecisions(elections, input, { beforeApproval, today });
    await this.#applyDecisions(trx, elections, decided, beforeApproval);
    if (beforeApproval) {
      await this.#repriceIn(trx, enrollment, member, elections, [...decided.keys()]);
    } else {
      const approvals = [...decided].filter(([, byPerson]) => [...byPerson.values()].includes('approved'));
      if (approvals.length > 0) await this.#raiseVolumesIn(trx, enrollment, member, elections, new Map(approvals), today);
    }
    const updated = { ...enrollment, metadata: JSON.stringify(mergeMetadata(parseMetadata(enrollment.metadata), input.metadata)) };
    await repository.updateEnrollmentFields(trx, updated);
    await this.#commit.commit(trx, { events: [eventOf('enrollment', 'updated', updated)] });
    return toEnrollmentResponse(updated, await repository.findElections(trx, [enrollment.id]), await findPaySchedulesOfMembers(trx, [updated.member_id]));
  }

  /**
   * The decisions, on the rows named (changed in `elections` too): before approval the requested volume goes in
   * force at once; after, the rows keep the volume in force on their dates and the raised volume goes on from
   * the decision date.
   */
  async #applyDecisions(trx: Transaction<Database>, elections: Elections, decided: Decided, beforeApproval: boolean): Promise<void> {
    const now = this.#clock.now().toISOString();
    for (const [plan, byPerson] of decided) {
      for (const [dependentId, decision] of byPerson) {
        const row = rowOfPerson(elections, plan, dependentId);
        const columns =
          decision === 'denied'
            ? { volume_cents: row.volume_cents, eoi_status: 'denied' as const, volume_approved_at: null }
            : { volume_cents: beforeApproval ? row.requested_volume_cents : row.volume_cents, eoi_status: 'approved' as const, volume_approved_at: now };
        Object.assign(row, columns);
        await (dependentId === null
          ? repository.updateEnrolledPlanVolume(trx, row.id, columns)
          : repository.updateEnrolledDependentVolume(trx, row.id, columns));
      }
    }
  }

  /** The stored elections `plans` (of an enrollment not yet approved) priced again on their volumes in force. */
  async #repriceIn(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    plans: readonly EnrolledPlanRow[],
  ): Promise<void> {
    const chosen = stored.plans.filter((plan) => plans.includes(plan));
    const priced = await reelect(trx, {
      enrollment,
      member,
      stored,
      plans: chosen,
      starts: chosen.map((plan) => plan.effective_start),
      kept: chosen.map((plan) => storedVolumes(stored, plan)),
      now: this.#clock.now().toISOString(),
    });
    for (const [index, plan] of chosen.entries()) {
      const again = priced.plans[index]!;
      if (again.premium_cents === null) continue;
      const set = {
        premium_cents: again.premium_cents,
        employer_contribution_cents: again.employer_contribution_cents,
        member_contribution_cents: again.member_contribution_cents,
      };
      if (
        set.premium_cents !== plan.premium_cents ||
        set.employer_contribution_cents !== plan.employer_contribution_cents ||
        set.member_contribution_cents !== plan.member_contribution_cents
      ) {
        await repository.updateEnrolledPlanVolume(trx, plan.id, set);
      }
    }
  }

  /**
   * EOI approved after approval raises the volume from the decision date (or from the coverage's start, when
   * that is later): per first day, a continuation of the decided elections (same plan, persons, designations,
   * providers, end; the original's category, reason and change date) with the approved volumes in force.
   * Approval ends the decided coverage the day before and sends the carrier a `change` with `volume_change` (and
   * `contribution_change` when the price moved). The caller holds the member's lock.
   */
  async #raiseVolumesIn(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    approvals: Decided,
    today: string,
  ): Promise<void> {
    const now = this.#clock.now().toISOString();
    const firstDay = (plan: EnrolledPlanRow) => (plan.effective_start !== null && compareDates(plan.effective_start, today) > 0 ? plan.effective_start : today);
    for (const [start, plans] of Map.groupBy(approvals.keys(), firstDay)) {
      const row: EnrollmentRow = {
        ...serviceEnrollmentRow(member, { status: 'pending', reason: enrollment.reason ?? '', changeDate: today, effectiveStart: start, now }),
        category: enrollment.category,
        reason: enrollment.reason,
        change_date: enrollment.change_date,
        other_coverage: enrollment.other_coverage,
      };
      const kept = plans.map((plan) => raisedVolumes(stored, plan, approvals.get(plan)!));
      await this.#continuation.continueCoverageIn(trx, row, member, stored, plans, kept);
    }
  }
}

/** The stored volumes of `plan`, with the requested volume in force for each person whose EOI was approved. */
function raisedVolumes(stored: Elections, plan: EnrolledPlanRow, byPerson: ReadonlyMap<string | null, Decision>): KeptVolumes {
  const raised = (dependentId: string | null) => {
    const before = rowOfPerson(stored, plan, dependentId);
    return byPerson.get(dependentId) === 'approved' ? { ...volumeColumnsOf(before), volume_cents: before.requested_volume_cents } : volumeColumnsOf(before);
  };
  const { dependents } = storedVolumes(stored, plan);
  return { member: raised(null), dependents: new Map([...dependents.keys()].map((dependentId) => [dependentId, raised(dependentId)])) };
}

/**
 * The decisions a body names, checked against the stored `elections`: every enrolled plan and dependent must be
 * this enrollment's, with an EOI pending, and after approval on coverage running on or after `today`. Throws
 * ValidationFailed with every error.
 */
function readDecisions(elections: Elections, input: EoiDecisionBody, at: { beforeApproval: boolean; today: string }): Decided {
  const plansById = new Map(elections.plans.map((plan) => [plan.id, plan]));
  const dependentsById = new Map(elections.dependents.map((dependent) => [dependent.id, dependent]));
  const errors: InputError[] = [];
  const decided: Decided = new Map();
  const decide = (
    plan: EnrolledPlanRow,
    row: Pick<EnrolledPlanRow, 'eoi_status'>,
    dependentId: string | null,
    decision: Decision,
    path: (string | number)[],
  ) => {
    const error = decisionError(row, plan, at, path);
    if (error) errors.push(error);
    else decided.set(plan, (decided.get(plan) ?? new Map<string | null, Decision>()).set(dependentId, decision));
  };
  for (const [index, decision] of input.enrolled_plans.entries()) {
    const plan = plansById.get(decision.id);
    if (!plan) {
      errors.push(inputError(['enrolled_plans', index, 'id'], 'No such enrolled plan in this enrollment.'));
      continue;
    }
    if (decision.eoi_status) decide(plan, plan, null, decision.eoi_status, ['enrolled_plans', index, 'eoi_status']);
    for (const [dependentIndex, dependentDecision] of (decision.enrolled_dependents ?? []).entries()) {
      const dependent = dependentsById.get(dependentDecision.id);
      const path = ['enrolled_plans', index, 'enrolled_dependents', dependentIndex];
      if (!dependent || dependent.enrolled_plan_id !== plan.id) {
        errors.push(inputError([...path, 'id'], 'No such enrolled dependent on this enrolled plan.'));
        continue;
      }
      decide(plan, dependent, dependent.dependent_id, dependentDecision.eoi_status, [...path, 'eoi_status']);
    }
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  return decided;
}

/** Why a decision on `row` (of enrolled plan `plan`) cannot be recorded, if it cannot. */
function decisionError(
  row: Pick<EnrolledPlanRow, 'eoi_status'>,
  plan: EnrolledPlanRow,
  at: { beforeApproval: boolean; today: string },
  path: (string | number)[],
): InputError | undefined {
  if (row.eoi_status !== 'pending') return inputError(path, `No EOI is pending here (eoi_status is ${row.eoi_status}).`);
  if (!at.beforeApproval && !runsOn(plan, at.today)) {
    return inputError(
      path,
      `This coverage is not in force on or after ${at.today} (${plan.effective_start} to ${plan.effective_end ?? 'open'}): record the decision on the coverage that carries the election now.`,
    );
  }
  return undefined;
}
