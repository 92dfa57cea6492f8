/**
 * An enrollment before approval (docs/decisions.md "Enrollments"): created, edited while not_started (lists
 * replaced whole, elections priced anew), submitted (every rule checked at once: submission-check.ts), reopened
 * or cancelled; and read. Every change locks the member, then the enrollment (lockMemberThenEnrollment), and
 * hands its events and notification to ChangeCommit.
 */
import { findPaySchedulesOfMembers } from '../payroll/pay-schedule.repository.ts';
import { recordHeldCoverage } from '../carrier-ledger/carrier-ledger.ts';
import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { transactionRetriedOnConflict } from '../../db/transaction-conflicts.ts';
import type { Clock } from '../../shared/clock.ts';
import { toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, PermissionDenied, ValidationFailed, inputError, validationFailed } from '../../shared/errors.ts';
import { findDependentsByIds } from '../dependents/dependent.repository.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { endCoverageReplacedBy } from '../coverage/coverage-history.ts';
import { eventOf } from '../events/event-data.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { computedStart, electionsFor } from './election-builder.ts';
import { electedCoverage } from './enrollment-approval.ts';
import { moveEnrollment } from './enrollment-lifecycle.ts';
import { assertTransition, ENROLLMENT_EVENT_ACTIONS, ENROLLMENT_TRANSITIONS } from './enrollment-status.ts';
import * as repository from './enrollment.repository.ts';
import { enrollmentNotification, toEnrollmentResponse } from './enrollment.response.ts';
import type { CoverageWaiverInput, CreateEnrollmentBody, EnrolledPlanInput, EnrollmentResponse, UpdateEnrollmentBody } from './enrollment.schemas.ts';
import type { EnrollmentRow, EnrollmentStatus } from './enrollment.table.ts';
import { storedPlanInputs } from './stored-elections.ts';
import { checkSubmission } from './submission-check.ts';
import { findDocumentIdsVisibleToEmployer } from '../../db/references.ts';
import { findOpenWindowOn } from '../open-enrollment/open-enrollment-window.repository.ts';

type Elections = repository.Elections;

export class EnrollmentDrafts {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #commit: ChangeCommit;

  constructor(options: { db: Kysely<Database>; clock: Clock; commit: ChangeCommit }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#commit = options.commit;
  }

  /** `overrideBy`: the admin API key setting `rules_override`, if the body has one (the route checks the role). */
  async create(scope: Scope, input: CreateEnrollmentBody, overrideBy: string | null = null): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => this.createIn(trx, scope, input, { overrideBy }));
  }

  /**
   * Creates an enrollment inside the caller's transaction (also used by passive open enrollment). An
   * open_enrollment enrollment is linked to the employer's window open today, if any, until submission
   * links it to the window of the submission day; `windowId` links it to a given window instead. A
   * carrier_sync enrollment records coverage the carrier already holds, synced at once: it ends the coverage it
   * replaces, tells the carriers nothing, and is what the carrier ledger holds as told for its lines.
   */
  async createIn(
    trx: Transaction<Database>,
    scope: Scope,
    input: CreateEnrollmentBody,
    options: { windowId?: string; overrideBy?: string | null } = {},
  ): Promise<EnrollmentResponse> {
    const member = await lockMemberById(trx, scope, input.member);
    if (!member) throw new ValidationFailed([inputError(['member'], 'No such member.')]);
    const openWindow =
      options.windowId === undefined && input.category === 'open_enrollment'
        ? await findOpenWindowOn(trx, member.provider_id, member.employer_id, toDateString(this.#clock.now()))
        : undefined;
    const row = newEnrollmentRow(member, input, options.windowId ?? openWindow?.id ?? null, options.overrideBy ?? null, this.#clock.now().toISOString());
    await assertDocumentsVisible(trx, member, input.qualifying_life_event_documents ?? []);
    await assertMedicareEntitledDependent(trx, member, row);
    if (row.category === 'carrier_sync' && row.effective_start === null) {
      throw new ValidationFailed([inputError(['effective_start'], 'A carrier_sync enrollment records coverage from a date: give effective_start.')]);
    }
    const elections = await this.#elect(trx, row, member, input.enrolled_plans ?? [], input.coverage_waivers ?? []);
    row.effective_start ??= computedStart(row, elections);
    await repository.insertEnrollment(trx, row);
    await repository.insertElections(trx, elections);
    const coverage = row.status === 'synced' ? await electedCoverage(trx, row, elections, toDateString(this.#clock.now())) : undefined;
    const replaced = coverage ? await endCoverageReplacedBy(trx, coverage) : [];
    // The carriers hold it already: the carrier ledger starts from it (carrier-ledger.ts).
    if (coverage)
      await recordHeldCoverage(trx, { providerId: row.provider_id, employerId: row.employer_id, memberId: row.member_id }, coverage.next, row.created_at);
    await this.#commit.commit(trx, {
      events: [eventOf('enrollment', 'created', row), ...replaced.map((enrollment) => eventOf('enrollment', 'updated', enrollment))],
    });
    return toEnrollmentResponse(row, elections, await findPaySchedulesOfMembers(trx, [row.member_id]));
  }

  async get(scope: Scope, id: string): Promise<EnrollmentResponse> {
    const row = await repository.findEnrollmentById(this.#db, scope, id);
    if (!row) throw new NotFound('enrollment');
    return toEnrollmentResponse(row, await repository.findElections(this.#db, [row.id]), await findPaySchedulesOfMembers(this.#db, [row.member_id]));
  }

  async list(
    scope: Scope,
    filter: { member?: string | undefined; employer?: string | undefined; status?: EnrollmentStatus | undefined },
    page: PageRequest,
  ): Promise<Page<EnrollmentResponse>> {
    const rows = await repository.listEnrollments(this.#db, scope, { memberId: filter.member, employerId: filter.employer, status: filter.status }, page);
    const elections = await repository.findElections(
      this.#db,
      rows.results.map((row) => row.id),
    );
    const schedules = await findPaySchedulesOfMembers(
      this.#db,
      rows.results.map((row) => row.member_id),
    );
    return { ...rows, results: rows.results.map((row) => toEnrollmentResponse(row, elections, schedules)) };
  }

  /** `PATCH /enrollments/{id}` with an edit (not isEoiDecisionBody): only while not_started. */
  async edit(scope: Scope, id: string, input: UpdateEnrollmentBody, overrideBy: string | null = null): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => {
      const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
      if (!locked) throw new NotFound('enrollment');
      const { member, enrollment: current } = locked;
      if (current.status !== 'not_started') {
        throw new InvalidState(`An enrollment can be edited only while not_started; this one is ${current.status}. Reopen a pending one first.`);
      }
      const updated = editedRow(current, input, overrideBy, this.#clock.now().toISOString());
      await assertDocumentsVisible(trx, member, input.qualifying_life_event_documents ?? []);
      await assertMedicareEntitledDependent(trx, member, updated);
      const stored = await repository.findElections(trx, [id]);
      const datesChanged = updated.effective_start !== current.effective_start || updated.effective_end !== current.effective_end;
      let elections: Elections = stored;
      if (input.enrolled_plans !== undefined || input.coverage_waivers !== undefined || datesChanged) {
        // Elections are replaced whole; unchanged ones are rebuilt from what is stored, so they are priced anew.
        const planInputs = (input.enrolled_plans as EnrolledPlanInput[] | undefined) ?? storedPlanInputs(stored);
        elections = await this.#elect(trx, updated, member, planInputs, input.coverage_waivers ?? storedWaiverInputs(stored));
        updated.effective_start ??= computedStart(updated, elections);
        await repository.replaceElections(trx, id, elections);
      }
      await repository.updateEnrollmentFields(trx, updated);
      await this.#commit.commit(trx, { events: [eventOf('enrollment', 'updated', updated)] });
      return toEnrollmentResponse(updated, elections, await findPaySchedulesOfMembers(trx, [updated.member_id]));
    });
  }

  /** save_and_submit: every rule at once (submission-check.ts), then pending; the employer is told. */
  async submit(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => this.submitIn(trx, scope, id));
  }

  /** save_and_submit inside the caller's transaction (also used by passive open enrollment). */
  async submitIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse> {
    const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
    if (!locked) throw new NotFound('enrollment');
    const { member, enrollment } = locked;
    // Refused before anything is checked when it is not not_started (a 409, not a 400 of rules).
    assertTransition('save_and_submit', enrollment.status);
    const elections = await repository.findElections(trx, [id]);
    const { errors, windowId } = await checkSubmission(trx, enrollment, member, elections, toDateString(this.#clock.now()));
    if (errors.length > 0) throw new ValidationFailed(errors, 'The enrollment cannot be submitted');
    const submitted = { ...enrollment, status: 'pending' as const, submitted_at: this.#clock.now().toISOString(), open_enrollment_window_id: windowId };
    await moveEnrollment(trx, enrollment, 'save_and_submit', { submitted_at: submitted.submitted_at, open_enrollment_window_id: windowId });
    await this.#commit.commit(trx, {
      events: [eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.save_and_submit, submitted)],
      notifications: [enrollmentNotification(enrollment, 'enrollment_submitted', 'employer')],
    });
    return toEnrollmentResponse(submitted, elections, await findPaySchedulesOfMembers(trx, [submitted.member_id]));
  }

  async reopen(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return this.#move(scope, id, 'reopen');
  }

  async cancel(scope: Scope, id: string): Promise<EnrollmentResponse> {
    return this.#move(scope, id, 'cancel');
  }

  async #move(scope: Scope, id: string, action: 'reopen' | 'cancel'): Promise<EnrollmentResponse> {
    return transactionRetriedOnConflict(this.#db, async (trx) => {
      const locked = await repository.lockMemberThenEnrollment(trx, scope, id);
      if (!locked) throw new NotFound('enrollment');
      const { enrollment } = locked;
      // A reopened enrollment is no longer submitted.
      const set = action === 'reopen' ? { submitted_at: null } : {};
      await moveEnrollment(trx, enrollment, action, set);
      const moved = { ...enrollment, ...set, status: ENROLLMENT_TRANSITIONS[action].to };
      await this.#commit.commit(trx, { events: [eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS[action], moved)] });
      return toEnrollmentResponse(moved, await repository.findElections(trx, [id]), await findPaySchedulesOfMembers(trx, [moved.member_id]));
    });
  }

  /** New elections for `enrollment`, priced; volumes decided anew. */
  async #elect(
    trx: Executor,
    enrollment: EnrollmentRow,
    member: MemberRow,
    plans: readonly EnrolledPlanInput[],
    waivers: readonly CoverageWaiverInput[],
  ): Promise<Elections> {
    return electionsFor(trx, { enrollment, member, plans, waivers, now: this.#clock.now().toISOString() });
  }
}

function newEnrollmentRow(member: MemberRow, input: CreateEnrollmentBody, windowId: string | null, overrideBy: string | null, now: string): EnrollmentRow {
  return {
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
    open_enrollment_window_id: windowId,
    cancellation_reason: null,
    other_coverage: input.other_coverage ?? null,
    medicare_entitled_dependent_id: input.medicare_entitled_dependent ?? null,
    ...rulesOverrideColumns(input.rules_override, overrideBy, now),
    created_at: now,
  };
}

/** The enrollment's columns after an edit: each field given replaces the stored one; metadata is merged. */
function editedRow(current: EnrollmentRow, input: UpdateEnrollmentBody, overrideBy: string | null, now: string): EnrollmentRow {
  return {
    ...current,
    effective_start: input.effective_start !== undefined ? input.effective_start : current.effective_start,
    effective_end: input.effective_end !== undefined ? input.effective_end : current.effective_end,
    reason: input.reason !== undefined ? input.reason : current.reason,
    change_date: input.change_date !== undefined ? input.change_date : current.change_date,
    qualifying_life_event_documents:
      input.qualifying_life_event_documents !== undefined ? JSON.stringify(input.qualifying_life_event_documents) : current.qualifying_life_event_documents,
    metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
    other_coverage: input.other_coverage !== undefined ? input.other_coverage : current.other_coverage,
    medicare_entitled_dependent_id:
      input.medicare_entitled_dependent !== undefined ? input.medicare_entitled_dependent : current.medicare_entitled_dependent_id,
    ...(input.rules_override !== undefined ? rulesOverrideColumns(input.rules_override, overrideBy, now) : {}),
  };
}

/** The stored waivers as input again. */
function storedWaiverInputs(stored: Elections): CoverageWaiverInput[] {
  return stored.waivers.map((waiver) => ({
    line_of_coverage: waiver.line_of_coverage as LineOfCoverage,
    reason: waiver.reason as CoverageWaiverInput['reason'],
    member: waiver.member_id,
    dependent: waiver.dependent_id,
  }));
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

/**
 * `medicare_entitled_dependent` names whose own Medicare entitlement a `medicare_eligible` enrollment records:
 * one of the member's dependents, and only on that reason (docs/decisions.md "COBRA events").
 */
async function assertMedicareEntitledDependent(
  trx: Executor,
  member: MemberRow,
  row: Pick<EnrollmentRow, 'reason' | 'medicare_entitled_dependent_id'>,
): Promise<void> {
  const id = row.medicare_entitled_dependent_id;
  if (id === null) return;
  if (row.reason !== 'medicare_eligible') {
    throw validationFailed(['medicare_entitled_dependent'], 'Only a medicare_eligible enrollment names whose Medicare entitlement it records.');
  }
  const [dependent] = await findDependentsByIds(trx, member.provider_id, [id]);
  if (dependent?.member_id !== member.id) throw validationFailed(['medicare_entitled_dependent'], 'No such dependent of the member.');
}

async function assertDocumentsVisible(trx: Executor, member: MemberRow, ids: readonly string[]): Promise<void> {
  const visible = await findDocumentIdsVisibleToEmployer(trx, member.provider_id, member.employer_id, ids);
  const errors = ids.flatMap((id, index) => (visible.has(id) ? [] : [inputError(['qualifying_life_event_documents', index], 'No such document.')]));
  if (errors.length > 0) throw new ValidationFailed(errors);
}
