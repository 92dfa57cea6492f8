import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import type { Database } from '../../db/schema.ts';
import { selectCoverageEntries, type CoverageEntry } from './coverage-entry.ts';
import type { EnrolledDependentRow, EnrolledPlanRow, EnrollmentStatus } from '../enrollments/enrollment.table.ts';
import { CHILD_LIKE_RELATIONSHIPS, type DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { coverageInForceOn, isCoverage, latestPerLine } from './coverage-in-force.ts';
import type { CoverageEndCause, CoverageTerminationItemRow, CoverageTerminationRow } from './coverage.table.ts';

/**
 * Every coverage entry of the member (isCoverage, any dates) that runs past `date` or starts after it: what a
 * termination on `date` may have to end or cancel. Oldest first.
 */
export function findCoverageRunningPast(trx: Transaction<Database>, memberId: string, date: string): Promise<CoverageEntry[]> {
  return coverageRunningPast(trx, memberId, date);
}

const coverageRunningPast = cachedQuery((db, memberId: string, date: string) =>
  selectCoverageEntries(db)
    .where('enrolled_plans.member_id', '=', memberId)
    .where(isCoverage())
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>', date)]))
    .orderBy('enrolled_plans.effective_start')
    .orderBy('enrolled_plans.created_at')
    .orderBy('enrolled_plans.enrollment_id')
    .orderBy('enrolled_plans.position'),
);

/**
 * The member's coverage on plans `planIds` in force on `date`: what an age-out whose first day without
 * coverage is `date` may still change (the coverage runs past the day before).
 */
export function findCoverageOfPlansOn(trx: Transaction<Database>, memberId: string, planIds: readonly string[], date: string): Promise<EnrolledPlanRow[]> {
  if (planIds.length === 0) return Promise.resolve([]);
  return coverageOfPlansOn(trx, memberId, planIds, date);
}

const coverageOfPlansOn = cachedQuery((db, memberId: string, planIds: readonly string[], date: string) =>
  db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .selectAll('enrolled_plans')
    .where('enrolled_plans.member_id', '=', memberId)
    .where('enrolled_plans.plan_id', 'in', planIds)
    .where(coverageInForceOn(date))
    .orderBy('enrolled_plans.enrollment_id')
    .orderBy('enrolled_plans.position'),
);

/**
 * The member's coverage in force on `date` on the given lines (coverageInForceOn), other than that of
 * `exceptEnrollmentId`: the latest starting one per line.
 */
export async function findCoverageInForce(
  db: Executor,
  memberId: string,
  lines: readonly LineOfCoverage[],
  date: string,
  exceptEnrollmentId: string,
): Promise<CoverageEntry[]> {
  if (lines.length === 0) return [];
  return latestPerLine(await coverageInForceOnLines(db, memberId, lines, date, exceptEnrollmentId));
}

const coverageInForceOnLines = cachedQuery((db, memberId: string, lines: readonly string[], date: string, exceptEnrollmentId: string) =>
  selectCoverageEntries(db)
    .where('enrolled_plans.member_id', '=', memberId)
    .where(coverageInForceOn(date))
    .where('enrollments.id', '!=', exceptEnrollmentId)
    .where('plans.line_of_coverage', 'in', lines as readonly LineOfCoverage[])
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc'),
);

/**
 * The member's elections on `lines` that start after `date`, of enrollments other than `exceptEnrollmentId` that
 * are coverage (isCoverage) or pending approval, leaving out cancelled coverage (ending before it starts): what
 * an enrollment starting on `date` reaches forward to (enrollments/later-elections.ts). Earliest first.
 */
export function findElectionsStartingAfter(
  db: Executor,
  memberId: string,
  lines: readonly LineOfCoverage[],
  date: string,
  exceptEnrollmentId: string,
): Promise<CoverageEntry[]> {
  if (lines.length === 0) return Promise.resolve([]);
  return selectCoverageEntries(db)
    .where('enrolled_plans.member_id', '=', memberId)
    .where('plans.line_of_coverage', 'in', [...lines])
    .where('enrolled_plans.effective_start', '>', date)
    .where('enrollments.id', '!=', exceptEnrollmentId)
    .where((eb) => eb.or([isCoverage()(eb), eb('enrollments.status', '=', 'pending' satisfies EnrollmentStatus)]))
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>=', eb.ref('enrolled_plans.effective_start'))]))
    .orderBy('enrolled_plans.effective_start')
    .orderBy('enrolled_plans.created_at')
    .orderBy('enrolled_plans.enrollment_id')
    .orderBy('enrolled_plans.position')
    .execute();
}

/** The member's coverage of `line` on group `groupId`'s plans in force on `date` (the latest starting), if any. */
export function findCoverageOfGroupLineOn(
  db: Executor,
  input: { memberId: string; groupId: string; lineOfCoverage: LineOfCoverage; date: string },
): Promise<CoverageEntry | undefined> {
  return selectCoverageEntries(db)
    .where('enrolled_plans.member_id', '=', input.memberId)
    .where('plans.group_id', '=', input.groupId)
    .where('plans.line_of_coverage', '=', input.lineOfCoverage)
    .where(coverageInForceOn(input.date))
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc')
    .executeTakeFirst();
}

/** One coverage entry by its enrolled plan's id, whatever its dates or its enrollment's status. */
export function findCoverageEntryById(db: Executor, enrolledPlanId: string): Promise<CoverageEntry | undefined> {
  return selectCoverageEntries(db).where('enrolled_plans.id', '=', enrolledPlanId).executeTakeFirst();
}

/** The member's coverage in force on `date` (coverageInForceOn), the latest starting one per line. */
export async function findAllCoverageInForce(db: Executor, memberId: string, date: string) {
  const rows = await db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .selectAll('enrolled_plans')
    .select(['plans.line_of_coverage', 'enrollments.status as enrollment_status'])
    .where('enrolled_plans.member_id', '=', memberId)
    .where(coverageInForceOn(date))
    .orderBy('plans.line_of_coverage')
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc')
    .execute();
  return latestPerLine(rows);
}

export async function endCoverage(trx: Executor, enrolledPlanId: string, lastDay: string): Promise<void> {
  await endingCoverage(trx, lastDay, enrolledPlanId);
}

const endingCoverage = cachedQuery((db, lastDay: string, enrolledPlanId: string) =>
  db.updateTable('enrolled_plans').set({ effective_end: lastDay }).where('id', '=', enrolledPlanId),
);

/** Who the enrolled plans cover besides the member, with each one's volume (no order). */
export function findDependentVolumesOf(
  db: Executor,
  enrolledPlanIds: readonly string[],
): Promise<Pick<EnrolledDependentRow, 'enrolled_plan_id' | 'dependent_id' | 'volume_cents'>[]> {
  if (enrolledPlanIds.length === 0) return Promise.resolve([]);
  return dependentVolumesOf(db, enrolledPlanIds);
}

const dependentVolumesOf = cachedQuery((db, enrolledPlanIds: readonly string[]) =>
  db.selectFrom('enrolled_dependents').select(['enrolled_plan_id', 'dependent_id', 'volume_cents']).where('enrolled_plan_id', 'in', enrolledPlanIds),
);

/** The dependents each enrolled plan covers, in their positions. */
export async function findDependentIdsOfPlans(db: Executor, enrolledPlanIds: readonly string[]): Promise<Map<string, string[]>> {
  const byPlan = new Map(enrolledPlanIds.map((id) => [id, [] as string[]]));
  if (enrolledPlanIds.length === 0) return byPlan;
  for (const row of await dependentIdsOfPlans(db, [...new Set(enrolledPlanIds)])) byPlan.get(row.enrolled_plan_id)?.push(row.dependent_id);
  return byPlan;
}

const dependentIdsOfPlans = cachedQuery((db, enrolledPlanIds: readonly string[]) =>
  db.selectFrom('enrolled_dependents').select(['enrolled_plan_id', 'dependent_id']).where('enrolled_plan_id', 'in', enrolledPlanIds).orderBy('enrolled_plan_id').orderBy('position'),
);

/**
 * Dependents covered on `day` (coverageInForceOn), with the plan and member covering them: the sweep's age-out
 * candidates; only children (isChildLike) born on or before `bornBy` when given (ageOutCandidatesBornBy).
 */
export function findDependentsCoveredOn(db: Executor, day: string, bornBy?: string) {
  let query = db
    .selectFrom('enrolled_dependents')
    .innerJoin('enrolled_plans', 'enrolled_plans.id', 'enrolled_dependents.enrolled_plan_id')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('dependents', 'dependents.id', 'enrolled_dependents.dependent_id')
    .select([
      'dependents.id as dependent_id',
      'dependents.dob',
      'dependents.member_relationship',
      'dependents.has_disability',
      'dependents.disability_certified_on',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'enrolled_plans.plan_id',
      'enrollments.member_id',
      'enrollments.employer_id',
      'enrollments.provider_id',
    ])
    .where(coverageInForceOn(day));
  if (bornBy !== undefined) query = query.where('dependents.member_relationship', 'in', CHILD_LIKE_RELATIONSHIPS).where('dependents.dob', '<=', bornBy);
  return query.execute();
}

const enrollmentsNotApproved = cachedQuery((db, memberId: string) =>
  db
    .selectFrom('enrollments')
    .selectAll()
    .where('member_id', '=', memberId)
    .where('status', 'in', ['not_started', 'pending'] satisfies EnrollmentStatus[])
    .orderBy('created_at')
    .orderBy('id'),
);

/** The member's enrollments not yet approved (not_started, pending), with the starts of their enrolled plans. */
export async function findEnrollmentsNotApproved(trx: Transaction<Database>, memberId: string) {
  const enrollments = await enrollmentsNotApproved(trx, memberId);
  if (enrollments.length === 0) return [];
  const plans = await trx
    .selectFrom('enrolled_plans')
    .select(['enrollment_id', 'effective_start'])
    .where('enrollment_id', 'in', enrollments.map((row) => row.id))
    .execute();
  const starts = Map.groupBy(plans, (plan) => plan.enrollment_id);
  return enrollments.map((row) => ({ row, planStarts: (starts.get(row.id) ?? []).flatMap((plan) => (plan.effective_start === null ? [] : [plan.effective_start])) }));
}

/**
 * The member's coverage (isCoverage) that covers the dependent and runs past `lastDay` (or starts after it): what
 * a relationship_end_date of `lastDay` ends (relationship-ends.ts). Earliest first.
 */
export function findCoverageOfDependentRunningPast(trx: Transaction<Database>, memberId: string, dependentId: string, lastDay: string) {
  return trx
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('enrolled_dependents', 'enrolled_dependents.enrolled_plan_id', 'enrolled_plans.id')
    .select(['enrolled_plans.plan_id', 'enrolled_plans.effective_start', 'enrolled_plans.effective_end'])
    .where('enrolled_plans.member_id', '=', memberId)
    .where('enrolled_dependents.dependent_id', '=', dependentId)
    .where(isCoverage())
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>', lastDay)]))
    .orderBy('enrolled_plans.effective_start')
    .orderBy('enrolled_plans.id')
    .execute();
}

/**
 * Spouse-like dependents (`relationships`) whose relationship_end_date is before `day` and who are still covered
 * after it (coverage running past that date, not cancelled): the sweep's candidates for ending their coverage
 * (relationship-ends.ts). Members in id order (the lock order), one row per dependent.
 */
export function findDependentsCoveredPastRelationshipEnd(db: Executor, day: string, relationships: readonly DependentRelationship[]) {
  return db
    .selectFrom('dependents')
    .select(['dependents.member_id', 'dependents.id as dependent_id'])
    .distinct()
    .innerJoin('enrolled_dependents', 'enrolled_dependents.dependent_id', 'dependents.id')
    .innerJoin('enrolled_plans', 'enrolled_plans.id', 'enrolled_dependents.enrolled_plan_id')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .where('dependents.relationship_end_date', 'is not', null)
    .where('dependents.relationship_end_date', '<', day)
    .where('dependents.member_relationship', 'in', relationships)
    .where(isCoverage())
    .where((eb) =>
      eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>', eb.ref('dependents.relationship_end_date'))]),
    )
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>=', eb.ref('enrolled_plans.effective_start'))]))
    .orderBy('dependents.member_id')
    .orderBy('dependents.id')
    .execute();
}

/**
 * Coverage (isCoverage) of members terminated before `day` that runs past their termination_date (or starts
 * after it) and that no termination of theirs on that date ended yet: the sweep's candidates for ending.
 */
export function findCoverageOfTerminatedMembers(db: Executor, day: string) {
  return db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('members', 'members.id', 'enrolled_plans.member_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'members.id as member_id',
      'members.provider_id',
      'members.termination_date',
      'enrolled_plans.plan_id',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
    ])
    .where('members.termination_date', '<', day)
    .where(isCoverage())
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>', eb.ref('members.termination_date'))]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('coverage_termination_items')
            .innerJoin('coverage_terminations', 'coverage_terminations.id', 'coverage_termination_items.termination_id')
            .select('coverage_termination_items.enrolled_plan_id')
            .whereRef('coverage_termination_items.enrolled_plan_id', '=', 'enrolled_plans.id')
            .whereRef('coverage_terminations.termination_date', '=', 'members.termination_date')
            .where('coverage_terminations.cause', '=', 'termination')
            .where('coverage_terminations.undone_at', 'is', null),
        ),
      ),
    )
    .orderBy('members.id')
    .execute();
}

export async function insertTermination(trx: Transaction<Database>, row: CoverageTerminationRow, items: readonly CoverageTerminationItemRow[]): Promise<void> {
  await insertRows(trx, 'coverage_terminations', [row]);
  await insertRows(trx, 'coverage_termination_items', items);
}

/** The member's coverage ends of `cause` applied and not undone, oldest first. */
export function findTerminationsInEffect(trx: Transaction<Database>, memberId: string, cause: CoverageEndCause): Promise<CoverageTerminationRow[]> {
  return trx
    .selectFrom('coverage_terminations')
    .selectAll()
    .where('member_id', '=', memberId)
    .where('cause', '=', cause)
    .where('undone_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** What a termination ended, with each enrolled plan as it is now (CoverageEntry columns), in its order. */
export function findTerminationItems(trx: Transaction<Database>, terminationId: string) {
  return selectCoverageEntries(trx)
    .innerJoin('coverage_termination_items', 'coverage_termination_items.enrolled_plan_id', 'enrolled_plans.id')
    .select(['coverage_termination_items.previous_end', 'coverage_termination_items.ended_on'])
    .where('coverage_termination_items.termination_id', '=', terminationId)
    .orderBy('coverage_termination_items.position')
    .execute();
}

/** Gives an enrolled plan back the end it had, if it still has the one the termination gave it. */
export async function restoreEnd(trx: Transaction<Database>, enrolledPlanId: string, endedOn: string, previousEnd: string | null): Promise<boolean> {
  const result = await trx.updateTable('enrolled_plans').set({ effective_end: previousEnd }).where('id', '=', enrolledPlanId).where('effective_end', '=', endedOn).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks the member's terminations in effect dated after `terminationDate` as replaced by an earlier one
 * (`undone_at` set, no restoring enrollment): what they ended is now the earlier termination's to end, undo
 * or record as a COBRA event.
 */
export async function supersedeTerminationsAfter(trx: Transaction<Database>, memberId: string, terminationDate: string, at: string): Promise<void> {
  await supersedingTerminations(trx, at, memberId, terminationDate);
}

const supersedingTerminations = cachedQuery((db, at: string, memberId: string, terminationDate: string) =>
  db
    .updateTable('coverage_terminations')
    .set({ undone_at: at })
    .where('member_id', '=', memberId)
    .where('cause', '=', 'termination')
    .where('undone_at', 'is', null)
    .where('termination_date', '>', terminationDate),
);

export async function markUndone(trx: Transaction<Database>, id: string, at: string, byEnrollmentId: string): Promise<void> {
  await trx.updateTable('coverage_terminations').set({ undone_at: at, undone_by_enrollment_id: byEnrollmentId }).where('id', '=', id).execute();
}

/** Terminations in effect whose coverage was lost by `day` and whose COBRA event is not recorded yet. */
export function findTerminationsWithCobraDue(db: Executor, day: string) {
  return db
    .selectFrom('coverage_terminations')
    .select(['id', 'provider_id', 'member_id'])
    .where('cobra_recorded_at', 'is', null)
    .where('coverage_end', '<', day)
    .where('undone_at', 'is', null)
    .orderBy('member_id')
    .orderBy('id')
    .execute();
}

/** Claims the recording of a termination's COBRA event: false when it was recorded, or the termination undone, meanwhile. */
export async function claimCobraRecording(trx: Transaction<Database>, id: string, at: string): Promise<CoverageTerminationRow | undefined> {
  const result = await trx
    .updateTable('coverage_terminations')
    .set({ cobra_recorded_at: at })
    .where('id', '=', id)
    .where('cobra_recorded_at', 'is', null)
    .where('undone_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return undefined;
  return trx.selectFrom('coverage_terminations').selectAll().where('id', '=', id).executeTakeFirst();
}
