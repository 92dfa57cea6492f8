import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import { type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { transactionRetriedOnConflict } from '../../db/transaction-conflicts.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays, compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, PermissionDenied, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { toCents } from '../../shared/money.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { LineChange } from '../benefit-changes/benefit-change-diff.ts';
import { diffCoverage } from '../benefit-changes/benefit-change-diff.ts';
import { endCoverageReplacedBy, findCoverageReplacedBy, coverageItemWithVolumes } from '../coverage/coverage-history.ts';
import { ageOutChange } from '../coverage/age-outs.ts';
import { findCoverageInForce, findCoverageOfPlansOn } from '../coverage/coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { Notifier } from '../notifications/notification.service.ts';
import { disabilityCertifiedThrough, newHireCoverageStart, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import type { LineOfCoverage, PlanRow } from '../plans/plan.table.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import { eventOf } from '../events/event-data.ts';
import type { QualifyingEventRecorder } from '../cobra-events/cobra-event.service.ts';
import type { EventLog, NewEvent } from '../events/event-log.ts';
import { decideVolume, guaranteedIssueCents, INITIAL_ELECTION_REASONS, submissionErrors, type VolumeDecision } from './enrollment-rules.ts';
import { lifeEventErrors, lifeEventRule, type LifeEventReason, type LineBeforeAfter } from './life-events.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import { assertTransition, ENROLLMENT_EVENT_ACTIONS, ENROLLMENT_TRANSITIONS, type EnrollmentAction } from './enrollment-status.ts';
import * as repository from './enrollment.repository.ts';
import { electionPrice } from './enrollment-pricing.ts';
import { designationInputs, money, parsePrimaryCareProvider, primaryCareProviderJson, takesDesignations, toEnrollmentResponse } from './enrollment.response.ts';
import { toBasisPoints } from '../plans/pricing.ts';
import { parseVolumeRules } from '../plans/plan.service.ts';
import type { CreateEnrollmentBody, EnrolledPlanInput, EnrollmentResponse, UpdateEnrollmentBody } from './enrollment.schemas.ts';
import type { EnrolledDependentRow, EnrolledPlanRow, EnrollmentRow, EnrollmentStatus } from './enrollment.table.ts';

/**
 * What approval needs from the benefit-change module, inside the approval's own transaction: the changes
 * recorded, the enrollment's status afterwards, and their events (which approval records with its own).
 */
export interface BenefitChangeRecorder {
  recordChanges(
    trx: Transaction<Database>,
    input: { providerId: string; employerId: string; enrollmentId: string; memberId: string; changes: LineChange[] },
  ): Promise<{ status: 'approved' | 'synced'; events: NewEvent[] }>;
}

type Elections = repository.Elections;

/** One enrolled plan per plan: the latest starting (rows come in any order). */
function latestPerPlan(rows: readonly EnrolledPlanRow[]): EnrolledPlanRow[] {
  const latest = new Map<string, EnrolledPlanRow>();
  for (const row of rows) {
    const kept = latest.get(row.plan_id);
    if (!kept || compareDates(row.effective_start ?? '0001-01-01', kept.effective_start ?? '0001-01-01') > 0) latest.set(row.plan_id, row);
  }
  return [...latest.values()];
}

export class EnrollmentService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #notifier: Notifier;
  readonly #events: EventLog;
  readonly #benefitChanges: BenefitChangeRecorder;
  readonly #qualifyingEvents: QualifyingEventRecorder;
  readonly #jobs: { wake(): void } | undefined;

  constructor(
    db: Kysely<Database>,
    clock: Clock,
    notifier: Notifier,
    events: EventLog,
    benefitChanges: BenefitChangeRecorder,
    qualifyingEvents: QualifyingEventRecorder,
    jobs?: { wake(): void },
  ) {
    this.#db = db;
    this.#clock = clock;
    this.#notifier = notifier;
    this.#events = events;
    this.#benefitChanges = benefitChanges;
    this.#qualifyingEvents = qualifyingEvents;
    this.#jobs = jobs;
  }

  /** `overrideBy`: the admin API key setting `rules_override`, if the body has one (the route checks the role). */
  async createEnrollment(scope: Scope, input: CreateEnrollmentBody, overrideBy: string | null = null): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => this.createEnrollmentIn(trx, scope, input, { overrideBy }));
  }

  /**
   * Creates an enrollment inside the caller's transaction (also used by passive open enrollment). An
   * open_enrollment enrollment is linked to the employer's window open today, if any, until submission
   * links it to the window of the submission day; `windowId` links it to a given window instead.
   */
  async createEnrollmentIn(
    trx: Transaction<Database>,
    scope: Scope,
    input: CreateEnrollmentBody,
    options: { windowId?: string; overrideBy?: string | null } = {},
  ): Promise<EnrollmentResponse> {
    const member = await lockMemberById(trx, scope, input.member);
    if (!member) throw new ValidationFailed([inputError(['member'], 'No such member.')]);
    const now = this.#clock.now().toISOString();
    const openWindow =
      options.windowId === undefined && input.category === 'open_enrollment'
        ? await repository.findOpenWindowOn(trx, member.provider_id, member.employer_id, toDateString(this.#clock.now()))
        : undefined;
    const row: EnrollmentRow = {
      id: newId('enrollment'),
      provider_id: member.provider_id,
      employer_id: member.employer_id,
      member_id: member.id,
      category: input.category,
      // carrier_sync records coverage the carrier already holds: the starting point for later changes.
      status: input.category === 'carrier_sync' ? 'synced' : 'not_started',
      effective_start: input.effective_start ?? null,
      effective_end: input.effective_end ?? null,
      reason: input.reason ?? (input.category === 'carrier_sync' ? 'carrier_sync' : null),
      change_date: input.change_date ?? null,
      qualifying_life_event_documents: JSON.stringify(input.qualifying_life_event_documents ?? []),
      metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
      submitted_at: null,
      approved_at: input.category === 'carrier_sync' ? now : null,
      open_enrollment_window_id: options.windowId ?? openWindow?.id ?? null,
      cancellation_reason: null,
      other_coverage: input.other_coverage ?? null,
      ...rulesOverrideColumns(input.rules_override, options.overrideBy ?? null, now),
      created_at: now,
    };
    await this.#assertDocumentsVisible(trx, member, input.qualifying_life_event_documents ?? []);
    if (row.category === 'carrier_sync' && row.effective_start === null) {
      throw new ValidationFailed([inputError(['effective_start'], 'A carrier_sync enrollment records coverage from a date: give effective_start.')]);
    }
    const elections = await this.#buildElections(trx, row, member, input.enrolled_plans ?? [], input.coverage_waivers ?? []);
    row.effective_start ??= computedStart(row, elections);
    await repository.insertEnrollment(trx, row);
    await repository.insertElections(trx, elections);
    const coverage = row.status === 'synced' ? await this.#coverageBeforeAndAfter(trx, row, elections) : undefined;
    const replaced = coverage ? await endCoverageReplacedBy(trx, coverage) : [];
    await this.#events.recordMany(trx, [eventOf('enrollment', 'created', row), ...replaced.map((enrollment) => eventOf('enrollment', 'updated', enrollment))]);
    return toEnrollmentResponse(row, elections);
  }

  async getEnrollment(scope: Scope, id: string): Promise<EnrollmentResponse> {
    const row = await repository.findEnrollmentById(this.#db, scope, id);
    if (!row) throw new NotFound('enrollment');
    return toEnrollmentResponse(row, await repository.findElections(this.#db, [row.id]));
  }

  async listEnrollments(
    scope: Scope,
    filter: { member?: string | undefined; employer?: string | undefined; status?: EnrollmentStatus | undefined },
    page: PageRequest,
  ): Promise<Page<EnrollmentResponse>> {
    const rows = await repository.listEnrollments(this.#db, scope, { memberId: filter.member, employerId: filter.employer, status: filter.status }, page);
    const elections = await repository.findElections(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return { ...rows, results: rows.results.map((row) => toEnrollmentResponse(row, elections)) };
  }

  async updateEnrollment(scope: Scope, id: string, input: UpdateEnrollmentBody, overrideBy: string | null = null): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => {
      const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
      if (!locked) throw new NotFound('enrollment');
      const { member, enrollment: current } = locked;
      const plans = input.enrolled_plans;
      if (plans !== undefined && plans.length > 0 && plans.every((plan) => 'id' in plan)) {
        return this.#decideEoi(trx, current, member, input);
      }
      if (current.status !== 'not_started') {
        throw new InvalidState(`An enrollment can be edited only while not_started; this one is ${current.status}. Reopen a pending one first.`);
      }
      const updated: EnrollmentRow = {
        ...current,
        effective_start: input.effective_start !== undefined ? input.effective_start : current.effective_start,
        effective_end: input.effective_end !== undefined ? input.effective_end : current.effective_end,
        reason: input.reason !== undefined ? input.reason : current.reason,
        change_date: input.change_date !== undefined ? input.change_date : current.change_date,
        qualifying_life_event_documents:
          input.qualifying_life_event_documents !== undefined ? JSON.stringify(input.qualifying_life_event_documents) : current.qualifying_life_event_documents,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
        other_coverage: input.other_coverage !== undefined ? input.other_coverage : current.other_coverage,
        ...(input.rules_override !== undefined ? rulesOverrideColumns(input.rules_override, overrideBy, this.#clock.now().toISOString()) : {}),
      };
      await this.#assertDocumentsVisible(trx, member, input.qualifying_life_event_documents ?? []);
      const stored = await repository.findElections(trx, [id]);
      const datesChanged = updated.effective_start !== current.effective_start || updated.effective_end !== current.effective_end;
      let elections: Elections = stored;
      if (plans !== undefined || input.coverage_waivers !== undefined || datesChanged) {
        // Elections are replaced whole; unchanged ones are rebuilt from what is stored, so they are priced anew.
        const planInputs = (plans as EnrolledPlanInput[] | undefined) ?? this.#storedPlanInputs(stored);
        const waiverInputs =
          input.coverage_waivers ??
          stored.waivers.map((waiver) => ({
            line_of_coverage: waiver.line_of_coverage as LineOfCoverage,
            reason: waiver.reason as NonNullable<UpdateEnrollmentBody['coverage_waivers']>[number]['reason'],
            member: waiver.member_id,
            dependent: waiver.dependent_id,
          }));
        elections = await this.#buildElections(trx, updated, member, planInputs, waiverInputs);
        updated.effective_start ??= computedStart(updated, elections);
        await repository.replaceElections(trx, id, elections);
      }
      await repository.updateEnrollmentFields(trx, updated);
      await this.#events.record(trx, eventOf('enrollment', 'updated', updated));
      return toEnrollmentResponse(updated, elections);
    });
  }

  /** save_and_submit: every rule of API.md section 6, then pending; enrollment_submitted to the employer. */
  async submitEnrollment(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => this.submitEnrollmentIn(trx, scope, id));
  }

  /** save_and_submit inside the caller's transaction (also used by passive open enrollment). */
  async submitEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse> {
    const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
    if (!locked) throw new NotFound('enrollment');
    const { member, enrollment } = locked;
    assertTransition('save_and_submit', enrollment.status);
    const elections = await repository.findElections(trx, [id]);
    const { errors: windowErrors, windowId } = await this.#windowOfSubmission(trx, enrollment, elections);
    const errors = [...windowErrors, ...(await this.#submissionErrors(trx, enrollment, member, elections))];
    if (errors.length > 0) throw new ValidationFailed(errors, 'The enrollment cannot be submitted');
    const submitted = { ...enrollment, status: 'pending' as const, submitted_at: this.#clock.now().toISOString(), open_enrollment_window_id: windowId };
    await this.#transition(trx, enrollment, 'save_and_submit', { submitted_at: submitted.submitted_at, open_enrollment_window_id: windowId });
    // The status change's event goes in with the notification's, in one statement.
    const submittedEvent = eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.save_and_submit, submitted);
    await this.#notifier.record(
      trx,
      {
        providerId: enrollment.provider_id,
        employerId: enrollment.employer_id,
        type: 'enrollment_submitted',
        relatedObjectType: 'enrollment',
        relatedObjectId: enrollment.id,
        owner: 'employer',
        payload: { enrollment: enrollment.id, member: enrollment.member_id, employer: enrollment.employer_id },
      },
      [submittedEvent],
    );
    return toEnrollmentResponse(submitted, elections);
  }

  /**
   * An open_enrollment enrollment belongs to the employer's active window whose dates contain the day of
   * submission (a passive one, to the window completing it), and may elect only that window's plans.
   */
  async #windowOfSubmission(trx: Executor, enrollment: EnrollmentRow, elections: Elections): Promise<{ errors: InputError[]; windowId: string | null }> {
    if (enrollment.category !== 'open_enrollment') return { errors: [], windowId: enrollment.open_enrollment_window_id };
    const today = toDateString(this.#clock.now());
    const window =
      enrollment.reason === 'passive_open_enrollment' && enrollment.open_enrollment_window_id !== null
        ? await repository.findWindowById(trx, enrollment.open_enrollment_window_id)
        : await repository.findOpenWindowOn(trx, enrollment.provider_id, enrollment.employer_id, today);
    if (!window) {
      return {
        errors: [inputError(['category'], `No open enrollment window of the employer is active on ${today}: outside a window, changes are qle enrollments.`)],
        windowId: null,
      };
    }
    const offered = new Set(window.planIds);
    const errors = elections.plans.flatMap((plan) =>
      offered.has(plan.plan_id)
        ? []
        : [inputError(['enrolled_plans', plan.position, 'plan'], `The plan is not offered in open enrollment window ${window.id}.`)],
    );
    // Open enrollment elections take effect on the window's renewal date, the first day of the new plan year.
    if (window.renewalDate !== null && enrollment.effective_start !== null && enrollment.effective_start !== window.renewalDate) {
      errors.push(inputError(['effective_start'], `Open enrollment elections start on the window's renewal_date, ${window.renewalDate}.`));
    }
    return { errors, windowId: window.id };
  }

  async reopenEnrollment(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return this.#simpleTransition(scope, id, 'reopen');
  }

  async cancelEnrollment(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return this.#simpleTransition(scope, id, 'cancel');
  }

  /**
   * Endpoint 2: pending → approved. Ends the coverage the enrollment replaces, records one benefit change per
   * line it touches (handed to the carrier by the benefit-change module) and tells the member. The status
   * change is a conditional update after locking the member, so concurrent approvals of one enrollment (or two
   * enrollments of one member) never both apply.
   */
  async approveEnrollment(scope: Scope, id: string): Promise<EnrollmentResponse> {
    const response = await transactionRetriedOnConflict(this.#db, async (trx) => this.approveEnrollmentIn(trx, scope, id));
    this.#jobs?.wake();
    return response;
  }

  /**
   * Approval inside the caller's transaction; the caller wakes the job worker once it has committed. Every
   * event of the approval (`withEvents` first: the caller's own) is recorded in one statement, with the
   * notification.
   */
  async approveEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string, withEvents: readonly NewEvent[] = []): Promise<EnrollmentResponse> {
    const enrollment = await repository.findEnrollmentById(trx, scope, id);
    if (!enrollment) throw new NotFound('enrollment');
    // The member first, as every path that changes a member's enrollments locks them (so approvals of two
    // enrollments of one member run one after the other). The enrollment row itself needs no lock: the
    // conditional status update below refuses it if another request moved it since it was read, and a
    // pending enrollment's fields do not change (EOI decisions lock the row, so the update waits for them).
    const member = await lockMemberById(trx, scope, enrollment.member_id);
    if (!member) throw new NotFound('enrollment');
    return this.#approveLockedIn(trx, enrollment, await repository.findElections(trx, [id]), withEvents);
  }

  /**
   * Approves `enrollment` (pending, as stored) with its `elections` (as stored), its member locked by the caller:
   * approveEnrollmentIn after its reads, and the engine's own approvals of what it has just stored
   * (#continueCoverageIn), which need not read back the rows they hold.
   */
  async #approveLockedIn(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    elections: Elections,
    withEvents: readonly NewEvent[],
  ): Promise<EnrollmentResponse> {
    const approvedAt = this.#clock.now().toISOString();
    await this.#transition(trx, enrollment, 'approve', { approved_at: approvedAt });
    const coverage = await this.#coverageBeforeAndAfter(trx, enrollment, elections);
    const replaced = await endCoverageReplacedBy(trx, coverage);
    const { status, events: changeEvents } = await this.#benefitChanges.recordChanges(trx, {
      providerId: enrollment.provider_id,
      employerId: enrollment.employer_id,
      enrollmentId: enrollment.id,
      memberId: enrollment.member_id,
      changes: diffCoverage(coverage.previous, coverage.next, coverage.waivedLines, coverage.start),
    });
    // COBRA (29 U.S.C. 1163): group health coverage this approval ends for a qualifying event is recorded with it.
    const cobraEvents = await this.#qualifyingEvents.recordCoverageLoss(trx, {
      enrollment,
      before: coverage.previous,
      after: coverage.next,
      firstDayWithout: coverage.start,
    });
    const approved = { ...enrollment, status: 'approved' as const, approved_at: approvedAt };
    const events = [
      ...withEvents,
      eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.approve, approved),
      ...replaced.map((other) => eventOf('enrollment', 'updated', other)),
      ...changeEvents,
      ...cobraEvents,
      ...(status === 'synced' ? [eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.complete, { ...approved, status })] : []),
    ];
    await this.#notifier.record(
      trx,
      {
        providerId: enrollment.provider_id,
        employerId: enrollment.employer_id,
        type: 'enrollment_approved',
        relatedObjectType: 'enrollment',
        relatedObjectId: enrollment.id,
        owner: 'member',
        payload: { enrollment: enrollment.id, member: enrollment.member_id, employer: enrollment.employer_id },
      },
      events,
    );
    return toEnrollmentResponse({ ...approved, status }, elections);
  }

  /**
   * Ends dependents' coverage when they age out (daily sweep): `leaving` maps plans to the dependents whose
   * coverage on them ends the day before `firstDayOut` (the member's coverage on those plans in force on
   * `firstDayOut` is what changes). Through the engine, like any change: a
   * `qle` enrollment with reason `dependent_aged_out` starting `firstDayOut` re-elects each of those plans
   * with the dependents who stay (same plan, volumes, providers, end), priced again for the smaller tier,
   * recorded as submitted and approved. Approval ends the old coverage the day before and records a `change`
   * (`dependent_change`, and `contribution_change` when the price moved) per line, and the COBRA event of a
   * child ceasing to be a dependent (29 U.S.C. 1163(5)). Decides again under the caller's lock on the member:
   * coverage no longer in force on `firstDayOut`, or a dependent no longer on it, is left alone. Returns
   * whether it changed anything. The caller wakes the job worker after commit.
   */
  async endDependentCoverageIn(
    trx: Transaction<Database>,
    member: MemberRow,
    firstDayOut: string,
    leaving: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<boolean> {
    const current = latestPerPlan(await findCoverageOfPlansOn(trx, member.id, [...leaving.keys()], firstDayOut));
    const stored = await repository.findEnrolledDependentsOf(
      trx,
      current.map((row) => row.id),
    );
    const { affected, staying } = ageOutChange(current, stored, leaving);
    if (affected.length === 0) return false;
    const storedDesignations = await repository.findDesignationsOf(
      trx,
      current.map((row) => row.id),
    );
    const row = serviceEnrollmentRow(member, {
      status: 'pending',
      reason: 'dependent_aged_out',
      changeDate: firstDayOut,
      effectiveStart: firstDayOut,
      now: this.#clock.now().toISOString(),
    });
    const stayingOnly: Elections = { plans: affected, dependents: staying, waivers: [], designations: storedDesignations, lines: new Map() };
    // The same coverage goes on: volumes and EOI decisions as they were (and priced on them).
    await this.#continueCoverageIn(trx, row, member, stayingOnly, affected, (plan, dependentId) =>
      volumeColumnsOf(rowOfPerson(stayingOnly, plan, dependentId)),
    );
    return true;
  }

  /** Wakes the job worker (after a caller's transaction that approved enrollments has committed). */
  wakeJobs(): void {
    this.#jobs?.wake();
  }

  async #simpleTransition(scope: Scope, id: string, action: EnrollmentAction): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => {
      const enrollment = await repository.lockEnrollmentById(trx, scope, id);
      if (!enrollment) throw new NotFound('enrollment');
      // A reopened enrollment is no longer submitted.
      const set = action === 'reopen' ? { submitted_at: null } : {};
      await this.#transition(trx, enrollment, action, set);
      const moved = { ...enrollment, ...set, status: ENROLLMENT_TRANSITIONS[action].to };
      await this.#events.record(trx, eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS[action], moved));
      return toEnrollmentResponse(moved, await repository.findElections(trx, [id]));
    });
  }

  /** Checks the action against the status machine, then applies it as a conditional update. */
  async #transition(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    action: EnrollmentAction,
    set: { submitted_at?: string | null; approved_at?: string; open_enrollment_window_id?: string | null } = {},
  ): Promise<void> {
    const to = assertTransition(action, enrollment.status);
    const won = await repository.transitionEnrollment(trx, enrollment.id, ENROLLMENT_TRANSITIONS[action].from, to, set);
    if (!won) throw new InvalidState(`The enrollment changed status while this request ran; it is no longer ${enrollment.status}.`);
  }

  /**
   * EOI decisions on enrolled plans or dependents (API.md section 6). Before approval they change the election
   * in place: an approval puts the requested volume in force, a denial keeps the guaranteed amount, and plans
   * rated per unit of volume are priced again. After approval (approved or synced), on coverage still running
   * on the decision date: a denial is recorded in place (nothing changes for the carrier), and an approval
   * raises the volume from the decision date (#raiseVolumesIn).
   */
  async #decideEoi(trx: Transaction<Database>, enrollment: EnrollmentRow, member: MemberRow, input: UpdateEnrollmentBody): Promise<EnrollmentResponse> {
    const beforeApproval = enrollment.status === 'not_started' || enrollment.status === 'pending';
    if (!beforeApproval && enrollment.status !== 'approved' && enrollment.status !== 'synced') {
      throw new InvalidState(`EOI decisions are recorded on enrollments not_started, pending, approved or synced; this one is ${enrollment.status}.`);
    }
    const others = Object.keys(input).filter((key) => key !== 'enrolled_plans' && key !== 'metadata');
    if (others.length > 0) {
      throw new ValidationFailed(others.map((key) => inputError([key], 'EOI decisions cannot be combined with other changes.')));
    }
    const elections = await repository.findElections(trx, [enrollment.id]);
    const plansById = new Map(elections.plans.map((plan) => [plan.id, plan]));
    const dependentsById = new Map(elections.dependents.map((dependent) => [dependent.id, dependent]));
    const now = this.#clock.now().toISOString();
    const today = toDateString(this.#clock.now());
    const errors: InputError[] = [];
    const decided = new Map<EnrolledPlanRow, Map<string | null, 'approved' | 'denied'>>();
    const decide = (
      plan: EnrolledPlanRow,
      row: EnrolledPlanRow | EnrolledDependentRow,
      dependentId: string | null,
      decision: 'approved' | 'denied',
      path: (string | number)[],
    ) => {
      if (row.eoi_status !== 'pending') {
        errors.push(inputError(path, `No EOI is pending here (eoi_status is ${row.eoi_status}).`));
        return;
      }
      if (!beforeApproval && !runsOn(plan, today)) {
        errors.push(
          inputError(
            path,
            `This coverage is not in force on or after ${today} (${plan.effective_start} to ${plan.effective_end ?? 'open'}): record the decision on the coverage that carries the election now.`,
          ),
        );
        return;
      }
      decided.set(plan, (decided.get(plan) ?? new Map<string | null, 'approved' | 'denied'>()).set(dependentId, decision));
    };
    const decisions = (input.enrolled_plans ?? []) as {
      id: string;
      eoi_status?: 'approved' | 'denied';
      enrolled_dependents?: { id: string; eoi_status: 'approved' | 'denied' }[];
    }[];
    for (const [index, decision] of decisions.entries()) {
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
    // The decisions, on the rows named: before approval the requested volume goes in force at once; after, the
    // rows keep the volume in force on their dates and the raised volume goes on from the decision date.
    const decidedVolume = (row: EnrolledPlanRow | EnrolledDependentRow, decision: 'approved' | 'denied'): VolumeColumns =>
      decision === 'denied'
        ? { ...volumeColumnsOf(row), eoi_status: 'denied', volume_approved_at: null }
        : {
            ...volumeColumnsOf(row),
            eoi_status: 'approved',
            volume_approved_at: now,
            volume_cents: beforeApproval ? row.requested_volume_cents : row.volume_cents,
          };
    for (const [plan, byPerson] of decided) {
      for (const [dependentId, decision] of byPerson) {
        const row = rowOfPerson(elections, plan, dependentId);
        const set = decidedVolume(row, decision);
        const columns = { volume_cents: set.volume_cents, eoi_status: set.eoi_status, volume_approved_at: set.volume_approved_at };
        Object.assign(row, columns);
        await (dependentId === null
          ? repository.updateEnrolledPlanVolume(trx, row.id, columns)
          : repository.updateEnrolledDependentVolume(trx, row.id, columns));
      }
    }
    if (beforeApproval) {
      await this.#repriceIn(trx, enrollment, member, elections, [...decided.keys()]);
    } else {
      const approvals = [...decided].filter(([, byPerson]) => [...byPerson.values()].includes('approved'));
      if (approvals.length > 0)
        await this.#raiseVolumesIn(
          trx,
          enrollment,
          member,
          elections,
          approvals.map(([plan, byPerson]) => ({ plan, byPerson })),
          today,
        );
    }
    const updated = { ...enrollment, metadata: JSON.stringify(mergeMetadata(parseMetadata(enrollment.metadata), input.metadata)) };
    await repository.updateEnrollmentFields(trx, updated);
    await this.#events.record(trx, eventOf('enrollment', 'updated', updated));
    return toEnrollmentResponse(updated, await repository.findElections(trx, [enrollment.id]));
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
    const storedVolume = (plan: EnrolledPlanRow, dependentId: string | null) => volumeColumnsOf(rowOfPerson(stored, plan, dependentId));
    const priced = await this.#reelect(trx, enrollment, member, stored, chosen, (plan) => plan.effective_start, storedVolume);
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
   * that is later): per first day, an enrollment the service records continues the decided elections (same
   * plan, persons, designations, providers, end; the original's category, reason and change date) with the
   * approved volumes in force, priced again, submitted and approved. Approval ends the decided coverage the day
   * before and sends the carrier a `change` with `volume_change` (and `contribution_change` when the price
   * moved). The caller holds the member's lock.
   */
  async #raiseVolumesIn(
    trx: Transaction<Database>,
    enrollment: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    approvals: readonly { plan: EnrolledPlanRow; byPerson: ReadonlyMap<string | null, 'approved' | 'denied'> }[],
    today: string,
  ): Promise<void> {
    const now = this.#clock.now().toISOString();
    const firstDay = (plan: EnrolledPlanRow) => (plan.effective_start !== null && compareDates(plan.effective_start, today) > 0 ? plan.effective_start : today);
    for (const [start, group] of Map.groupBy(approvals, ({ plan }) => firstDay(plan))) {
      const row: EnrollmentRow = {
        ...serviceEnrollmentRow(member, { status: 'pending', reason: enrollment.reason ?? '', changeDate: today, effectiveStart: start, now }),
        category: enrollment.category,
        reason: enrollment.reason,
        change_date: enrollment.change_date,
        other_coverage: enrollment.other_coverage,
      };
      const raised = (plan: EnrolledPlanRow, dependentId: string | null): VolumeColumns => {
        const before = rowOfPerson(stored, plan, dependentId);
        const decision = group.find((entry) => entry.plan === plan)!.byPerson.get(dependentId);
        return decision === 'approved' ? { ...volumeColumnsOf(before), volume_cents: before.requested_volume_cents } : volumeColumnsOf(before);
      };
      await this.#continueCoverageIn(
        trx,
        row,
        member,
        stored,
        group.map(({ plan }) => plan),
        raised,
      );
    }
  }

  /**
   * Coverage the service continues from the enrollment `row` starts (pending, inserted here): the stored
   * elections `plans` elected again with the volumes `volumeOf` gives, priced on them, keeping cards and
   * client-given prices, submitted and approved (which ends the coverage they continue the day before and
   * records the benefit changes). The caller holds the member's lock and wakes the job worker after commit.
   */
  async #continueCoverageIn(
    trx: Transaction<Database>,
    row: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    plans: readonly EnrolledPlanRow[],
    volumeOf: (plan: EnrolledPlanRow, dependentId: string | null) => VolumeColumns,
  ): Promise<void> {
    const elections = await this.#reelect(trx, row, member, stored, plans, () => row.effective_start, volumeOf);
    keepCardsAndClientPrices(elections, plans, stored.dependents);
    await repository.insertEnrollment(trx, row);
    await repository.insertElections(trx, elections);
    const recorded = [
      eventOf('enrollment', 'created', { ...row, status: 'not_started' as const }),
      eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.save_and_submit, row),
    ];
    // Approved as stored: the rows just written, the member locked by the caller.
    await this.#approveLockedIn(trx, row, elections, recorded);
  }

  /**
   * The stored elections `plans` elected again for `enrollment` (their persons, designations, providers and
   * end; the start `startOf` gives), with the volumes `volumeOf` gives, priced on them.
   */
  async #reelect(
    trx: Executor,
    enrollment: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    plans: readonly EnrolledPlanRow[],
    startOf: (plan: EnrolledPlanRow) => string | null,
    volumeOf: (plan: EnrolledPlanRow, dependentId: string | null) => VolumeColumns,
  ): Promise<Elections> {
    const inputs = this.#storedPlanInputs({ ...stored, plans: [...plans] }).map((input, index) => ({
      ...input,
      effective_start: startOf(plans[index]!),
      effective_end: plans[index]!.effective_end,
    }));
    return this.#buildElections(trx, enrollment, member, inputs, [], (index, dependentId) => volumeOf(plans[index]!, dependentId));
  }

  async #assertDocumentsVisible(trx: Executor, member: MemberRow, ids: readonly string[]): Promise<void> {
    const visible = await repository.findDocumentIds(trx, member.provider_id, member.employer_id, ids);
    const errors = ids.flatMap((id, index) => (visible.has(id) ? [] : [inputError(['qualifying_life_event_documents', index], 'No such document.')]));
    if (errors.length > 0) throw new ValidationFailed(errors);
  }

  /**
   * Enrolled plans, dependents and waivers as rows, priced (API.md section 6): the tier from the dependents,
   * the premium from the plan's rates, the employer share from the member's plan configuration. Plans
   * without rates take the client's figures as given. References must exist; eligibility waits for submit.
   */
  async #buildElections(
    trx: Executor,
    enrollment: EnrollmentRow,
    member: MemberRow,
    planInputs: readonly EnrolledPlanInput[],
    waiverInputs: readonly NonNullable<CreateEnrollmentBody['coverage_waivers']>[number][],
    kept?: KeptVolumes,
  ): Promise<Elections> {
    const plans = new Map(
      (
        await repository.findPlans(
          trx,
          member.provider_id,
          planInputs.map((plan) => plan.plan),
        )
      ).map((plan) => [plan.id, plan]),
    );
    const dependentIds = [
      ...planInputs.flatMap((plan) => (plan.enrolled_dependents ?? []).map((d) => d.dependent)),
      ...waiverInputs.flatMap((w) => (w.dependent ? [w.dependent] : [])),
    ];
    const dependents = new Map((await repository.findDependents(trx, member.provider_id, dependentIds)).map((dependent) => [dependent.id, dependent]));
    const configurations = Map.groupBy(await repository.findConfigurations(trx, member.provider_id, [...plans.keys()]), (c) => c.plan_id);
    const subclassIds = await repository.findMemberSubclassIds(trx, member.id);
    const beneficiaries = new Map(
      (
        await repository.findBeneficiaries(
          trx,
          member.provider_id,
          planInputs.flatMap((plan) => (plan.beneficiary_designations ?? []).map((d) => d.beneficiary)),
        )
      ).map((b) => [b.id, b]),
    );
    const errors: InputError[] = [];
    const now = this.#clock.now().toISOString();
    const elections: Elections = { plans: [], dependents: [], waivers: [], designations: [], lines: new Map(), planRows: plans };
    const lateEntrant = kept === undefined ? await this.#lateEntrantLines(trx, enrollment, member, planInputs, plans) : new Set<number>();

    planInputs.forEach((input, index) => {
      const plan = plans.get(input.plan);
      if (!plan || plan.employer_id !== member.employer_id) {
        errors.push(inputError(['enrolled_plans', index, 'plan'], "No such plan for the member's employer."));
        return;
      }
      const covered: DependentRow[] = [];
      (input.enrolled_dependents ?? []).forEach((dependentInput, dependentIndex) => {
        const dependent = dependents.get(dependentInput.dependent);
        if (!dependent || dependent.member_id !== member.id) {
          errors.push(inputError(['enrolled_plans', index, 'enrolled_dependents', dependentIndex, 'dependent'], 'No such dependent of the member.'));
        } else {
          covered.push(dependent);
        }
      });
      // A new hire's coverage starts by the plan configuration's rule when no date is given.
      const configuration = isNewHireStart(enrollment) ? selectPlanConfiguration(subclassIds, configurations.get(plan.id) ?? []) : undefined;
      const ruleStart = configuration && newHireCoverageStart(member.hire_date, configuration.waiting_period_days, configuration.coverage_start_rule);
      const start = input.effective_start ?? enrollment.effective_start ?? ruleStart ?? plan.effective_start;
      const end = input.effective_end ?? enrollment.effective_end ?? plan.effective_end;
      // Volumes first: a plan rated per unit of volume prices the volume in force.
      const rules = parseVolumeRules(plan.volume_rules);
      const volumeOf = (requested: string | null | undefined, person: 'member' | 'spouse' | 'child', dependentId: string | null): VolumeColumns =>
        kept?.(index, dependentId) ??
        volumeColumns(
          decideVolume(requested ? toCents(requested) : null, guaranteedIssueCents(plan.guaranteed_issue_volume_cents, rules, person), lateEntrant.has(index)),
        );
      const planVolume = volumeOf(input.requested_volume, 'member', null);
      const dependentVolumes = new Map(
        (input.enrolled_dependents ?? []).flatMap((dependentInput) => {
          const dependent = covered.find((d) => d.id === dependentInput.dependent);
          return dependent
            ? [
                [
                  dependent.id,
                  volumeOf(dependentInput.requested_volume, isChildLike(dependent.member_relationship) ? 'child' : 'spouse', dependent.id),
                ] as const,
              ]
            : [];
        }),
      );
      const volumesInForce = { member: planVolume.volume_cents, dependents: new Map([...dependentVolumes].map(([id, volume]) => [id, volume.volume_cents])) };
      const price = electionPrice(
        plan,
        configurations.get(plan.id) ?? [],
        subclassIds,
        member,
        covered,
        start,
        volumesInForce,
        input,
        ['enrolled_plans', index],
        errors,
      );
      const enrolledPlanId = newId('enrolled_plan');
      elections.plans.push({
        id: enrolledPlanId,
        provider_id: member.provider_id,
        enrollment_id: enrollment.id,
        member_id: member.id,
        plan_id: plan.id,
        position: index,
        effective_start: start,
        effective_end: end,
        premium_cents: price.premium,
        employer_contribution_cents: price.employer,
        member_contribution_cents: price.member,
        payroll_provider_external_id: input.payroll_provider_external_id ?? null,
        ...planVolume,
        primary_care_provider: primaryCareProviderJson(input.primary_care_provider),
        member_id_card_id: null,
        created_at: now,
      });
      elections.lines.set(enrolledPlanId, plan.line_of_coverage);
      const designations = input.beneficiary_designations ?? [];
      if (designations.length > 0 && !takesDesignations(plan.line_of_coverage)) {
        errors.push(
          inputError(
            ['enrolled_plans', index, 'beneficiary_designations'],
            `Only life and accidental_death plans name beneficiaries; this plan is ${plan.line_of_coverage}.`,
          ),
        );
      } else {
        const named = new Set<string>();
        designations.forEach((designation, designationIndex) => {
          const path = ['enrolled_plans', index, 'beneficiary_designations', designationIndex];
          const beneficiary = beneficiaries.get(designation.beneficiary);
          if (!beneficiary || beneficiary.member_id !== member.id) {
            errors.push(inputError([...path, 'beneficiary'], 'No such beneficiary of the member.'));
            return;
          }
          const key = `${designation.designation}|${designation.beneficiary}`;
          if (named.has(key)) errors.push(inputError([...path, 'beneficiary'], `The beneficiary is named twice as ${designation.designation}.`));
          named.add(key);
          const basisPoints = toBasisPoints(designation.percentage);
          if (basisPoints === 0) errors.push(inputError([...path, 'percentage'], 'A share must be more than 0.'));
          elections.designations.push({
            id: newId('beneficiary_designation'),
            provider_id: member.provider_id,
            enrolled_plan_id: enrolledPlanId,
            beneficiary_id: designation.beneficiary,
            designation: designation.designation,
            percentage_basis_points: basisPoints,
            position: designationIndex,
          });
        });
      }
      (input.enrolled_dependents ?? []).forEach((dependentInput, dependentIndex) => {
        const volume = dependentVolumes.get(dependentInput.dependent);
        if (volume === undefined) return;
        elections.dependents.push({
          id: newId('enrolled_dependent'),
          provider_id: member.provider_id,
          enrolled_plan_id: enrolledPlanId,
          dependent_id: dependentInput.dependent,
          position: dependentIndex,
          ...volume,
          primary_care_provider: primaryCareProviderJson(dependentInput.primary_care_provider),
          member_id_card_id: null,
          created_at: now,
        });
      });
    });

    waiverInputs.forEach((waiver, index) => {
      if (waiver.member && waiver.member !== member.id)
        errors.push(inputError(['coverage_waivers', index, 'member'], "A waiver names the enrollment's own member."));
      const dependent = waiver.dependent ? dependents.get(waiver.dependent) : undefined;
      if (waiver.dependent && (!dependent || dependent.member_id !== member.id)) {
        errors.push(inputError(['coverage_waivers', index, 'dependent'], 'No such dependent of the member.'));
      }
      elections.waivers.push({
        id: newId('coverage_waiver'),
        enrollment_id: enrollment.id,
        position: index,
        line_of_coverage: waiver.line_of_coverage,
        reason: waiver.reason,
        member_id: waiver.dependent ? null : member.id,
        dependent_id: waiver.dependent ?? null,
      });
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
    return elections;
  }

  /**
   * The elections (by index) whose persons are late entrants on a plan that asks EOI of them for any amount
   * (volume_rules.late_entrant_eoi): outside the member's initial window (INITIAL_ELECTION_REASONS; a
   * carrier_sync only records coverage) and with no coverage on the plan's line the day before it starts.
   */
  async #lateEntrantLines(
    trx: Executor,
    enrollment: EnrollmentRow,
    member: MemberRow,
    planInputs: readonly EnrolledPlanInput[],
    plans: ReadonlyMap<string, PlanRow>,
  ): Promise<Set<number>> {
    const late = new Set<number>();
    if (enrollment.category === 'carrier_sync' || (enrollment.category === 'qle' && INITIAL_ELECTION_REASONS.includes(enrollment.reason ?? ''))) return late;
    for (const [index, input] of planInputs.entries()) {
      const plan = plans.get(input.plan);
      if (!plan?.volume_rules || !parseVolumeRules(plan.volume_rules)?.late_entrant_eoi) continue;
      const start = input.effective_start ?? enrollment.effective_start ?? plan.effective_start;
      const before = await findCoverageInForce(trx, member.id, [plan.line_of_coverage], addDays(start, -1), enrollment.id);
      if (before.length === 0) late.add(index);
    }
    return late;
  }

  #storedPlanInputs(stored: Elections): EnrolledPlanInput[] {
    return stored.plans.map((plan) => ({
      plan: plan.plan_id,
      beneficiary_designations: designationInputs(stored.designations, plan.id),
      enrolled_dependents: stored.dependents
        .filter((dependent) => dependent.enrolled_plan_id === plan.id)
        .map((dependent) => ({
          dependent: dependent.dependent_id,
          primary_care_provider: parsePrimaryCareProvider(dependent.primary_care_provider),
          requested_volume: money(dependent.requested_volume_cents),
        })),
      primary_care_provider: parsePrimaryCareProvider(plan.primary_care_provider),
      payroll_provider_external_id: plan.payroll_provider_external_id,
      requested_volume: money(plan.requested_volume_cents),
    }));
  }

  async #submissionErrors(trx: Executor, enrollment: EnrollmentRow, member: MemberRow, elections: Elections): Promise<InputError[]> {
    const planIds = elections.plans.map((plan) => plan.plan_id);
    const plans = new Map((await repository.findPlans(trx, member.provider_id, planIds)).map((plan) => [plan.id, plan]));
    const configurations = Map.groupBy(await repository.findConfigurations(trx, member.provider_id, planIds), (c) => c.plan_id);
    const dependentIds = [...elections.dependents.map((d) => d.dependent_id), ...elections.waivers.flatMap((w) => (w.dependent_id ? [w.dependent_id] : []))];
    const dependents = new Map((await repository.findDependents(trx, member.provider_id, dependentIds)).map((d) => [d.id, d]));
    const dependentFacts = (id: string) => {
      const dependent = dependents.get(id);
      return dependent
        ? {
            id,
            memberId: dependent.member_id,
            relationship: dependent.member_relationship,
            dob: dependent.dob,
            disabilityCertifiedThrough: disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on),
          }
        : undefined;
    };
    const today = toDateString(this.#clock.now());
    const rule = enrollment.category === 'qle' ? lifeEventRule(enrollment.reason) : undefined;
    const lifeEvent =
      rule && enrollment.change_date !== null && enrollment.rules_override_reason === null
        ? lifeEventErrors({
            reason: enrollment.reason as LifeEventReason,
            changeDate: enrollment.change_date,
            otherCoverage: enrollment.other_coverage,
            today,
            hireDate: member.hire_date,
            effectiveStart: enrollment.effective_start,
            lines: await this.#linesBeforeAndAfter(trx, enrollment, elections, plans, dependents, enrollment.effective_start ?? today),
          })
        : [];
    return [
      ...lifeEvent,
      ...submissionErrors({
        member: {
          id: member.id,
          employerId: member.employer_id,
          hireDate: member.hire_date,
          terminationDate: member.termination_date,
          subclassIds: await repository.findMemberSubclassIds(trx, member.id),
          hoursWorked: member.hours_worked,
          employmentStatus: member.employment_status,
        },
        newHireStart: isNewHireStart(enrollment),
        enrollment: {
          category: enrollment.category,
          reason: enrollment.reason,
          changeDate: enrollment.change_date,
          effectiveStart: enrollment.effective_start,
        },
        plans: elections.plans.map((elected) => {
          const plan = plans.get(elected.plan_id);
          return {
            plan: plan && {
              id: plan.id,
              employerId: plan.employer_id,
              lineOfCoverage: plan.line_of_coverage,
              effectiveStart: plan.effective_start,
              effectiveEnd: plan.effective_end,
              requiresPrimaryCareProvider: Boolean(plan.requires_primary_care_provider),
              configurations: configurations.get(plan.id) ?? [],
              volumeRules: parseVolumeRules(plan.volume_rules),
              rateBasis: plan.rate_basis,
            },
            coverageStart: elected.effective_start,
            coverageEnd: elected.effective_end,
            hasPrimaryCareProvider: elected.primary_care_provider !== null,
            dependents: elections.dependents
              .filter((d) => d.enrolled_plan_id === elected.id)
              .map((d) => ({ dependent: dependentFacts(d.dependent_id), requestedVolumeCents: d.requested_volume_cents })),
            requestedVolumeCents: elected.requested_volume_cents,
            designations: elections.designations
              .filter((d) => d.enrolled_plan_id === elected.id)
              .map((d) => ({ designation: d.designation, basisPoints: d.percentage_basis_points })),
          };
        }),
        waivers: elections.waivers.map((waiver) => ({
          lineOfCoverage: waiver.line_of_coverage as LineOfCoverage,
          dependentId: waiver.dependent_id,
          dependent: waiver.dependent_id ? dependentFacts(waiver.dependent_id) : undefined,
        })),
      }),
    ];
  }

  /**
   * Each line the enrollment elects or waives (for the member), with the coverage in force on it on `start`
   * (another enrollment's) and what the enrollment makes of it: what a life event rule judges.
   */
  async #linesBeforeAndAfter(
    trx: Executor,
    enrollment: EnrollmentRow,
    elections: Elections,
    plans: ReadonlyMap<string, { id: string; line_of_coverage: LineOfCoverage; previous_plan_id: string | null }>,
    elected: ReadonlyMap<string, Pick<DependentRow, 'member_relationship'>>,
    start: string,
  ): Promise<LineBeforeAfter[]> {
    const electedPlans = elections.plans.flatMap((row) => {
      const plan = plans.get(row.plan_id);
      return plan ? [{ row, plan }] : [];
    });
    const waived = elections.waivers.filter((waiver) => waiver.dependent_id === null);
    const lines = [
      ...new Set([...electedPlans.map(({ plan }) => plan.line_of_coverage), ...waived.map((waiver) => waiver.line_of_coverage as LineOfCoverage)]),
    ];
    const inForce = await findCoverageInForce(trx, enrollment.member_id, lines, start, enrollment.id);
    const beforeDependents = await repository.findEnrolledDependentsOf(
      trx,
      inForce.map((row) => row.id),
    );
    // The elected dependents are loaded already; only those covered before and no longer elected are read.
    const unknown = beforeDependents.map((d) => d.dependent_id).filter((id) => !elected.has(id));
    const relationships = new Map([
      ...[...elected].map(([id, dependent]) => [id, dependent.member_relationship] as const),
      ...(await repository.findDependents(trx, enrollment.provider_id, unknown)).map((d) => [d.id, d.member_relationship] as const),
    ]);
    const persons = (ids: readonly string[]) => new Map(ids.flatMap((id) => (relationships.has(id) ? [[id, relationships.get(id)!] as const] : [])));
    const before = (line: LineOfCoverage) => {
      const row = inForce.find((entry) => entry.line_of_coverage === line);
      return row
        ? { planId: row.plan_id, dependents: persons(beforeDependents.filter((d) => d.enrolled_plan_id === row.id).map((d) => d.dependent_id)) }
        : null;
    };
    return lines.map((line): LineBeforeAfter => {
      const election = electedPlans.find(({ plan }) => plan.line_of_coverage === line);
      if (election) {
        return {
          lineOfCoverage: line,
          path: ['enrolled_plans', election.row.position],
          before: before(line),
          after: {
            planId: election.plan.id,
            previousPlanId: election.plan.previous_plan_id,
            dependents: persons(elections.dependents.filter((d) => d.enrolled_plan_id === election.row.id).map((d) => d.dependent_id)),
          },
        };
      }
      return {
        lineOfCoverage: line,
        path: ['coverage_waivers', elections.waivers.findIndex((waiver) => waiver.dependent_id === null && waiver.line_of_coverage === line)],
        before: before(line),
        after: null,
      };
    });
  }

  /**
   * The member's coverage before and after, line by line (API.md section 7): before is the coverage in force
   * on the enrollment's start, or, for a plan that renews another, the coverage on that plan the day before.
   */
  async #coverageBeforeAndAfter(trx: Executor, enrollment: EnrollmentRow, elections: Elections) {
    const plans =
      elections.planRows ??
      new Map(
        (
          await repository.findPlans(
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
    const start = enrollment.effective_start ?? toDateString(this.#clock.now());
    const replaced = await findCoverageReplacedBy(trx, { memberId: enrollment.member_id, enrollmentId: enrollment.id, start, next, waivedLines });
    return { next, waivedLines, ...replaced };
  }
}

/** The columns of a rules_override as given (null clears it); only an admin key (`by`) may set one. */
function rulesOverrideColumns(
  input: { reason: string } | null | undefined,
  by: string | null,
  now: string,
): Pick<EnrollmentRow, 'rules_override_reason' | 'rules_override_api_key_id' | 'rules_override_at'> {
  if (!input) return { rules_override_reason: null, rules_override_api_key_id: null, rules_override_at: null };
  if (by === null) throw new PermissionDenied('Only admin API keys may set rules_override.');
  return { rules_override_reason: input.reason, rules_override_api_key_id: by, rules_override_at: now };
}

/** new_hire and rehire enrollments start coverage by the plan configuration's coverage_start_rule, unless overridden. */
function isNewHireStart(enrollment: Pick<EnrollmentRow, 'category' | 'reason' | 'rules_override_reason'>): boolean {
  return enrollment.category === 'qle' && (enrollment.reason === 'new_hire' || enrollment.reason === 'rehire') && enrollment.rules_override_reason === null;
}

/** A new hire's enrollment given no effective_start takes the earliest start its plans' rules gave. */
function computedStart(enrollment: EnrollmentRow, elections: Elections): string | null {
  if (!isNewHireStart(enrollment) || elections.plans.length === 0) return null;
  return elections.plans.map((plan) => plan.effective_start!).reduce((earliest, start) => (compareDates(start, earliest) < 0 ? start : earliest));
}

/** The volume and EOI columns of an enrolled plan or dependent. */
type VolumeColumns = Pick<EnrolledPlanRow, 'volume_cents' | 'requested_volume_cents' | 'volume_approved_at' | 'eoi_dismissed_at' | 'eoi_status'>;

/**
 * Volumes a re-election carries on instead of deciding them anew (an age-out, an EOI decision after
 * approval): by the election's index and the dependent (null for the member); undefined decides anew.
 */
type KeptVolumes = (planIndex: number, dependentId: string | null) => VolumeColumns | undefined;

function volumeColumns(decision: VolumeDecision): VolumeColumns {
  return {
    volume_cents: decision.volumeCents,
    requested_volume_cents: decision.requestedVolumeCents,
    volume_approved_at: null,
    eoi_dismissed_at: null,
    eoi_status: decision.eoiStatus,
  };
}

/** The volume and EOI columns of a stored row. */
function volumeColumnsOf(row: VolumeColumns): VolumeColumns {
  return {
    volume_cents: row.volume_cents,
    requested_volume_cents: row.requested_volume_cents,
    volume_approved_at: row.volume_approved_at,
    eoi_dismissed_at: row.eoi_dismissed_at,
    eoi_status: row.eoi_status,
  };
}

/**
 * A re-election of stored coverage (`before`, by position) keeps its member id cards, and for plans without
 * rates the figures the client gave.
 */
function keepCardsAndClientPrices(elections: Elections, before: readonly EnrolledPlanRow[], beforeDependents: readonly EnrolledDependentRow[]): void {
  elections.plans.forEach((plan, index) => {
    const previous = before[index]!;
    plan.member_id_card_id = previous.member_id_card_id;
    if (plan.premium_cents === null) {
      Object.assign(plan, {
        premium_cents: previous.premium_cents,
        employer_contribution_cents: previous.employer_contribution_cents,
        member_contribution_cents: previous.member_contribution_cents,
      });
    }
  });
  for (const dependent of elections.dependents) {
    const plan = elections.plans.find((p) => p.id === dependent.enrolled_plan_id)!;
    const previous = beforeDependents.find((d) => d.enrolled_plan_id === before[plan.position]!.id && d.dependent_id === dependent.dependent_id);
    if (previous) dependent.member_id_card_id = previous.member_id_card_id;
  }
}

/** Whether an enrolled plan's coverage is in force on `day` or later (not ended before it, not cancelled). */
function runsOn(plan: Pick<EnrolledPlanRow, 'effective_start' | 'effective_end'>, day: string): boolean {
  if (plan.effective_end === null) return true;
  if (plan.effective_start !== null && compareDates(plan.effective_end, plan.effective_start) < 0) return false;
  return compareDates(plan.effective_end, day) >= 0;
}

/** The stored row of a person on an enrolled plan: the plan itself for the member (null), else the dependent's. */
function rowOfPerson(stored: Pick<Elections, 'dependents'>, plan: EnrolledPlanRow, dependentId: string | null): EnrolledPlanRow | EnrolledDependentRow {
  return dependentId === null ? plan : stored.dependents.find((d) => d.enrolled_plan_id === plan.id && d.dependent_id === dependentId)!;
}
