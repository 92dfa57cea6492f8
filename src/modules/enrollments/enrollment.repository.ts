import { insertRows } from '../../db/bulk-insert.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { LineOfCoverage, PlanRow } from '../plans/plan.table.ts';
import { DESIGNATION_LINES } from './enrollment.table.ts';
import type {
  BeneficiaryDesignationRow,
  CoverageWaiverTable,
  EnrolledDependentRow,
  EnrolledPlanRow,
  EnrollmentRow,
  EnrollmentStatus,
} from './enrollment.table.ts';

export type CoverageWaiverRow = CoverageWaiverTable;

export interface Elections {
  plans: EnrolledPlanRow[];
  dependents: EnrolledDependentRow[];
  waivers: CoverageWaiverRow[];
  /** Beneficiary designations of the life and AD&D plans, in their positions. */
  designations: BeneficiaryDesignationRow[];
  /** The line of coverage of each enrolled plan (by enrolled plan id). */
  lines: Map<string, LineOfCoverage>;
  /**
   * The plan of each election as read when the elections were built in this transaction (by plan id); absent on
   * elections read back from the database. Approval then needs not read the plans again.
   */
  planRows?: ReadonlyMap<string, PlanRow>;
}

function enrollments(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('enrollments').selectAll(), scope, 'enrollments', 'employer_id');
}

export const findEnrollmentById: (db: Executor, scope: Scope, id: string) => Promise<EnrollmentRow | undefined> = findByIdInScope(enrollments);

export function lockEnrollmentById(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentRow | undefined> {
  return forUpdate(trx, enrollments(trx, scope).where('id', '=', id)).executeTakeFirst();
}

/**
 * Locks an enrollment's member, then the enrollment: the lock order of docs/architecture.md, which every path
 * that locks both takes through this function (locking the enrollment first deadlocks against one that holds
 * the member). Undefined when either is gone or out of scope, or when the enrollment, as locked, is not the
 * member's: the member lock would then not guard it.
 */
export async function lockMemberThenEnrollment(
  trx: Transaction<Database>,
  scope: Scope,
  enrollmentId: string,
): Promise<{ member: MemberRow; enrollment: EnrollmentRow } | undefined> {
  const found = await findEnrollmentById(trx, scope, enrollmentId);
  if (!found) return undefined;
  const member = await lockMemberById(trx, scope, found.member_id);
  const enrollment = member && (await lockEnrollmentById(trx, scope, enrollmentId));
  if (!member || !enrollment || enrollment.member_id !== member.id) return undefined;
  return { member, enrollment };
}

export function listEnrollments(
  db: Executor,
  scope: Scope,
  filter: { memberId?: string | undefined; employerId?: string | undefined; status?: EnrollmentStatus | undefined },
  page: PageRequest,
): Promise<Page<EnrollmentRow>> {
  let query = enrollments(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return paginate(query, page);
}

export async function insertEnrollment(trx: Executor, row: EnrollmentRow): Promise<void> {
  await insertRows(trx, 'enrollments', [row]);
}

export async function updateEnrollmentFields(trx: Executor, row: EnrollmentRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await trx.updateTable('enrollments').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

/**
 * The status change of a lifecycle action, as one conditional UPDATE: it happens only if the enrollment is
 * still in one of `from`, so of two racing requests exactly one wins. Returns whether this one did.
 */
export async function transitionEnrollment(
  trx: Transaction<Database>,
  id: string,
  from: readonly EnrollmentStatus[],
  to: EnrollmentStatus,
  set: {
    submitted_at?: string | null;
    approved_at?: string;
    open_enrollment_window_id?: string | null;
    cancellation_reason?: EnrollmentRow['cancellation_reason'];
  } = {},
): Promise<boolean> {
  const result = await trx
    .updateTable('enrollments')
    .set({ status: to, ...set })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function replaceElections(trx: Executor, enrollmentId: string, elections: Elections): Promise<void> {
  await trx.deleteFrom('enrolled_plans').where('enrollment_id', '=', enrollmentId).execute();
  await trx.deleteFrom('coverage_waivers').where('enrollment_id', '=', enrollmentId).execute();
  await insertElections(trx, elections);
}

/** The elections of a new enrollment (nothing to replace). */
export async function insertElections(trx: Executor, elections: Elections): Promise<void> {
  // Written as texts of their own (insertRows), not built by Kysely: every approval and age-out writes these.
  await insertRows(trx, 'enrolled_plans', elections.plans);
  await insertRows(trx, 'enrolled_dependents', elections.dependents);
  await insertRows(trx, 'coverage_waivers', elections.waivers);
  await insertRows(trx, 'beneficiary_designations', elections.designations);
}

/** Dependents added to enrolled plans that exist (an amendment in place: later-elections.ts). */
export async function insertEnrolledDependents(trx: Executor, rows: readonly EnrolledDependentRow[]): Promise<void> {
  await insertRows(trx, 'enrolled_dependents', rows);
}

/** Enrolled plans, their dependents and the waivers of several enrollments, in their positions. */
export async function findElections(db: Executor, enrollmentIds: readonly string[]): Promise<Elections> {
  if (enrollmentIds.length === 0) return { plans: [], dependents: [], waivers: [], designations: [], lines: new Map() };
  const rows = await db
    .selectFrom('enrolled_plans')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .selectAll('enrolled_plans')
    .select('plans.line_of_coverage as plan_line_of_coverage')
    .where('enrolled_plans.enrollment_id', 'in', enrollmentIds)
    .orderBy('enrolled_plans.enrollment_id')
    .orderBy('enrolled_plans.position')
    .execute();
  const lines = new Map(rows.map((row) => [row.id, row.plan_line_of_coverage]));
  const plans: EnrolledPlanRow[] = rows.map(({ plan_line_of_coverage: _line, ...plan }) => plan);
  const dependents =
    plans.length === 0
      ? []
      : await db
          .selectFrom('enrolled_dependents')
          .selectAll()
          .where(
            'enrolled_plan_id',
            'in',
            plans.map((plan) => plan.id),
          )
          .orderBy('enrolled_plan_id')
          .orderBy('position')
          .execute();
  const waivers = await db
    .selectFrom('coverage_waivers')
    .selectAll()
    .where('enrollment_id', 'in', enrollmentIds)
    .orderBy('enrollment_id')
    .orderBy('position')
    .execute();
  // Only life and AD&D plans carry designations: most enrollments need no query for them.
  const designated = plans.filter((plan) => DESIGNATION_LINES.has(lines.get(plan.id)!)).map((plan) => plan.id);
  return { plans, dependents, waivers, designations: await findDesignationsOf(db, designated), lines };
}

const designationsOf = cachedQuery((db, enrolledPlanIds: readonly string[]) =>
  db.selectFrom('beneficiary_designations').selectAll().where('enrolled_plan_id', 'in', enrolledPlanIds).orderBy('enrolled_plan_id').orderBy('position'),
);

/** The beneficiary designations of enrolled plans, in their positions. */
export function findDesignationsOf(db: Executor, enrolledPlanIds: readonly string[]): Promise<BeneficiaryDesignationRow[]> {
  if (enrolledPlanIds.length === 0) return Promise.resolve([]);
  return designationsOf(db, enrolledPlanIds);
}

const enrolledDependentsOf = cachedQuery((db, enrolledPlanIds: readonly string[]) =>
  db.selectFrom('enrolled_dependents').selectAll().where('enrolled_plan_id', 'in', enrolledPlanIds).orderBy('enrolled_plan_id').orderBy('position'),
);

/** The enrolled dependents of enrolled plans, in their positions. */
export function findEnrolledDependentsOf(db: Executor, enrolledPlanIds: readonly string[]): Promise<EnrolledDependentRow[]> {
  if (enrolledPlanIds.length === 0) return Promise.resolve([]);
  return enrolledDependentsOf(db, enrolledPlanIds);
}

export async function updateEnrolledPlanVolume(
  trx: Executor,
  id: string,
  set: Partial<
    Pick<EnrolledPlanRow, 'volume_cents' | 'eoi_status' | 'volume_approved_at' | 'premium_cents' | 'employer_contribution_cents' | 'member_contribution_cents'>
  >,
): Promise<void> {
  await trx.updateTable('enrolled_plans').set(set).where('id', '=', id).execute();
}

export async function updateEnrolledDependentVolume(
  trx: Executor,
  id: string,
  set: Partial<Pick<EnrolledDependentRow, 'volume_cents' | 'eoi_status' | 'volume_approved_at'>>,
): Promise<void> {
  await trx.updateTable('enrolled_dependents').set(set).where('id', '=', id).execute();
}

/** Enrolled plans by id (the caller read the ids from the database), in id order. */
export function findEnrolledPlansByIds(db: Executor, ids: readonly string[]): Promise<EnrolledPlanRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('enrolled_plans').selectAll().where('id', 'in', ids).orderBy('id').execute();
}
