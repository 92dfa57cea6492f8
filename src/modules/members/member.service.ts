import type { Kysely } from 'kysely';
import { isUniqueViolation, type Executor, type Transaction } from '../../db/database.ts';
import { type Page, type PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { addDays, compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import { ssnProblem, withNormalizedSsn, type SsnDigester } from '../../shared/ssn.ts';
import { assertPersonTextCarriersCanRead } from '../../shared/x12-text.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import { selectPlanConfiguration, waitingPeriodEnd } from '../plan-configurations/eligibility.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { appendEmploymentEvents, findEmploymentEvents } from './employment-history.repository.ts';
import { employmentEventsOf, employmentProblems, leaveInProgress, leaveProblem, withDeathCompleted, workChangesOf } from './employment-history.ts';
import { daysAway, rehireRuleOf } from './rehire-rules.ts';
import { isEmployerPaySchedule } from '../payroll/pay-schedule.repository.ts';
import * as repository from './member.repository.ts';
import { terminatedNotification, toEmploymentEventResponse, toMemberResponse } from './member.response.ts';
import type {
  CreateEmploymentEventBody,
  CreateMemberBody,
  EmploymentEventResponse,
  MemberResponse,
  RehireMemberBody,
  UpdateMemberBody,
} from './member.schemas.ts';
import type { MemberRow } from './member.table.ts';

/** What a change of termination_date does to coverage (the coverage module's CoverageTerminations). */
export interface TerminationOfCoverage {
  applyIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number>;
  undoIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number>;
}

/** A rehire's reinstatement of the coverage its termination ended (enrollments/rehire-reinstatement.ts). */
export interface ElectionReinstatement {
  reinstateIn(trx: Transaction<Database>, member: MemberRow, terminationDate: string, rehireDate: string): Promise<boolean>;
}

/** What a change of hours_worked or employment_status does to coverage (the coverage module's EligibilityLosses). */
export interface EligibilityOfCoverage {
  applyEmploymentChangeIn(trx: Transaction<Database>, before: MemberRow, after: MemberRow): Promise<void>;
}

/** A welcome goes to members hired within the last 30 days or hired for a future date (docs/decisions.md "Notifications"). */
const WELCOME_WINDOW_DAYS = 30;

function duplicateSsn(): InputError {
  return inputError(['ssn'], 'Another member of this employer has this SSN.');
}

/** Runs a write of a member's SSN that the one-SSN-per-employer index may refuse (a concurrent create or PATCH): a 400, like the check before it. */
async function withDistinctSsn(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ValidationFailed([duplicateSsn()]);
    throw error;
  }
}

export class MemberService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #ssnDigester: SsnDigester;
  readonly #changes: ChangeCommit;
  readonly #terminations: TerminationOfCoverage;
  readonly #reinstatement: ElectionReinstatement;
  readonly #eligibility: EligibilityOfCoverage;

  constructor(options: {
    db: Kysely<Database>;
    clock: Clock;
    encrypter: Encrypter;
    ssnDigester: SsnDigester;
    changes: ChangeCommit;
    terminations: TerminationOfCoverage;
    reinstatement: ElectionReinstatement;
    eligibility: EligibilityOfCoverage;
  }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#encrypter = options.encrypter;
    this.#ssnDigester = options.ssnDigester;
    this.#changes = options.changes;
    this.#terminations = options.terminations;
    this.#reinstatement = options.reinstatement;
    this.#eligibility = options.eligibility;
  }

  async createMember(scope: Scope, body: CreateMemberBody): Promise<MemberResponse> {
    assertPersonTextCarriersCanRead(body);
    return this.#db.transaction().execute(async (trx) => this.createMemberIn(trx, scope, body));
  }

  /** POST /members in the caller's transaction (a census import's row, census-imports/): the same checks, writes, events and notices. */
  async createMemberIn(trx: Transaction<Database>, scope: Scope, body: CreateMemberBody): Promise<MemberResponse> {
    const input = withNormalizedSsn(body);
    assertPersonTextCarriersCanRead(input);
    await assertReferencesVisible(trx, scope, { employer: input.employer });
    const subclasses = input.subclasses ?? [];
    const row: MemberRow = withDeathCompleted({
      id: newId('member'),
      provider_id: scope.providerId,
      employer_id: input.employer,
      first_name: input.first_name,
      last_name: input.last_name,
      dob: input.dob,
      ...this.#ssnColumns(input.ssn ?? null),
      email: input.email ?? null,
      phone_number: input.phone_number ?? null,
      address: JSON.stringify(input.address),
      hire_date: input.hire_date,
      original_hire_date: input.hire_date,
      termination_date: input.termination_date ?? null,
      termination_reason: input.termination_reason ?? null,
      date_of_death: input.date_of_death ?? null,
      rehire_rule: null,
      biological_sex: input.biological_sex ?? null,
      employment_status: input.employment_status ?? null,
      hours_worked: input.hours_worked ?? null,
      pay_frequency: input.pay_frequency ?? null,
      payroll_provider_external_id: input.payroll_provider_external_id ?? null,
      job_title: input.job_title ?? null,
      business_unit_id: input.business_unit ?? null,
      pay_schedule_id: input.pay_schedule ?? null,
      metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
      created_at: this.#clock.now().toISOString(),
    });
    await this.#assertConsistent(trx, row, subclasses, input.ssn);
    await withDistinctSsn(() => repository.insertMember(trx, row));
    await repository.replaceMemberSubclasses(trx, row.id, subclasses);
    await appendEmploymentEvents(trx, row, employmentEventsOf(null, row, toDateString(this.#clock.now())), row.created_at);
    const notifications = await this.#newMemberNotifications(trx, row, subclasses);
    if (row.termination_date !== null) notifications.push(terminatedNotification(row));
    await this.#changes.commit(trx, { events: [eventOf('member', 'created', row)], notifications });
    return toMemberResponse(row, { subclasses, enrollments: [] });
  }

  async getMember(scope: Scope, id: string): Promise<MemberResponse> {
    const row = await repository.findMemberById(this.#db, scope, id);
    if (!row) throw new NotFound('member');
    return this.#withLinks(this.#db, row);
  }

  async listMembers(
    scope: Scope,
    filter: { employer?: string | undefined; payroll_provider_external_id?: string | undefined },
    page: PageRequest,
  ): Promise<Page<MemberResponse>> {
    const rows = await repository.listMembers(
      this.#db,
      scope,
      { employerId: filter.employer, payrollProviderExternalId: filter.payroll_provider_external_id },
      page,
    );
    const links = await repository.findMemberLinks(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return { ...rows, results: rows.results.map((row) => toMemberResponse(row, links.get(row.id)!)) };
  }

  async updateMember(scope: Scope, id: string, input: UpdateMemberBody): Promise<MemberResponse> {
    assertPersonTextCarriersCanRead(input);
    return this.#db.transaction().execute(async (trx) => this.updateMemberIn(trx, scope, id, input));
  }

  /**
   * PATCH /members/{id} in the caller's transaction (a carrier file's value accepted, carrier-files/; a census
   * import's row): the same checks, writes, events and effects on coverage as the route's. `locked` is the member
   * as the caller already locked and read it in this transaction, in `scope` (a census batch locks its members
   * together); without it the member is locked here.
   */
  async updateMemberIn(trx: Transaction<Database>, scope: Scope, id: string, body: UpdateMemberBody, locked?: MemberRow): Promise<MemberResponse> {
    const input = withNormalizedSsn(body);
    assertPersonTextCarriersCanRead(input);
    const current = locked?.id === id ? locked : await repository.lockMemberById(trx, scope, id);
    if (!current) throw new NotFound('member');
    const changed = applyChanges(current, input, [
      'first_name',
      'last_name',
      'dob',
      'hire_date',
      'termination_date',
      'email',
      'phone_number',
      'biological_sex',
      'employment_status',
      'hours_worked',
      'pay_frequency',
      'payroll_provider_external_id',
      'job_title',
      'termination_reason',
      'date_of_death',
    ]);
    const updated: MemberRow = withDeathCompleted({
      ...changed,
      ...(input.ssn !== undefined ? this.#ssnColumns(input.ssn) : {}),
      // A hire date corrected before any rehire is the original one corrected.
      original_hire_date:
        current.original_hire_date === null || current.original_hire_date === current.hire_date ? changed.hire_date : current.original_hire_date,
      // A termination cleared or moved without a reason said again has none.
      termination_reason: input.termination_reason !== undefined || changed.termination_date === current.termination_date ? changed.termination_reason : null,
      address: input.address ? JSON.stringify(input.address) : current.address,
      business_unit_id: input.business_unit !== undefined ? input.business_unit : current.business_unit_id,
      pay_schedule_id: input.pay_schedule !== undefined ? input.pay_schedule : current.pay_schedule_id,
      metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
    });
    const links = (await repository.findMemberLinks(trx, [id])).get(id)!;
    const subclasses = input.subclasses ?? links.subclasses;
    await this.#assertConsistent(trx, updated, subclasses, input.ssn);
    await withDistinctSsn(() => repository.updateMember(trx, updated));
    if (input.subclasses !== undefined) await repository.replaceMemberSubclasses(trx, id, subclasses);
    await appendEmploymentEvents(trx, updated, employmentEventsOf(current, updated, toDateString(this.#clock.now())), this.#clock.now().toISOString());
    const terminated = updated.termination_date !== null && updated.termination_date !== current.termination_date;
    // Committed before the coverage changes, which record their own events (coverage/termination.service.ts),
    // so that the member's event and notice come first, as they always have.
    await this.#changes.commit(trx, { events: [eventOf('member', 'updated', updated)], notifications: terminated ? [terminatedNotification(updated)] : [] });
    if (updated.termination_date !== current.termination_date) await this.#applyTerminationChange(trx, updated);
    await this.#eligibility.applyEmploymentChangeIn(trx, current, updated);
    return toMemberResponse(updated, { subclasses, enrollments: links.enrollments });
  }

  /**
   * A termination_date set, moved or cleared (the member locked): a termination it no longer calls for is
   * undone if it has not taken effect, and one already past is applied at once rather than at the next daily
   * sweep (coverage/termination.service.ts).
   */
  async #applyTerminationChange(trx: Transaction<Database>, member: MemberRow): Promise<void> {
    const today = toDateString(this.#clock.now());
    await this.#terminations.undoIn(trx, member, today);
    if (member.termination_date !== null && compareDates(member.termination_date, today) < 0) await this.#terminations.applyIn(trx, member, today);
  }

  /**
   * Rehires a terminated member on `rehire_date` by the rule of rehire-rules.ts (how long they were away):
   * hire_date becomes the rehire date (original_hire_date stays), the termination is cleared, and the rule is
   * recorded on the member and in the history. A termination that has not taken effect is undone (coverage goes
   * on without a break); one that has, for a rehire within 30 days, has its coverage reinstated from the rehire
   * date unless the member elects anew. One transaction, the member locked.
   */
  async rehireMember(scope: Scope, id: string, input: RehireMemberBody): Promise<MemberResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockMemberById(trx, scope, id);
      if (!current) throw new NotFound('member');
      const terminationDate = current.termination_date;
      if (terminationDate === null) throw new InvalidState('The member has no termination_date: only a terminated member can be rehired.');
      if (current.date_of_death !== null) throw new InvalidState('The member has a date_of_death: a deceased member cannot be rehired.');
      if (compareDates(input.rehire_date, terminationDate) <= 0) {
        throw new ValidationFailed([
          inputError(
            ['rehire_date'],
            `The rehire date must be after the termination date ${terminationDate}: expected ${addDays(terminationDate, 1)} or later.`,
          ),
        ]);
      }
      const rule = rehireRuleOf(terminationDate, input.rehire_date);
      const elections = input.elections ?? (rule.reinstatesElections ? 'reinstate' : 'elect_anew');
      if (elections === 'reinstate' && !rule.reinstatesElections) {
        throw new ValidationFailed([
          inputError(
            ['elections'],
            `Prior elections are reinstated only for a rehire within 30 days of the termination (expected a rehire_date up to ${addDays(terminationDate, 30)}); this one is a ${rule.rule}: elect anew.`,
          ),
        ]);
      }
      const updated: MemberRow = {
        ...applyChanges(current, input, ['hours_worked', 'employment_status']),
        hire_date: input.rehire_date,
        termination_date: null,
        termination_reason: null,
        rehire_rule: rule.rule,
      };
      const links = (await repository.findMemberLinks(trx, [id])).get(id)!;
      await this.#assertConsistent(trx, updated, links.subclasses, undefined);
      await repository.updateMember(trx, updated);
      const now = this.#clock.now().toISOString();
      await appendEmploymentEvents(
        trx,
        updated,
        [
          {
            type: 'rehire',
            effectiveDate: input.rehire_date,
            details: { previous_termination_date: terminationDate, days_away: daysAway(terminationDate, input.rehire_date), rehire_rule: rule.rule, elections },
          },
          ...workChangesOf(current, updated, toDateString(this.#clock.now())),
        ],
        now,
      );
      await this.#changes.commit(trx, { events: [eventOf('member', 'updated', updated)] });
      await this.#applyTerminationChange(trx, updated);
      if (elections === 'reinstate') await this.#reinstatement.reinstateIn(trx, updated, terminationDate, input.rehire_date);
      // Hours or a status of the new employment that the reinstated plans do not admit start their loss.
      await this.#eligibility.applyEmploymentChangeIn(trx, current, updated);
      return this.#withLinks(trx, updated);
    });
  }

  /** Records a leave of absence or the return from one in the member's history (docs/decisions.md "Employment history"). */
  async recordEmploymentEvent(scope: Scope, id: string, input: CreateEmploymentEventBody): Promise<EmploymentEventResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const member = await repository.lockMemberById(trx, scope, id);
      if (!member) throw new NotFound('member');
      const onLeave = leaveInProgress(await findEmploymentEvents(trx, id));
      const problem = leaveProblem(member, input, onLeave);
      if (problem) throw problem;
      const leaveType = input.event_type === 'leave_of_absence' ? input.leave_type : onLeave?.leaveType;
      const [row] = await appendEmploymentEvents(
        trx,
        member,
        [{ type: input.event_type, effectiveDate: input.effective_date, details: leaveType === undefined ? {} : { leave_type: leaveType } }],
        this.#clock.now().toISOString(),
      );
      return toEmploymentEventResponse(row!);
    });
  }

  /** The member's employment history, oldest entry first. */
  async getEmploymentHistory(scope: Scope, id: string): Promise<{ object: 'list'; results: EmploymentEventResponse[] }> {
    const member = await repository.findMemberById(this.#db, scope, id);
    if (!member) throw new NotFound('member');
    return { object: 'list', results: (await findEmploymentEvents(this.#db, id)).map(toEmploymentEventResponse) };
  }

  /**
   * Endpoint 14: for entry errors only. Refused once coverage went to a carrier: a leaver is recorded with
   * termination_date so that the carrier is told and the history stays.
   */
  async deleteMember(scope: Scope, id: string): Promise<{ id: string; object: 'member'; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const member = await repository.lockMemberById(trx, scope, id);
      if (!member) throw new NotFound('member');
      if (await repository.hasSentCoverage(trx, id)) {
        throw new InvalidState(
          'This member has coverage that was sent to a carrier, so the record cannot be deleted. To record that the employee left, PATCH termination_date instead.',
        );
      }
      const removed = await repository.deleteMemberAndRecords(trx, id);
      await this.#changes.commit(trx, {
        events: [
          ...removed.enrollments.map((row) => eventOf('enrollment', 'deleted', row)),
          ...removed.memberIdCards.map((row) => eventOf('member_id_card', 'deleted', row)),
          ...removed.payRates.map((row) => eventOf('pay_rate', 'deleted', row)),
          ...removed.beneficiaries.map((row) => eventOf('beneficiary', 'deleted', row)),
          ...removed.dependents.map((row) => eventOf('dependent', 'deleted', row)),
          ...removed.unlinkedDocuments.map((row) => eventOf('document', 'updated', row)),
          eventOf('member', 'deleted', member),
        ],
      });
      return { id, object: 'member', deleted: true };
    });
  }

  /** The SSN columns of a valid SSN (or none); an invalid one is refused by #assertConsistent before anything is written. */
  #ssnColumns(ssn: string | null): Pick<MemberRow, 'ssn_encrypted' | 'ssn_last_four' | 'ssn_digest'> {
    if (ssn === null || ssnProblem(ssn) !== undefined) return { ssn_encrypted: null, ssn_last_four: null, ssn_digest: null };
    return { ssn_encrypted: this.#encrypter.encrypt(ssn), ssn_last_four: ssn.slice(-4), ssn_digest: this.#ssnDigester.digest(ssn) };
  }

  async #withLinks(db: Executor, row: MemberRow): Promise<MemberResponse> {
    const links = await repository.findMemberLinks(db, [row.id]);
    return toMemberResponse(row, links.get(row.id)!);
  }

  /**
   * Dates in order, the business unit and subclasses are the member's employer's own, an SSN given is one the
   * SSA issues (shared/ssn.ts) and no other member of the employer has it (the unique index has the last word).
   */
  async #assertConsistent(trx: Executor, row: MemberRow, subclasses: readonly string[], ssn: string | null | undefined): Promise<void> {
    const errors: InputError[] = [];
    const problem = typeof ssn === 'string' ? ssnProblem(ssn) : undefined;
    if (problem !== undefined) errors.push(inputError(['ssn'], problem));
    else if (typeof ssn === 'string' && row.ssn_digest !== null && (await repository.hasOtherMemberWithSsn(trx, row))) errors.push(duplicateSsn());
    const today = toDateString(this.#clock.now());
    if (compareDates(row.dob, today) > 0) errors.push(inputError(['dob'], 'The date of birth cannot be in the future.'));
    if (compareDates(row.hire_date, row.dob) <= 0) errors.push(inputError(['hire_date'], 'The hire date must be after the date of birth.'));
    if (row.termination_date !== null && compareDates(row.termination_date, row.hire_date) < 0) {
      errors.push(inputError(['termination_date'], 'The termination date cannot be before the hire date.'));
    }
    errors.push(...employmentProblems(row, today));
    if (row.business_unit_id !== null && !(await repository.isEmployerBusinessUnit(trx, row.provider_id, row.employer_id, row.business_unit_id))) {
      errors.push(inputError(['business_unit'], "No such business unit for the member's employer."));
    }
    if (row.pay_schedule_id !== null && !(await isEmployerPaySchedule(trx, row.provider_id, row.employer_id, row.pay_schedule_id))) {
      errors.push(inputError(['pay_schedule'], "No such pay schedule for the member's employer."));
    }
    const known = await repository.findEmployerSubclassIds(trx, row.provider_id, row.employer_id, subclasses);
    subclasses.forEach((subclass, index) => {
      if (!known.has(subclass)) errors.push(inputError(['subclasses', index], "No such subclass for the member's employer."));
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
  }

  /** welcome and newly_eligible at creation (docs/decisions.md "Notifications"). */
  async #newMemberNotifications(trx: Executor, member: MemberRow, subclasses: readonly string[]): Promise<NewNotification[]> {
    const today = toDateString(this.#clock.now());
    const payload = { member: member.id, employer: member.employer_id };
    const common = { providerId: member.provider_id, employerId: member.employer_id, relatedObjectType: 'member', relatedObjectId: member.id } as const;
    const notifications: NewNotification[] = [];
    if (compareDates(member.hire_date, addDays(today, -WELCOME_WINDOW_DAYS)) >= 0) notifications.push({ ...common, type: 'welcome', owner: 'member', payload });
    if (member.termination_date !== null && compareDates(member.termination_date, today) < 0) return notifications;
    if (await this.#isEligibleOn(trx, member, subclasses, today)) {
      // Keyed by member: the daily sweep records the same occurrence for members whose waiting period ends later.
      notifications.push({ ...common, type: 'newly_eligible', owner: 'member', payload, occurrenceKey: `newly_eligible:${member.id}` });
    }
    return notifications;
  }

  /** Whether the waiting period of some plan configuration that applies to the member is over on `date`. */
  async #isEligibleOn(trx: Executor, member: MemberRow, subclasses: readonly string[], date: string): Promise<boolean> {
    const configurations = await repository.findCurrentPlanConfigurations(trx, member.provider_id, member.employer_id, date);
    const byPlan = Map.groupBy(configurations, (configuration) => configuration.plan_id);
    for (const candidates of byPlan.values()) {
      const configuration = selectPlanConfiguration(subclasses, candidates);
      if (configuration && compareDates(waitingPeriodEnd(member.hire_date, configuration.waiting_period_days), date) <= 0) return true;
    }
    return false;
  }
}
