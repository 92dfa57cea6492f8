import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible, lockEmployerRow } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import { batches } from '../../shared/batches.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './open-enrollment-window.repository.ts';
import type { CreateWindowBody, UpdateWindowBody, WindowResponse } from './open-enrollment-window.schemas.ts';
import type { OpenEnrollmentWindowRow, WindowStatus } from './open-enrollment-window.table.ts';
import { PASSIVE_ROLLOVER_JOB, PassiveCarryOver, type EnrollmentEngine } from './passive-carry-over.ts';
import { NOTIFICATION_SLICE, WindowReports } from './window-reports.ts';
import { datedWindow, windowResponse } from './window-response.ts';
import { EDITABLE_WINDOW_STATUSES, WINDOW_EVENT_ACTIONS, WINDOW_TRANSITIONS, assertWindowTransition, type WindowAction } from './window-status.ts';

export class OpenEnrollmentWindowService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  /** The window's reports (changes, incomplete members) and the sweep's reminders. */
  readonly reports: WindowReports;
  /** The passive carry-over the job of a completed passive window runs. */
  readonly carryOver: PassiveCarryOver;

  constructor(options: { db: Kysely<Database>; clock: Clock; changes: ChangeCommit; enrollments: EnrollmentEngine }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#changes = options.changes;
    this.reports = new WindowReports(options);
    this.carryOver = new PassiveCarryOver(options);
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
      return windowResponse(trx, row, planIds);
    });
  }

  async getWindow(scope: Scope, id: string): Promise<WindowResponse> {
    const row = await repository.findWindowById(this.#db, scope, id);
    if (!row) throw new NotFound('open enrollment window');
    return windowResponse(this.#db, row, (await repository.findWindowPlanIds(this.#db, [row.id])).get(row.id)!);
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
    for (const row of rows.results) results.push(await windowResponse(this.#db, row, plans.get(row.id)!));
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
      return windowResponse(trx, updated, planIds);
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
      return windowResponse(trx, activated, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
    });
  }

  async closeWindow(scope: Scope, id: string): Promise<WindowResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const window = await this.#lockForAction(trx, scope, id, 'close');
      const closed = await this.#transition(trx, window, 'close', { closed_at: this.#clock.now().toISOString() });
      await this.#changes.commit(trx, { events: [eventOf('open_enrollment_window', WINDOW_EVENT_ACTIONS.close, closed)] });
      return windowResponse(trx, closed, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
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
        jobs: [{ kind: PASSIVE_ROLLOVER_JOB, payload: { open_enrollment_window: id } }],
      });
      return windowResponse(trx, completed, (await repository.findWindowPlanIds(trx, [id])).get(id)!);
    });
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

  /** The job of a completed passive window (PassiveCarryOver.rollOverPassively). */
  async rollOverPassively(windowId: string): Promise<number> {
    return this.carryOver.rollOverPassively(windowId);
  }

  /** Daily sweep: reminders to incomplete members (WindowReports.remindIncompleteMembers). */
  async remindIncompleteMembers(day: string): Promise<number> {
    return this.reports.remindIncompleteMembers(day);
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
}

function isConfigured(row: OpenEnrollmentWindowRow, planIds: readonly string[]): boolean {
  return planIds.length > 0 && row.start_date !== null && row.end_date !== null && row.renewal_date !== null;
}
