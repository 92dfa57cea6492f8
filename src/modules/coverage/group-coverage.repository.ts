// Coverage on a carrier group's plans as an 834 carries it: what a file build (edi/edi-file-content.ts) reads of
// coverage, by enrolled plan, by date, a page of members at a time, and who each enrolled plan covers.
import type { Executor } from '../../db/database.ts';
import { batches } from '../../shared/batches.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { coverageInForceOn, isCoverage } from './coverage-in-force.ts';

/** An enrolled plan as a file carries it: its dates, member, plan and line. */
export interface GroupCoverageItem {
  id: string;
  created_at: string;
  member_id: string;
  plan_id: string;
  effective_start: string | null;
  effective_end: string | null;
  line_of_coverage: LineOfCoverage;
  plan_name: string;
}

const COVERAGE_ITEM_COLUMNS = [
  'enrolled_plans.id',
  'enrolled_plans.created_at',
  'enrolled_plans.member_id',
  'enrolled_plans.plan_id',
  'enrolled_plans.effective_start',
  'enrolled_plans.effective_end',
  'plans.line_of_coverage',
  'plans.plan_name',
] as const;

/** Enrolled plans by id as a file carries them (the coverage benefit changes move from and to), any group. */
export function findCoverageItems(db: Executor, enrolledPlanIds: readonly string[]): Promise<GroupCoverageItem[]> {
  if (enrolledPlanIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('enrolled_plans')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select(COVERAGE_ITEM_COLUMNS)
    .where('enrolled_plans.id', 'in', [...enrolledPlanIds])
    .execute();
}

/** Members whose ids are from `first` to `last` (in the database's order): a page of a full file. */
export interface MemberRange {
  first: string;
  last: string;
}

/**
 * Coverage (coverage-in-force.ts) on the group's plans, as items: the query the functions below narrow.
 * `inOrder` sorts by member, line and latest start (then latest recorded), the order latestPerLine-style
 * readers take the first row of.
 */
function coverageOfGroup(db: Executor, providerId: string, groupId: string) {
  return db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select(COVERAGE_ITEM_COLUMNS)
    .where('plans.provider_id', '=', providerId)
    .where('plans.group_id', '=', groupId);
}

/** One member's rows as inOrder sorts them: by line, then latest start, then latest recorded. */
function latestFirstPerLine(a: GroupCoverageItem, b: GroupCoverageItem): number {
  const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return text(a.line_of_coverage, b.line_of_coverage) || text(b.effective_start ?? '', a.effective_start ?? '') || text(b.created_at, a.created_at);
}

function inOrder(query: ReturnType<typeof coverageOfGroup>) {
  return query
    .orderBy('enrolled_plans.member_id')
    .orderBy('plans.line_of_coverage')
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc');
}

/** Coverage in force on `date` on the group's plans, in order; only of the members in `range` when given. */
export function findCoverageOfGroupOn(db: Executor, providerId: string, groupId: string, date: string, range?: MemberRange): Promise<GroupCoverageItem[]> {
  let query = coverageOfGroup(db, providerId, groupId).where(coverageInForceOn(date));
  if (range !== undefined) query = query.where('enrolled_plans.member_id', '>=', range.first).where('enrolled_plans.member_id', '<=', range.last);
  return inOrder(query).execute();
}

/** Up to `limit` rows of coverage in force on `date` on the group's plans of members after `after`, in order. */
export async function findCoverageOfGroupPage(
  db: Executor,
  providerId: string,
  groupId: string,
  date: string,
  after: string,
  limit: number,
): Promise<GroupCoverageItem[]> {
  // Ordered by member only (the index's order: the database sorts nothing), then each member's rows in order
  // here; members keep the database's order, which the caller pages by.
  const rows = await coverageOfGroup(db, providerId, groupId)
    .where('enrolled_plans.member_id', '>', after)
    .where(coverageInForceOn(date))
    .orderBy('enrolled_plans.member_id')
    .limit(limit)
    .execute();
  const ordered: GroupCoverageItem[] = [];
  for (let start = 0; start < rows.length;) {
    let end = start + 1;
    while (end < rows.length && rows[end]!.member_id === rows[start]!.member_id) end += 1;
    ordered.push(...rows.slice(start, end).sort(latestFirstPerLine));
    start = end;
  }
  return ordered;
}

/** Who the enrolled plans of the members in `range` cover besides the member, in election order. */
export async function findCoveredDependentsInRange(db: Executor, range: MemberRange): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('enrolled_dependents')
    .innerJoin('enrolled_plans', 'enrolled_plans.id', 'enrolled_dependents.enrolled_plan_id')
    .select(['enrolled_dependents.enrolled_plan_id', 'enrolled_dependents.dependent_id'])
    .where('enrolled_plans.member_id', '>=', range.first)
    .where('enrolled_plans.member_id', '<=', range.last)
    .orderBy('enrolled_dependents.enrolled_plan_id')
    .orderBy('enrolled_dependents.position')
    .execute();
  return addCovered(new Map(), rows);
}

/** Adds rows of enrolled dependents, in election order, to the dependent ids of each enrolled plan. */
function addCovered(covered: Map<string, string[]>, rows: readonly { enrolled_plan_id: string; dependent_id: string }[]): Map<string, string[]> {
  for (const row of rows) {
    const list = covered.get(row.enrolled_plan_id);
    if (list) list.push(row.dependent_id);
    else covered.set(row.enrolled_plan_id, [row.dependent_id]);
  }
  return covered;
}

/** Who each enrolled plan covers besides the member, in election order. */
export async function findCoveredDependentsOf(db: Executor, enrolledPlanIds: readonly string[]): Promise<Map<string, string[]>> {
  const covered = new Map<string, string[]>();
  for (const batch of batches(enrolledPlanIds, 5_000)) {
    const rows = await db
      .selectFrom('enrolled_dependents')
      .select(['enrolled_plan_id', 'dependent_id'])
      .where('enrolled_plan_id', 'in', batch)
      .orderBy('enrolled_plan_id')
      .orderBy('position')
      .execute();
    addCovered(covered, rows);
  }
  return covered;
}

/** Coverage in force on `date` on the group's plans of the given members, in order. */
export async function findCoverageOfGroupOnFor(
  db: Executor,
  providerId: string,
  groupId: string,
  date: string,
  memberIds: readonly string[],
): Promise<GroupCoverageItem[]> {
  const found: GroupCoverageItem[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    found.push(
      ...(await inOrder(coverageOfGroup(db, providerId, groupId).where('enrolled_plans.member_id', 'in', batch).where(coverageInForceOn(date))).execute()),
    );
  }
  return found;
}

/** Every coverage (coverage-in-force.ts isCoverage, any dates) of the members on the group's plans. */
export async function findCoverageOfGroupOfMembers(db: Executor, providerId: string, groupId: string, memberIds: readonly string[]): Promise<GroupCoverageItem[]> {
  const found: GroupCoverageItem[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    found.push(...(await coverageOfGroup(db, providerId, groupId).where('enrolled_plans.member_id', 'in', batch).where(isCoverage()).execute()));
  }
  return found;
}

/**
 * Coverage in force on `date` on the group's plans (optionally of one member), with volumes and plan year ends,
 * latest start first per member and line (then latest recorded): the first row of each member and line is its
 * coverage that day (findGroupLinesOn).
 */
function findGroupCoverageForReconciliation(db: Executor, providerId: string, groupId: string, date: string, memberId: string | undefined) {
  let query = db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'enrolled_plans.id',
      'enrolled_plans.member_id',
      'enrolled_plans.plan_id',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'enrolled_plans.volume_cents',
      'plans.line_of_coverage',
      'plans.effective_end as plan_end',
    ])
    .where('plans.provider_id', '=', providerId)
    .where('plans.group_id', '=', groupId)
    .where(coverageInForceOn(date));
  if (memberId !== undefined) query = query.where('enrolled_plans.member_id', '=', memberId);
  return query
    .orderBy('enrolled_plans.member_id')
    .orderBy('plans.line_of_coverage')
    .orderBy('enrolled_plans.effective_start', 'desc')
    .orderBy('enrolled_plans.created_at', 'desc')
    .execute();
}

/**
 * Each member's coverage of each line on the group's plans on `date` (optionally of one member): the latest
 * starting entry per member and line, with volume, plan year end and who it covers besides the member.
 * What reconciliation and carrier files compare the carrier's picture with.
 */
export async function findGroupLinesOn(db: Executor, providerId: string, groupId: string, date: string, memberId: string | undefined) {
  const rows = await findGroupCoverageForReconciliation(db, providerId, groupId, date, memberId);
  const lines = [...Map.groupBy(rows, (row) => `${row.member_id}|${row.line_of_coverage}`).values()].map((ofLine) => ofLine[0]!);
  const dependents = await findCoveredDependentsOf(
    db,
    lines.map((line) => line.id),
  );
  return lines.map((line) => ({ ...line, dependent_ids: dependents.get(line.id) ?? [] }));
}

/** An enrolled plan on a group's plans that is coverage, priced, with who it covers besides the member (premium bills). */
export interface PricedGroupCoverage {
  id: string;
  member_id: string;
  plan_id: string;
  line_of_coverage: LineOfCoverage;
  effective_start: string | null;
  effective_end: string | null;
  plan_end: string;
  premium_cents: number | null;
  created_at: string;
  /** The member_relationship of each dependent it covers, in election order. */
  relationships: string[];
}

/**
 * Coverage (isCoverage) on the group's plans running on some day from `from` to `to`, priced, with the
 * relationships of the dependents it covers: what premium-bills/ reads to know the premium owed each month.
 */
export async function findPricedGroupCoverageBetween(db: Executor, providerId: string, groupId: string, from: string, to: string): Promise<PricedGroupCoverage[]> {
  const rows = await db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'enrolled_plans.id',
      'enrolled_plans.member_id',
      'enrolled_plans.plan_id',
      'plans.line_of_coverage',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'plans.effective_end as plan_end',
      'enrolled_plans.premium_cents',
      'enrolled_plans.created_at',
    ])
    .where('plans.provider_id', '=', providerId)
    .where('plans.group_id', '=', groupId)
    .where(isCoverage())
    .where('enrolled_plans.effective_start', '<=', to)
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>=', from)]))
    .where('plans.effective_end', '>=', from)
    .orderBy('enrolled_plans.member_id')
    .execute();
  const relationships = new Map<string, string[]>();
  for (const batch of batches(
    rows.map((row) => row.id),
    5_000,
  )) {
    const covered = await db
      .selectFrom('enrolled_dependents')
      .innerJoin('dependents', 'dependents.id', 'enrolled_dependents.dependent_id')
      .select(['enrolled_dependents.enrolled_plan_id', 'dependents.member_relationship'])
      .where('enrolled_dependents.enrolled_plan_id', 'in', batch)
      .orderBy('enrolled_dependents.enrolled_plan_id')
      .orderBy('enrolled_dependents.position')
      .execute();
    for (const row of covered) {
      const list = relationships.get(row.enrolled_plan_id);
      if (list) list.push(row.member_relationship);
      else relationships.set(row.enrolled_plan_id, [row.member_relationship]);
    }
  }
  return rows.map((row) => ({ ...row, relationships: relationships.get(row.id) ?? [] }));
}
