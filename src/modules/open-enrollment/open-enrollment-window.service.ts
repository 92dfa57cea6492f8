import { Readable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible, lockEmployerRow } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import { batches } from '../../shared/batches.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays, compareDates, toDateString } from '../../shared/dates.ts';
import { AppError, InvalidState, NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { CreateEnrollmentBody, EnrollmentResponse, PrimaryCareProvider } from '../enrollments/enrollment.schemas.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import { REMINDER_DAYS_BEFORE_END, reminderDaysBefore } from '../daily-sweep/sweep-rules.ts';
import { claimOccurrence } from '../daily-sweep/sweep.repository.ts';
import { findCoveredLinesOn, findWindowCoverageChanges } from '../coverage/window-coverage.repository.ts';
import { findDesignationsOf } from '../enrollments/enrollment.repository.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';
import { designationInputs, money } from '../enrollments/enrollment.response.ts';
import { disabilityCertifiedThrough, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { parseVolumeRules } from '../plans/plan.service.ts';
import { carriedPlan, carriedVolumes, isDependentCarried } from './carry-over.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './open-enrollment-window.repository.ts';
import type { CreateWindowBody, IncompleteMember, UpdateWindowBody, WindowResponse, WindowSummary } from './open-enrollment-window.schemas.ts';
import type { OpenEnrollmentWindowRow, WindowStatus } from './open-enrollment-window.table.ts';
import { EDITABLE_WINDOW_STATUSES, WINDOW_EVENT_ACTIONS, WINDOW_TRANSITIONS, assertWindowTransition, type WindowAction } from './window-status.ts';

/** What passive open enrollment needs from the enrollment engine, inside the completing transaction. */
export interface EnrollmentEngine {
  createEnrollmentIn(trx: Transaction<Database>, scope: Scope, input: CreateEnrollmentBody, options: { windowId: string }): Promise<EnrollmentResponse>;
  submitEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse>;
  approveEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse>;
}

/** The job that carries a completed passive window's idle members over; payload `{ open_enrollment_window }`. */
export const PASSIVE_ROLLOVER_JOB = 'open_enrollment.passive_rollover';

/** Members carried over per transaction by the passive carry-over (about 0.4 s of work on SQLite). */
const ROLLOVER_BATCH = 200;

/** Notifications built and inserted at a time by kickoffs and reminders. */
const NOTIFICATION_SLICE = 2000;

/** Rows per page when the CSV report walks the members (keyset pages, so memory stays flat). */
const CSV_PAGE_SIZE = 1000;

export function toWindowResponse(
  row: OpenEnrollmentWindowRow,
  planIds: string[],
  counts: { completed: number; incomplete: number },
  summaries: WindowSummary[] = [],
): WindowResponse {
  return {
    id: row.id,
    employer: row.employer_id,
    start_date: row.start_date,
    end_date: row.end_date,
    renewal_date: row.renewal_date,
    status: row.status,
    completed_at: row.completed_at,
    completed_member_count: counts.completed,
    incomplete_member_count: counts.incomplete,
    summaries,
    plans: planIds,
    enrollment_type: row.enrollment_type,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

/** A window with its three dates, which every member rule needs. */
function datedWindow(row: OpenEnrollmentWindowRow): repository.DatedWindow | undefined {
  if (row.end_date === null || row.renewal_date === null || row.start_date === null) return undefined;
  return { id: row.id, provider_id: row.provider_id, employer_id: row.employer_id, end_date: row.end_date, renewal_date: row.renewal_date };
}

export class OpenEnrollmentWindowService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  readonly #enrollments: EnrollmentEngine;

  constructor(options: { db: Kysely<Database>; clock: Clock; changes: ChangeCommit; enrollments: EnrollmentEngine }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#changes = options.changes;
    this.#enrollments = options.enrollments;
  }

  async createWindow(scope: Scope, input: CreateWindowBody): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { employer: input.employer });
      const planIds = input.plans ?? [];
      const draft: OpenEnrollmentWindowRow = {
        id: newId('open_enrollment_window'),
        provider_id: scope.providerId,
        employer_id: input.employer,
        start_date: input.start_date ?? null,
        end_date: input.end_date ?? null,
        renewal_date: input.renewal_date ?? null,
        status: 'setup_required',
        enrollment_type: input.enrollment_type ?? 'active',
        completed_member_count: null,
        incomplete_member_count: null,
        completed_at: null,
        activated_at: null,
        closed_at: null,
        metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
        created_at: this.#clock.now().toISOString(),
      };
      await this.#assertValid(trx, draft, planIds);
      const row = { ...draft, status: isConfigured(draft, planIds) ? WINDOW_TRANSITIONS.configure.to : draft.status };
      await repository.insertWindow(trx, row);
      await repository.replaceWindowPlans(trx, row.id, planIds);
      await this.#changes.commit(trx, { events: [eventOf('open_enrollment_window', 'created', row)] });
      return this.#respond(trx, row, planIds);
    });
  }

  async getWindow(scope: Scope, id: string): Promise<WindowResponse> {
    const row = await repository.findWindowById(this.#db, scope, id);
    if (!row) throw new NotFound('open enrollment window');
    return this.#respond(this.#db, row, (await repository.findWindowPlanIds(this.#db, [row.id])).get(row.id)!);
  }

  async listWindows(
    scope: Scope,
    filter: { employer?: string | undefined; status?: WindowStatus | undefined },
    page: PageRequest,
  ): Promise<Page<WindowResponse>> {
    const rows = await repository.listWindows(this.#db, scope, { employerId: filter.employer, status: filter.status }, page);
    const plans = await repository.findWindowPlanIds(
      this.#db,
      rows.results.map((row) => row.id),
    );
    const results: WindowResponse[] = [];
    for (const row of rows.results) results.push(await this.#respond(this.#db, row, plans.get(row.id)!));
    return { ...rows, results };
  }

  /**
   * Dates and plans change only before the window is active; enrollment_type until it is completed (it
   * decides what complete does); metadata always. Giving or taking away plans and dates moves the window
   * between setup_required and build_in_progress.
   */
  async updateWindow(scope: Scope, id: string, input: UpdateWindowBody): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockWindowById(trx, scope, id);
      if (!current) throw new NotFound('open enrollment window');
      const editable = EDITABLE_WINDOW_STATUSES.includes(current.status);
      const setupFields = (['start_date', 'end_date', 'renewal_date', 'plans'] as const).filter((field) => input[field] !== undefined);
      if (!editable && setupFields.length > 0) {
        throw new InvalidState(`The window is ${current.status}: ${setupFields.join(', ')} can change only before it is active.`);
      }
      if (input.enrollment_type !== undefined && current.status === 'completed') {
        throw new InvalidState('The window is completed: its enrollment_type can no longer change.');
      }
      const storedPlans = (await repository.findWindowPlanIds(trx, [id])).get(id)!;
      const planIds = input.plans ?? storedPlans;
      let updated: OpenEnrollmentWindowRow = {
        ...current,
        start_date: input.start_date !== undefined ? input.start_date : current.start_date,
        end_date: input.end_date !== undefined ? input.end_date : current.end_date,
        renewal_date: input.renewal_date !== undefined ? input.renewal_date : current.renewal_date,
        enrollment_type: input.enrollment_type ?? current.enrollment_type,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      if (editable) await this.#assertValid(trx, updated, planIds);
      await repository.updateWindowFields(trx, updated);
      if (input.plans !== undefined) await repository.replaceWindowPlans(trx, id, planIds);
      if (editable) {
        const action: WindowAction | undefined =
          isConfigured(updated, planIds) && current.status === 'setup_required'
            ? 'configure'
            : !isConfigured(updated, planIds) && current.status === 'build_in_progress'
              ? 'unconfigure'
              : undefined;
        if (action) updated = await this.#transition(trx, updated, action);
      }
      // configure and unconfigure are part of this change: its one event carries the status it leads to.
      await this.#changes.commit(trx, { events: [eventOf('open_enrollment_window', 'updated', updated)] });
      return this.#respond(trx, updated, planIds);
    });
  }

  /**
   * build_in_progress → active: refused while another active window of the employer overlaps its dates, or
   * once its end_date has passed. Every eligible member is told (open_enrollment_kickoff), and so is the
   * employer, in the same transaction.
   */
  async activateWindow(scope: Scope, id: string): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const window = await this.#lockForAction(trx, scope, id, 'activate');
      // Serializes activations of one employer's windows, so that two overlapping ones never both win.
      await lockEmployerRow(trx, window.provider_id, window.employer_id);
      const dated = datedWindow(window)!;
      const today = toDateString(this.#clock.now());
      if (compareDates(dated.end_date, today) < 0) {
        throw new ValidationFailed([inputError(['end_date'], `The window ended on ${dated.end_date}; move its dates before activating it.`)]);
      }
      const overlapping = await repository.findOverlappingActiveWindows(trx, window, window.start_date!, dated.end_date);
      if (overlapping.length > 0) {
        throw new InvalidState(
          `The window overlaps active window ${overlapping.map((w) => w.id).join(', ')} of the same employer; close that one first or move the dates.`,
        );
      }
      const activated = await this.#transition(trx, window, 'activate', { activated_at: this.#clock.now().toISOString() });
      const members = await repository.findEligibleMemberIds(trx, dated);
      const common = {
        providerId: window.provider_id,
        employerId: window.employer_id,
        type: 'open_enrollment_kickoff',
        relatedObjectType: 'open_enrollment_window',
        relatedObjectId: window.id,
      } as const;
      const payload = { open_enrollment_window: window.id, employer: window.employer_id, end_date: dated.end_date };
      await this.#changes.commit(trx, {
        events: [eventOf('open_enrollment_window', WINDOW_EVENT_ACTIONS.activate, activated)],
        notifications: [{ ...common, owner: 'employer', payload, occurrenceKey: `open_enrollment_kickoff:${window.id}:employer` }],
      });
      // The members' kickoffs follow a slice at a time, each handed over as it is built: a window of any size
      // never holds all its notifications in memory at once.
      for (const slice of batches(members, NOTIFICATION_SLICE)) {
        await this.#changes.commit(trx, {
          notifications: slice.map((member): NewNotification => ({
            ...common,
            owner: 'member',
            payload: { ...payload, member },
            occurrenceKey: `open_enrollment_kickoff:${window.id}:${member}`,
          })),
        });
      }
      return this.#respond(trx, activated, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
    });
  }

  async closeWindow(scope: Scope, id: string): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const window = await this.#lockForAction(trx, scope, id, 'close');
      const closed = await this.#transition(trx, window, 'close', { closed_at: this.#clock.now().toISOString() });
      await this.#changes.commit(trx, { events: [eventOf('open_enrollment_window', WINDOW_EVENT_ACTIONS.close, closed)] });
      return this.#respond(trx, closed, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
    });
  }

  /**
   * Endpoint 5: closed → completed. The member counts are frozen as they stand (members carried over
   * passively did nothing and count as incomplete). For a passive window the same transaction enqueues the
   * durable job that carries the elections of every member who did nothing into the new period (see
   * rollOverPassively): one enrollment per member through the engine takes about 2 ms, far too long for one
   * request and one lock at 25,000 members.
   */
  async completeWindow(scope: Scope, id: string): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const window = await this.#lockForAction(trx, scope, id, 'complete');
      const counts = await repository.countMembers(trx, datedWindow(window)!);
      const completed = await this.#transition(trx, window, 'complete', {
        completed_at: this.#clock.now().toISOString(),
        completed_member_count: counts.completed,
        incomplete_member_count: counts.eligible - counts.completed,
      });
      await this.#changes.commit(trx, {
        events: [eventOf('open_enrollment_window', WINDOW_EVENT_ACTIONS.complete, completed)],
        jobs: window.enrollment_type === 'passive' ? [{ kind: PASSIVE_ROLLOVER_JOB, payload: { open_enrollment_window: id } }] : [],
      });
      return this.#respond(trx, completed, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
    });
  }

  /**
   * The passive carry-over of a completed passive window (the job completeWindow enqueues): walks the members
   * still incomplete in batches, one transaction per batch, and carries each over (see #rollOver). Safe to
   * run again or after a crash: a member carried over is no longer incomplete, and each member's carry-over
   * is keyed (`passive_open_enrollment:<window>:<member>`) in the transaction that makes it. Returns how many
   * members got an enrollment.
   */
  async rollOverPassively(windowId: string, batchSize = ROLLOVER_BATCH): Promise<number> {
    const window = await this.#db.selectFrom('open_enrollment_windows').selectAll().where('id', '=', windowId).executeTakeFirst();
    if (window?.status !== 'completed' || window.enrollment_type !== 'passive') return 0;
    const dated = datedWindow(window)!;
    const planIds = (await repository.findWindowPlanIds(this.#db, [windowId])).get(windowId)!;
    let carried = 0;
    let after: string | undefined;
    for (;;) {
      const batch = await repository.findIncompleteMemberIds(this.#db, dated, { ...(after === undefined ? {} : { after }), limit: batchSize });
      if (batch.length === 0) break;
      carried += await this.#db.transaction().execute(async (trx) => this.#rollOver(trx, dated, planIds, batch));
      after = batch.at(-1);
    }
    return carried;
  }

  /** Endpoint 4: the window with one summary per member and line of coverage its enrollments changed. */
  async changeReport(scope: Scope, id: string): Promise<WindowResponse> {
    const row = await repository.findWindowById(this.#db, scope, id);
    if (!row) throw new NotFound('open enrollment window');
    const changes = await findWindowCoverageChanges(this.#db, row.id);
    const summaries: WindowSummary[] = [];
    for (const change of changes) {
      const summary: WindowSummary = {
        member: change.member_id,
        line_of_coverage: change.line_of_coverage,
        status: change.status,
        changes: JSON.parse(change.changes) as ChangeKind[],
        previous_plan: change.previous_plan,
        next_plan: change.next_plan,
      };
      // A move to another carrier's group is two benefit changes (the old group's `removed`, the new one's
      // `new`); for the member and the line it is one change of plan (docs/decisions.md "Benefit changes and
      // carriers": one summary per member and line of coverage).
      const last = summaries.at(-1);
      if (
        last &&
        summary.status === 'new' &&
        last.status === 'removed' &&
        last.member === summary.member &&
        last.line_of_coverage === summary.line_of_coverage
      ) {
        summaries[summaries.length - 1] = { ...last, status: 'change', changes: ['plan_change'], next_plan: summary.next_plan };
      } else {
        summaries.push(summary);
      }
    }
    return this.#respond(this.#db, row, (await repository.findWindowPlanIds(this.#db, [row.id])).get(row.id)!, summaries);
  }

  /** Endpoint 6 as JSON: a page of eligible members without a submitted enrollment, newest member first. */
  async incompleteMembersPage(scope: Scope, id: string, page: PageRequest): Promise<Page<IncompleteMember & { id: string; created_at: string }>> {
    const dated = await this.#datedWindowOrEmpty(scope, id);
    if (!dated) return { results: [], hasNext: false, hasPrevious: false };
    return this.#incompletePage(dated, page);
  }

  /**
   * Endpoint 6 as rows to stream (CSV): walks the members page by page, so a report of any size holds one
   * page in memory. The window is looked up first, so that a 404 comes before the first byte.
   */
  async incompleteMembersRows(scope: Scope, id: string): Promise<Readable> {
    const dated = await this.#datedWindowOrEmpty(scope, id);
    const walk = async function* (this: OpenEnrollmentWindowService): AsyncGenerator<IncompleteMember> {
      if (!dated) return;
      let after: { created_at: string; id: string } | undefined;
      for (;;) {
        const page = await this.#incompletePage(dated, after ? { pageSize: CSV_PAGE_SIZE, after } : { pageSize: CSV_PAGE_SIZE });
        for (const { id: _id, created_at: _createdAt, ...row } of page.results) yield row;
        const last = page.results.at(-1);
        if (!page.hasNext || !last) return;
        after = { created_at: last.created_at, id: last.id };
      }
    }.bind(this);
    return Readable.from(walk());
  }

  /** Daily sweep: active windows past their end_date are closed (each its own conditional update). */
  async closeWindowsPastEnd(day: string): Promise<number> {
    let closed = 0;
    for (const window of await repository.findWindowsPastEnd(this.#db, day)) {
      const won = await this.#db.transaction().execute(async (trx) => {
        const set = { closed_at: this.#clock.now().toISOString() };
        const { from, to } = WINDOW_TRANSITIONS.close;
        if (!(await repository.transitionWindow(trx, window.id, from, to, set))) return false;
        await this.#changes.commit(trx, { events: [eventOf('open_enrollment_window', WINDOW_EVENT_ACTIONS.close, { ...window, ...set, status: to })] });
        return true;
      });
      if (won) closed += 1;
    }
    return closed;
  }

  /** Daily sweep: open_enrollment_reminder to each incomplete member 7 days and 1 day before end_date. */
  async remindIncompleteMembers(day: string): Promise<number> {
    const endDates = REMINDER_DAYS_BEFORE_END.map((days) => addDays(day, days));
    let recorded = 0;
    for (const window of await repository.findActiveWindowsEndingOn(this.#db, endDates)) {
      const dated = datedWindow(window);
      if (!dated) continue;
      const daysBefore = reminderDaysBefore(dated.end_date, day);
      if (daysBefore === undefined) continue;
      const common = {
        providerId: window.provider_id,
        employerId: window.employer_id,
        type: 'open_enrollment_reminder',
        relatedObjectType: 'open_enrollment_window',
        relatedObjectId: window.id,
        owner: 'member',
      } as const;
      // Read once (a keyset page would filter every member again: about 75 ms a page at 50,000), then one
      // transaction per slice, which skips members who submitted since the read: the single SQLite connection is
      // never held for the whole window (about 1.4 s at 50,000 members). Each reminder is keyed, so a sweep
      // stopped half-way records only the rest when run again. (Read in a transaction of its own: read outside
      // one, the sweep process's peak heap was 186 MB against 102 MB in the runs made; V8 sizes its young
      // generation by what it sees, and bench/README.md shows that peak to be bimodal anyway.)
      const incomplete = await this.#db.transaction().execute((trx) => repository.findIncompleteMemberIds(trx, dated));
      for (const slice of batches(incomplete, NOTIFICATION_SLICE)) {
        recorded += await this.#db.transaction().execute(async (trx) => {
          const submitted = await repository.findMembersWithSubmittedEnrollment(trx, dated.id, slice);
          const notifications = slice
            .filter((member) => !submitted.has(member))
            .map((member) => ({
              ...common,
              payload: { open_enrollment_window: window.id, member, employer: window.employer_id, end_date: dated.end_date, days_left: String(daysBefore) },
              occurrenceKey: `open_enrollment_reminder:${window.id}:${member}:${daysBefore}`,
            }));
          return (await this.#changes.commit(trx, { notifications })).notified;
        });
      }
    }
    return recorded;
  }

  async #datedWindowOrEmpty(scope: Scope, id: string): Promise<repository.DatedWindow | undefined> {
    const row = await repository.findWindowById(this.#db, scope, id);
    if (!row) throw new NotFound('open enrollment window');
    // Without plans and dates (setup_required) no member is eligible yet: the report is empty.
    return row.status === 'setup_required' ? undefined : datedWindow(row);
  }

  async #incompletePage(dated: repository.DatedWindow, page: PageRequest): Promise<Page<IncompleteMember & { id: string; created_at: string }>> {
    const rows = await repository.pageIncompleteMembers(this.#db, dated, page);
    const enrollments = await repository.findLatestWindowEnrollments(
      this.#db,
      dated.id,
      rows.results.map((row) => row.id),
    );
    return {
      ...rows,
      results: rows.results.map((row) => {
        const enrollment = enrollments.get(row.id);
        // id and created_at place the row for the cursor; the response schema leaves them out.
        return {
          id: row.id,
          created_at: row.created_at,
          member: row.id,
          first_name: row.first_name,
          last_name: row.last_name,
          email: row.email,
          enrollment: enrollment?.id ?? null,
          enrollment_status: enrollment?.status ?? null,
        };
      }),
    };
  }

  /**
   * Passive open enrollment: each member's coverage in force the day before renewal_date becomes an enrollment
   * (reason passive_open_enrollment) starting on renewal_date, submitted and approved by the engine. Each line
   * goes to the plan the window offers for it on renewal_date (carry-over.ts): the same plan while it still
   * runs, else the plan that renews it, priced by the engine with that plan's rates and the member's
   * configuration of it; children aged out by renewal_date stay behind, and volumes are cut to fit the new
   * plan's guaranteed issue and volume rules. Lines with neither are not carried: their coverage ends with
   * their plan. A member whose carried elections still fail the submission rules is left as is, inside a
   * savepoint, and stays in the incomplete members report.
   */
  async #rollOver(trx: Transaction<Database>, window: repository.DatedWindow, planIds: readonly string[], memberIds: readonly string[]): Promise<number> {
    const scope: Scope = { providerId: window.provider_id, employerId: null };
    // The engine's own plan rows: the carry-over reads their dates, predecessor, guaranteed issue and volume rules.
    const offered = await findPlansByIds(trx, window.provider_id, planIds);
    const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, window.provider_id, planIds), (configuration) => configuration.plan_id);
    const lastDay = addDays(window.renewal_date, -1);
    let carriedOver = 0;
    for (const member of memberIds) {
      if (!(await claimOccurrence(trx, `passive_open_enrollment:${window.id}:${member}`, this.#clock.now().toISOString()))) continue;
      const coverage = await findCoveredLinesOn(trx, member, lastDay);
      const carried = coverage.flatMap((line) => {
        const plan = carriedPlan(line.plan_id, offered, window.renewal_date);
        return plan ? [{ line, plan }] : [];
      });
      if (carried.length === 0) continue;
      const subclassIds = await findMemberSubclassIds(trx, member);
      // Beneficiary designations go on with the life coverage they belong to.
      const designations = await findDesignationsOf(
        trx,
        carried.map(({ line }) => line.id),
      );
      const provider = (json: string | null) => {
        if (json === null) return null;
        const { id: _id, ...rest } = JSON.parse(json) as PrimaryCareProvider;
        return rest;
      };
      const input: CreateEnrollmentBody = {
        member,
        category: 'open_enrollment',
        reason: 'passive_open_enrollment',
        effective_start: window.renewal_date,
        enrolled_plans: carried.map(({ line, plan }) => {
          const configuration = selectPlanConfiguration(subclassIds, configurations.get(plan.id) ?? []);
          const dependents = line.dependents.filter((dependent) =>
            isDependentCarried(
              {
                relationship: dependent.member_relationship,
                dob: dependent.dob,
                disabilityCertifiedThrough: disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on),
              },
              configuration,
              window.renewal_date,
            ),
          );
          const volumes = carriedVolumes(
            { guaranteedIssueCents: plan.guaranteed_issue_volume_cents, rules: parseVolumeRules(plan.volume_rules) },
            line.volume_cents,
            dependents.map((dependent) => ({ relationship: dependent.member_relationship, volumeCents: dependent.volume_cents })),
          );
          return {
            plan: plan.id,
            beneficiary_designations: designationInputs(designations, line.id),
            enrolled_dependents: dependents.map((dependent, index) => ({
              dependent: dependent.dependent_id,
              requested_volume: money(volumes.dependents[index] ?? null),
            })),
            primary_care_provider: provider(line.primary_care_provider),
            payroll_provider_external_id: line.payroll_provider_external_id,
            requested_volume: money(volumes.member),
          };
        }),
      };
      await sql`savepoint passive_rollover`.execute(trx);
      try {
        const created = await this.#enrollments.createEnrollmentIn(trx, scope, input, { windowId: window.id });
        await this.#enrollments.submitEnrollmentIn(trx, scope, created.id);
        await this.#enrollments.approveEnrollmentIn(trx, scope, created.id);
        await sql`release savepoint passive_rollover`.execute(trx);
        carriedOver += 1;
      } catch (error) {
        if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
        await sql`rollback to savepoint passive_rollover`.execute(trx);
        await sql`release savepoint passive_rollover`.execute(trx);
      }
    }
    return carriedOver;
  }

  async #lockForAction(trx: Transaction<Database>, scope: Scope, id: string, action: WindowAction): Promise<OpenEnrollmentWindowRow> {
    const window = await repository.lockWindowById(trx, scope, id);
    if (!window) throw new NotFound('open enrollment window');
    assertWindowTransition(action, window.status);
    return window;
  }

  /** Checks the action against the status machine, then applies it as a conditional update. */
  async #transition(
    trx: Transaction<Database>,
    window: OpenEnrollmentWindowRow,
    action: WindowAction,
    set: Parameters<typeof repository.transitionWindow>[4] = {},
  ): Promise<OpenEnrollmentWindowRow> {
    const to = assertWindowTransition(action, window.status);
    const won = await repository.transitionWindow(trx, window.id, WINDOW_TRANSITIONS[action].from, to, set);
    if (!won) throw new InvalidState(`The window changed status while this request ran; it is no longer ${window.status}.`);
    return { ...window, ...set, status: to };
  }

  /** Dates in order, plans of the window's employer and offered on its renewal_date. */
  async #assertValid(trx: Executor, row: OpenEnrollmentWindowRow, planIds: readonly string[]): Promise<void> {
    const errors: InputError[] = [];
    const { start_date: start, end_date: end, renewal_date: renewal } = row;
    if (start !== null && end !== null && compareDates(end, start) < 0) errors.push(inputError(['end_date'], 'The end_date cannot be before the start_date.'));
    if (end !== null && renewal !== null && compareDates(renewal, end) <= 0) {
      errors.push(inputError(['renewal_date'], 'The renewal_date (when the elections take effect) must be after the end_date.'));
    }
    if (start !== null && renewal !== null && end === null && compareDates(renewal, start) <= 0) {
      errors.push(inputError(['renewal_date'], 'The renewal_date must be after the start_date.'));
    }
    const plans = new Map((await repository.findEmployerPlans(trx, row.provider_id, row.employer_id, planIds)).map((plan) => [plan.id, plan]));
    planIds.forEach((planId, index) => {
      const plan = plans.get(planId);
      if (!plan) errors.push(inputError(['plans', index], "No such plan for the window's employer."));
      else if (renewal !== null && (compareDates(plan.effective_start, renewal) > 0 || compareDates(plan.effective_end, renewal) < 0)) {
        errors.push(
          inputError(['plans', index], `The plan is offered from ${plan.effective_start} to ${plan.effective_end}, not on the renewal_date ${renewal}.`),
        );
      }
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
  }

  /** The window as answered: counts frozen once completed, live before (none while setup_required). */
  async #respond(db: Executor, row: OpenEnrollmentWindowRow, planIds: string[], summaries: WindowSummary[] = []): Promise<WindowResponse> {
    if (row.status === 'completed') {
      return toWindowResponse(row, planIds, { completed: row.completed_member_count ?? 0, incomplete: row.incomplete_member_count ?? 0 }, summaries);
    }
    const dated = row.status === 'setup_required' ? undefined : datedWindow(row);
    const counts = dated ? await repository.countMembers(db, dated) : { eligible: 0, completed: 0 };
    return toWindowResponse(row, planIds, { completed: counts.completed, incomplete: counts.eligible - counts.completed }, summaries);
  }
}

function isConfigured(row: OpenEnrollmentWindowRow, planIds: readonly string[]): boolean {
  return planIds.length > 0 && row.start_date !== null && row.end_date !== null && row.renewal_date !== null;
}
