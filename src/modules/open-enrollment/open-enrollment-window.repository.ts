import { sql, type ExpressionBuilder } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import { paginate, type Page, type PageRequest, type Position } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import type { OpenEnrollmentWindowRow, WindowStatus } from './open-enrollment-window.table.ts';

/** Enrollment statuses that count as "submitted" for a window: pending, approved or synced. */
export const SUBMITTED_STATUSES: readonly EnrollmentStatus[] = ['pending', 'approved', 'synced'];

function windows(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('open_enrollment_windows').selectAll(), scope, 'open_enrollment_windows', 'employer_id');
}

export const findWindowById: (db: Executor, scope: Scope, id: string) => Promise<OpenEnrollmentWindowRow | undefined> = findByIdInScope(windows);

export function lockWindowById(trx: Transaction<Database>, scope: Scope, id: string): Promise<OpenEnrollmentWindowRow | undefined> {
  return forUpdate(trx, windows(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listWindows(
  db: Executor,
  scope: Scope,
  filter: { employerId?: string | undefined; status?: WindowStatus | undefined },
  page: PageRequest,
): Promise<Page<OpenEnrollmentWindowRow>> {
  let query = windows(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return paginate(query, page);
}

export async function insertWindow(trx: Executor, row: OpenEnrollmentWindowRow): Promise<void> {
  await trx.insertInto('open_enrollment_windows').values(row).execute();
}

export async function updateWindowFields(trx: Executor, row: OpenEnrollmentWindowRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, status: _status, ...changes } = row;
  await trx.updateTable('open_enrollment_windows').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

/** A status change as one conditional UPDATE: it applies only if the window is still in one of `from`. */
export async function transitionWindow(
  trx: Transaction<Database>,
  id: string,
  from: readonly WindowStatus[],
  to: WindowStatus,
  set: Partial<Pick<OpenEnrollmentWindowRow, 'activated_at' | 'closed_at' | 'completed_at' | 'completed_member_count' | 'incomplete_member_count'>> = {},
): Promise<boolean> {
  const result = await trx
    .updateTable('open_enrollment_windows')
    .set({ status: to, ...set })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function replaceWindowPlans(trx: Executor, windowId: string, planIds: readonly string[]): Promise<void> {
  await trx.deleteFrom('open_enrollment_window_plans').where('window_id', '=', windowId).execute();
  if (planIds.length > 0) {
    await trx
      .insertInto('open_enrollment_window_plans')
      .values(planIds.map((plan_id, position) => ({ window_id: windowId, plan_id, position })))
      .execute();
  }
}

export async function findWindowPlanIds(db: Executor, windowIds: readonly string[]): Promise<Map<string, string[]>> {
  const byWindow = new Map(windowIds.map((id) => [id, [] as string[]]));
  if (windowIds.length === 0) return byWindow;
  const rows = await db
    .selectFrom('open_enrollment_window_plans')
    .select(['window_id', 'plan_id'])
    .where('window_id', 'in', [...windowIds])
    .orderBy('window_id')
    .orderBy('position')
    .execute();
  for (const row of rows) byWindow.get(row.window_id)?.push(row.plan_id);
  return byWindow;
}

/** A window as an enrollment in it sees it: its renewal date and the plans it offers, in their positions. */
export interface WindowOfEnrollment {
  id: string;
  renewalDate: string | null;
  planIds: string[];
}

async function withPlanIds(db: Executor, window: { id: string; renewal_date: string | null } | undefined): Promise<WindowOfEnrollment | undefined> {
  if (!window) return undefined;
  const plans = await db.selectFrom('open_enrollment_window_plans').select('plan_id').where('window_id', '=', window.id).orderBy('position').execute();
  return { id: window.id, renewalDate: window.renewal_date, planIds: plans.map((row) => row.plan_id) };
}

/** The employer's active open enrollment window whose dates contain `date` (active windows never overlap). */
export async function findOpenWindowOn(db: Executor, providerId: string, employerId: string, date: string): Promise<WindowOfEnrollment | undefined> {
  const window = await db
    .selectFrom('open_enrollment_windows')
    .select(['id', 'renewal_date'])
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('status', '=', 'active')
    .where('start_date', '<=', date)
    .where('end_date', '>=', date)
    .executeTakeFirst();
  return withPlanIds(db, window);
}

/** The window an enrollment names (any status; no tenant scope: the enrollment's own reference). */
export async function findWindowOfEnrollmentById(db: Executor, id: string): Promise<WindowOfEnrollment | undefined> {
  return withPlanIds(db, await db.selectFrom('open_enrollment_windows').select(['id', 'renewal_date']).where('id', '=', id).executeTakeFirst());
}

/** Plans among `ids` of the employer, with the dates they are offered. */
export function findEmployerPlans(db: Executor, providerId: string, employerId: string, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('plans')
    .select(['id', 'effective_start', 'effective_end'])
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', 'in', [...ids])
    .execute();
}

/** Other active windows of the employer whose dates overlap [start, end]. */
export function findOverlappingActiveWindows(db: Executor, window: OpenEnrollmentWindowRow, start: string, end: string) {
  return db
    .selectFrom('open_enrollment_windows')
    .select('id')
    .where('provider_id', '=', window.provider_id)
    .where('employer_id', '=', window.employer_id)
    .where('status', '=', 'active')
    .where('id', '!=', window.id)
    .where('start_date', '<=', end)
    .where('end_date', '>=', start)
    .execute();
}

export interface DatedWindow {
  id: string;
  provider_id: string;
  employer_id: string;
  end_date: string;
  renewal_date: string;
}

type MembersBuilder = ExpressionBuilder<Database, 'members'>;

/** Whether the member has a submitted (pending, approved or synced) enrollment in the window. */
function hasSubmitted(eb: MembersBuilder, windowId: string) {
  return eb.exists(
    eb
      .selectFrom('enrollments as submitted')
      .select(sql<number>`1`.as('one'))
      .where('submitted.open_enrollment_window_id', '=', windowId)
      .whereRef('submitted.member_id', '=', 'members.id')
      .where('submitted.status', 'in', [...SUBMITTED_STATUSES]),
  );
}

/**
 * The window's eligible members: the employer's members hired by the window's end_date, not terminated
 * before its renewal_date, to whom a plan configuration of one of the window's plans applies (one requiring
 * a subclass of theirs, or one requiring none).
 */
function eligibleMembers(db: Executor, window: DatedWindow) {
  return db
    .selectFrom('members')
    .where('members.provider_id', '=', window.provider_id)
    .where('members.employer_id', '=', window.employer_id)
    .where('members.hire_date', '<=', window.end_date)
    .where((eb) => eb.or([eb('members.termination_date', 'is', null), eb('members.termination_date', '>=', window.renewal_date)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('plan_configurations as configuration')
          .innerJoin('open_enrollment_window_plans as offered', 'offered.plan_id', 'configuration.plan_id')
          .select(sql<number>`1`.as('one'))
          .where('offered.window_id', '=', window.id)
          .where((inner) =>
            inner.or([
              inner('configuration.required_subclass_id', 'is', null),
              inner(
                'configuration.required_subclass_id',
                'in',
                inner.selectFrom('member_subclasses').select('member_subclasses.subclass_id').whereRef('member_subclasses.member_id', '=', 'members.id'),
              ),
            ]),
          ),
      ),
    );
}

/** Eligible members, and those of them with a submitted enrollment in the window. */
export async function countMembers(db: Executor, window: DatedWindow): Promise<{ eligible: number; completed: number }> {
  const row = await eligibleMembers(db, window)
    .select((eb) => [
      eb.fn.countAll<number>().as('eligible'),
      eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(hasSubmitted(eb, window.id)).then(1).else(0).end()), sql<number>`0`).as('completed'),
    ])
    .executeTakeFirstOrThrow();
  return { eligible: Number(row.eligible), completed: Number(row.completed) };
}

export interface IncompleteMemberRow extends Position {
  first_name: string;
  last_name: string;
  email: string | null;
}

/** The window's eligible members without a submitted enrollment (select what is needed). */
function withoutSubmission(db: Executor, window: DatedWindow) {
  return eligibleMembers(db, window).where((eb) => eb.not(hasSubmitted(eb, window.id)));
}

function incompleteMembers(db: Executor, window: DatedWindow) {
  return withoutSubmission(db, window).select(['members.id', 'members.created_at', 'members.first_name', 'members.last_name', 'members.email']);
}

/** One page of the eligible members without a submitted enrollment, newest first (keyset on members). */
export function pageIncompleteMembers(db: Executor, window: DatedWindow, page: PageRequest): Promise<Page<IncompleteMemberRow>> {
  return paginate(incompleteMembers(db, window), page, 'members');
}

/** Those of `memberIds` with a submitted (pending, approved or synced) enrollment in the window. */
export async function findMembersWithSubmittedEnrollment(db: Executor, windowId: string, memberIds: readonly string[]): Promise<Set<string>> {
  if (memberIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('enrollments')
    .select('member_id')
    .where('open_enrollment_window_id', '=', windowId)
    .where('member_id', 'in', [...memberIds])
    .where('status', 'in', [...SUBMITTED_STATUSES])
    .execute();
  return new Set(rows.map((row) => row.member_id));
}

/** The latest enrollment each member has in the window (any status), for the incomplete members report. */
export async function findLatestWindowEnrollments(
  db: Executor,
  windowId: string,
  memberIds: readonly string[],
): Promise<Map<string, { id: string; status: EnrollmentStatus }>> {
  const latest = new Map<string, { id: string; status: EnrollmentStatus }>();
  if (memberIds.length === 0) return latest;
  const rows = await db
    .selectFrom('enrollments')
    .select(['id', 'member_id', 'status'])
    .where('open_enrollment_window_id', '=', windowId)
    .where('member_id', 'in', [...memberIds])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of rows) if (!latest.has(row.member_id)) latest.set(row.member_id, { id: row.id, status: row.status });
  return latest;
}

/** Active windows whose end_date is before `day`: the sweep closes them. */
export function findWindowsPastEnd(db: Executor, day: string) {
  return db.selectFrom('open_enrollment_windows').selectAll().where('status', '=', 'active').where('end_date', '<', day).execute();
}

/** Active windows ending on one of `endDates`: the sweep reminds their incomplete members. */
export function findActiveWindowsEndingOn(db: Executor, endDates: readonly string[]) {
  return db
    .selectFrom('open_enrollment_windows')
    .selectAll()
    .where('status', '=', 'active')
    .where('end_date', 'in', [...endDates])
    .execute();
}

export async function findEligibleMemberIds(db: Executor, window: DatedWindow): Promise<string[]> {
  const rows = await eligibleMembers(db, window).select('members.id').orderBy('members.id').execute();
  return rows.map((row) => row.id);
}

/** Incomplete members' ids in id order; `after` and `limit` walk them in batches. */
export async function findIncompleteMemberIds(db: Executor, window: DatedWindow, options: { after?: string; limit?: number } = {}): Promise<string[]> {
  // Only the id: the sweep reads every incomplete member of a window (50,000 rows) through here.
  let query = withoutSubmission(db, window).select('members.id').orderBy('members.id');
  if (options.after !== undefined) query = query.where('members.id', '>', options.after);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => row.id);
}
