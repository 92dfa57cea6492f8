// SQL a build reads to make a file's loops: changes waiting for a file, coverage, members, dependents, and the
// demographics digests of what each carrier was last sent.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { insertRows } from '../../db/bulk-insert.ts';
import { batches } from '../../shared/batches.ts';
import { compareIds } from '../../shared/ids.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import { coverageInForceOn, isCoverage } from '../coverage/coverage-in-force.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/**
 * The group's benefit changes still waiting for a file that no file carries yet, oldest first and in
 * enrollment order. Moving them on is benefit-change.repository's (transitionChangesOfEdiFile).
 */
export function listUnsentChanges(db: Executor, providerId: string, groupId: string, limit: number): Promise<BenefitChangeRow[]> {
  return db
    .selectFrom('benefit_changes')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('group_id', '=', groupId)
    .where('connection_method', '=', 'edi')
    .where('delivery_state', '=', 'awaiting_file')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('edi_file_changes').select('edi_file_changes.edi_file_id').whereRef('edi_file_changes.benefit_change_id', '=', 'benefit_changes.id'),
        ),
      ),
    )
    .orderBy('created_at')
    .orderBy('enrollment_id')
    .orderBy('position')
    .limit(limit)
    .execute();
}

export interface CoverageItem {
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

export function findCoverageItems(db: Executor, enrolledPlanIds: readonly string[]): Promise<CoverageItem[]> {
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
 * Coverage (coverage-in-force.ts) on the group's plans, as CoverageItems: the query the functions below narrow.
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
function latestFirstPerLine(a: CoverageItem, b: CoverageItem): number {
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
export function findCoverageOfGroupOn(db: Executor, providerId: string, groupId: string, date: string, range?: MemberRange): Promise<CoverageItem[]> {
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
): Promise<CoverageItem[]> {
  // Ordered by member only (the index's order: the database sorts nothing), then each member's rows in order
  // here; members keep the database's order, which the caller pages by.
  const rows = await coverageOfGroup(db, providerId, groupId)
    .where('enrolled_plans.member_id', '>', after)
    .where(coverageInForceOn(date))
    .orderBy('enrolled_plans.member_id')
    .limit(limit)
    .execute();
  const ordered: CoverageItem[] = [];
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

/** The columns of a member an 834 carries (MEMBER_FILE_COLUMNS). */
export type MemberFileRow = Pick<MemberRow, (typeof MEMBER_FILE_COLUMNS)[number]>;

export const MEMBER_FILE_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'dob',
  'ssn_encrypted',
  'address',
  'hire_date',
  'termination_date',
  'biological_sex',
  'employment_status',
  'payroll_provider_external_id',
] as const;

export async function findMembersInRange(db: Executor, providerId: string, range: MemberRange): Promise<MemberFileRow[]> {
  return db
    .selectFrom('members')
    .select(MEMBER_FILE_COLUMNS)
    .where('provider_id', '=', providerId)
    .where('id', '>=', range.first)
    .where('id', '<=', range.last)
    .execute();
}

export async function findDependentsInRange(db: Executor, providerId: string, range: MemberRange): Promise<DependentRow[]> {
  return db
    .selectFrom('dependents')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('member_id', '>=', range.first)
    .where('member_id', '<=', range.last)
    .execute();
}

/** Who each enrolled plan covers besides the member, in election order. */
export async function findCoveredDependents(db: Executor, enrolledPlanIds: readonly string[]): Promise<Map<string, string[]>> {
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

export async function findMembers(db: Executor, providerId: string, ids: readonly string[]): Promise<Map<string, MemberRow>> {
  const found = new Map<string, MemberRow>();
  for (const batch of batches([...new Set(ids)], 5_000)) {
    const rows = await db.selectFrom('members').selectAll().where('provider_id', '=', providerId).where('id', 'in', batch).execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

export async function findDependents(db: Executor, providerId: string, ids: readonly string[]): Promise<Map<string, DependentRow>> {
  const found = new Map<string, DependentRow>();
  for (const batch of batches([...new Set(ids)], 5_000)) {
    const rows = await db.selectFrom('dependents').selectAll().where('provider_id', '=', providerId).where('id', 'in', batch).execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

/** The digests of what the group's carrier was last sent about each person (of `personIds` when given). */
export async function findSentDigests(db: Executor, groupId: string, personIds?: readonly string[]): Promise<Map<string, string>> {
  const query = db.selectFrom('edi_sent_demographics').select(['person_id', 'digest']).where('group_id', '=', groupId);
  if (personIds === undefined) return new Map((await query.execute()).map((row) => [row.person_id, row.digest]));
  const found = new Map<string, string>();
  for (const batch of batches([...new Set(personIds)], 5_000)) {
    for (const row of await query.where('person_id', 'in', batch).execute()) found.set(row.person_id, row.digest);
  }
  return found;
}

/** Members and dependents of the provider updated since `since` (their `*.updated` events). */
export async function findUpdatedPeople(db: Executor, providerId: string, since: string): Promise<{ members: string[]; dependents: string[] }> {
  const rows = await db
    .selectFrom('events')
    .select(['object_type', 'object_id'])
    .where('provider_id', '=', providerId)
    .where('created_at', '>=', since)
    .where('event_type', 'in', ['member.updated', 'dependent.updated'])
    .execute();
  return {
    members: [...new Set(rows.filter((row) => row.object_type === 'member').map((row) => row.object_id))],
    dependents: [...new Set(rows.filter((row) => row.object_type === 'dependent').map((row) => row.object_id))],
  };
}

/** Coverage in force on `date` on the group's plans of the given members, in order. */
export async function findCoverageOfGroupOnFor(
  db: Executor,
  providerId: string,
  groupId: string,
  date: string,
  memberIds: readonly string[],
): Promise<CoverageItem[]> {
  const found: CoverageItem[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    found.push(
      ...(await inOrder(coverageOfGroup(db, providerId, groupId).where('enrolled_plans.member_id', 'in', batch).where(coverageInForceOn(date))).execute()),
    );
  }
  return found;
}

/** Stores the digests the file sent, but for those `known` to be stored already with the same value. */
export async function saveSentDigests(
  trx: Transaction<Database>,
  groupId: string,
  fileId: string,
  digests: ReadonlyMap<string, string>,
  known: ReadonlyMap<string, string>,
): Promise<void> {
  // In key order: each statement appends to the index instead of splitting pages all over it.
  const rows = [...digests]
    .filter(([person_id, digest]) => known.get(person_id) !== digest)
    .sort(([a], [b]) => compareIds(a, b))
    .map(([person_id, digest]) => ({ group_id: groupId, person_id, digest, edi_file_id: fileId }));
  // From a cached statement text: built by Kysely, the 100 statements of a first full file of 50,000 members
  // (100,000 people) took 0.8 s of CPU, 9% of the server's over the edi-files bench (now under 4%).
  await insertRows(trx, 'edi_sent_demographics', rows, {
    rowsPerStatement: 1_000,
    updateConflictsOn: { columns: ['group_id', 'person_id'], set: ['digest', 'edi_file_id'] },
  });
}

/** For each member and line, the benefit change of the group that the newest file carrying one carried last. */
export async function findLastSentChanges(db: Executor, groupId: string, memberIds: readonly string[]): Promise<Map<string, BenefitChangeRow>> {
  const found = new Map<string, BenefitChangeRow>();
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    const rows = await db
      .selectFrom('benefit_changes')
      .innerJoin('edi_file_changes', 'edi_file_changes.benefit_change_id', 'benefit_changes.id')
      .innerJoin('edi_files', 'edi_files.id', 'edi_file_changes.edi_file_id')
      .selectAll('benefit_changes')
      .where('benefit_changes.group_id', '=', groupId)
      .where('benefit_changes.member_id', 'in', batch)
      // Files in the order they were built (control numbers break ties within a millisecond), then file order.
      .orderBy('edi_files.created_at', 'desc')
      .orderBy('edi_files.interchange_control_number', 'desc')
      .orderBy('edi_file_changes.position', 'desc')
      .execute();
    for (const row of rows) {
      const key = `${row.member_id}|${row.line_of_coverage}`;
      if (!found.has(key)) found.set(key, row);
    }
  }
  return found;
}

/** Every coverage (coverage-in-force.ts isCoverage, any dates) of the members on the group's plans. */
export async function findCoverageOfGroupOfMembers(db: Executor, providerId: string, groupId: string, memberIds: readonly string[]): Promise<CoverageItem[]> {
  const found: CoverageItem[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    found.push(...(await coverageOfGroup(db, providerId, groupId).where('enrolled_plans.member_id', 'in', batch).where(isCoverage()).execute()));
  }
  return found;
}
