/** What an open enrollment window reports (its changes, its incomplete members) and the reminders the sweep sends them. */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Page, PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { batches } from '../../shared/batches.ts';
import { addDays } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { findWindowCoverageChanges } from '../coverage/window-coverage.repository.ts';
import { REMINDER_DAYS_BEFORE_END, reminderDaysBefore } from '../daily-sweep/sweep-rules.ts';
import * as repository from './open-enrollment-window.repository.ts';
import type { IncompleteMember, WindowResponse, WindowSummary } from './open-enrollment-window.schemas.ts';
import { datedWindow, windowResponse } from './window-response.ts';

/** Notifications built and inserted at a time by kickoffs and reminders. */
export const NOTIFICATION_SLICE = 2000;

/** Rows per page when the CSV report walks the members (keyset pages, so memory stays flat). */
const CSV_PAGE_SIZE = 1000;

export class WindowReports {
  readonly #db: Kysely<Database>;
  readonly #changes: ChangeCommit;

  constructor(options: { db: Kysely<Database>; changes: ChangeCommit }) {
    this.#db = options.db;
    this.#changes = options.changes;
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
    return windowResponse(this.#db, row, (await repository.findWindowPlanIds(this.#db, [row.id])).get(row.id)!, summaries);
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
    const walk = async function* (this: WindowReports): AsyncGenerator<IncompleteMember> {
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
}
