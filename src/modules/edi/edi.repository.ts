import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { insertRows } from '../../db/bulk-insert.ts';
import { batches } from '../../shared/batches.ts';
import { compareIds } from '../../shared/ids.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import { coverageInForceOn, isCoverage } from '../coverage/coverage-in-force.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { Selectable } from 'kysely';
import type { EdiFileKind, EdiFileRow, EdiFileStatus, EdiPickupSeenFileTable, EdiProfileRow, EdiUnmatchedAcknowledgementRow } from './edi.table.ts';

export function findProfile(db: Executor, groupId: string): Promise<EdiProfileRow | undefined> {
  return db.selectFrom('edi_profiles').selectAll().where('group_id', '=', groupId).executeTakeFirst();
}

export async function upsertProfile(trx: Transaction<Database>, row: EdiProfileRow, exists: boolean): Promise<void> {
  if (exists) {
    const { group_id, provider_id, created_at, ...changes } = row;
    await trx.updateTable('edi_profiles').set(changes).where('group_id', '=', group_id).where('provider_id', '=', provider_id).execute();
    void created_at;
  } else {
    await trx.insertInto('edi_profiles').values(row).execute();
  }
}

export async function deleteProfile(trx: Transaction<Database>, groupId: string): Promise<void> {
  await trx.deleteFrom('edi_profiles').where('group_id', '=', groupId).execute();
}

/**
 * The profiles the scheduler looks at: those with a schedule (it claims each day's build, see
 * claimScheduledDay) and those delivering over SFTP (whose outbound folders it reads for acknowledgements).
 */
export function listScheduledProfiles(db: Executor): Promise<EdiProfileRow[]> {
  return db
    .selectFrom('edi_profiles')
    .selectAll()
    .where((eb) => eb.or([eb('schedule_time', 'is not', null), eb('delivery_method', '=', 'sftp')]))
    .orderBy('group_id')
    .execute();
}

/** Whether a delivery job for the file is queued or running (a second /deliver must not upload it twice at once). */
export async function hasPendingJob(db: Executor, kind: string, payload: string): Promise<boolean> {
  return (await findPendingJobId(db, kind, payload)) !== undefined;
}

/** The id of a job of this kind and payload that is queued or running, if there is one. */
export async function findPendingJobId(db: Executor, kind: string, payload: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('payload', '=', payload)
    .where('state', 'in', ['queued', 'running'])
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Claims the day's scheduled build of a group: true for the one process whose update changed the row. */
export async function claimScheduledDay(db: Executor, groupId: string, day: string): Promise<boolean> {
  const result = await db
    .updateTable('edi_profiles')
    .set({ last_scheduled_on: day })
    .where('group_id', '=', groupId)
    .where((eb) => eb.or([eb('last_scheduled_on', 'is', null), eb('last_scheduled_on', '<', day)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Hands out the next interchange and group control numbers of a trading partner, in the build's transaction
 * (the partner's row stays locked until it commits): numbers increase in the order files are stored, and a
 * build that fails stores nothing, so no stored file shares a number with another.
 */
export async function nextControlNumbers(trx: Transaction<Database>, providerId: string, partnerKey: string): Promise<{ interchange: number; group: number }> {
  await trx
    .insertInto('edi_control_numbers')
    .values({ partner_key: partnerKey, provider_id: providerId, last_interchange_control_number: 0, last_group_control_number: 0 })
    .onConflict((oc) => oc.column('partner_key').doNothing())
    .execute();
  const row = await trx
    .updateTable('edi_control_numbers')
    .set((eb) => ({
      // ISA13 has 9 digits and GS06 at most 9: after 999,999,999 the sequence starts again at 1.
      last_interchange_control_number: eb
        .case()
        .when('last_interchange_control_number', '>=', 999_999_999)
        .then(1)
        .else(eb('last_interchange_control_number', '+', 1))
        .end(),
      last_group_control_number: eb
        .case()
        .when('last_group_control_number', '>=', 999_999_999)
        .then(1)
        .else(eb('last_group_control_number', '+', 1))
        .end(),
    }))
    .where('partner_key', '=', partnerKey)
    .returning(['last_interchange_control_number', 'last_group_control_number'])
    .executeTakeFirstOrThrow();
  return { interchange: Number(row.last_interchange_control_number), group: Number(row.last_group_control_number) };
}

function files(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('edi_files').selectAll(), scope, 'edi_files', 'employer_id');
}

export function findFile(db: Executor, scope: Scope, id: string): Promise<EdiFileRow | undefined> {
  return files(db, scope).where('id', '=', id).executeTakeFirst();
}

export function lockFile(trx: Transaction<Database>, scope: Scope, id: string): Promise<EdiFileRow | undefined> {
  return forUpdate(trx, files(trx, scope).where('id', '=', id)).executeTakeFirst();
}

/** A file by id, whoever's (the pickup knows the provider from the folder; the caller checks it). */
export function findFileById(db: Executor, id: string): Promise<EdiFileRow | undefined> {
  return db.selectFrom('edi_files').selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockFileById(trx: Transaction<Database>, id: string): Promise<EdiFileRow | undefined> {
  return forUpdate(trx, trx.selectFrom('edi_files').selectAll().where('id', '=', id)).executeTakeFirst();
}

export function listFiles(
  db: Executor,
  scope: Scope,
  filter: { groupId?: string | undefined; kind?: EdiFileKind | undefined; status?: EdiFileStatus | undefined },
  page: PageRequest,
): Promise<Page<EdiFileRow>> {
  let query = files(db, scope);
  if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return paginate(query, page);
}

export async function insertFile(trx: Transaction<Database>, row: EdiFileRow): Promise<void> {
  await trx.insertInto('edi_files').values(row).execute();
}

export async function updateFile(trx: Transaction<Database>, row: EdiFileRow): Promise<void> {
  const { id, provider_id, created_at, ...changes } = row;
  await trx.updateTable('edi_files').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
  void created_at;
}

export async function insertChunks(trx: Transaction<Database>, fileId: string, chunks: readonly string[], firstPosition: number): Promise<void> {
  if (chunks.length === 0) return;
  await trx
    .insertInto('edi_file_chunks')
    .values(chunks.map((content, index) => ({ edi_file_id: fileId, position: firstPosition + index, content })))
    .execute();
}

/** The file's encrypted chunks, a few at a time, in order (the content is streamed, never held whole). */
export async function* readChunks(db: Executor, fileId: string): AsyncGenerator<string> {
  let position = -1;
  for (;;) {
    const rows = await db
      .selectFrom('edi_file_chunks')
      .select(['position', 'content'])
      .where('edi_file_id', '=', fileId)
      .where('position', '>', position)
      .orderBy('position')
      .limit(8)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) yield row.content;
    position = rows.at(-1)!.position;
  }
}

/** The benefit change ids a file carried, in file order. */
export async function listFileChangeIds(db: Executor, fileId: string): Promise<string[]> {
  const rows = await db.selectFrom('edi_file_changes').select('benefit_change_id').where('edi_file_id', '=', fileId).orderBy('position').execute();
  return rows.map((row) => row.benefit_change_id);
}

/**
 * The group's benefit changes still waiting for a file that no file carries yet, oldest first and in
 * enrollment order (the seam of benefit-change.repository's listChangesAwaitingFile, less those claimed).
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

/** The group's newest file (undefined before the first). */
export function findLastFile(db: Executor, groupId: string): Promise<Pick<EdiFileRow, 'id' | 'provider_id' | 'created_at'> | undefined> {
  return db
    .selectFrom('edi_files')
    .select(['id', 'provider_id', 'created_at'])
    .where('group_id', '=', groupId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Whether the event log still holds the file's `edi_file.created` (retention has not reached it). */
export async function hasFileCreatedEvent(db: Executor, file: Pick<EdiFileRow, 'id' | 'provider_id' | 'created_at'>): Promise<boolean> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('provider_id', '=', file.provider_id)
    .where('created_at', '>=', file.created_at)
    .where('object_id', '=', file.id)
    .where('event_type', '=', 'edi_file.created')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
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

export async function insertFileChanges(trx: Transaction<Database>, fileId: string, changeIds: readonly string[]): Promise<void> {
  await insertRows(
    trx,
    'edi_file_changes',
    changeIds.map((benefit_change_id, position) => ({ benefit_change_id, edi_file_id: fileId, position })),
    { rowsPerStatement: 1_000 },
  );
}

/** A person and line a full file lists. */
export interface ListedPerson {
  person_id: string;
  member_id: string;
  line_of_coverage: string;
}

/** People stored per edi_file_people row. */
const PEOPLE_PER_ROW = 5_000;

export async function insertFilePeople(trx: Transaction<Database>, fileId: string, people: readonly ListedPerson[]): Promise<void> {
  const rows = [...batches(people, PEOPLE_PER_ROW)].map((batch, position) => ({
    edi_file_id: fileId,
    position,
    people: JSON.stringify(batch.map((person) => [person.person_id, person.member_id, person.line_of_coverage])),
  }));
  for (const batch of batches(rows, 50)) await trx.insertInto('edi_file_people').values(batch).execute();
}

/** The newest full file of the group the carrier accepted, if any. */
export function findLastAcceptedFullFile(db: Executor, groupId: string): Promise<EdiFileRow | undefined> {
  return db
    .selectFrom('edi_files')
    .selectAll()
    .where('group_id', '=', groupId)
    .where('kind', '=', 'full')
    .where('action', '=', 'replace')
    .where('status', 'in', ['accepted', 'accepted_with_errors'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function listFilePeople(db: Executor, fileId: string): Promise<ListedPerson[]> {
  const rows = await db.selectFrom('edi_file_people').select('people').where('edi_file_id', '=', fileId).orderBy('position').execute();
  return rows.flatMap((row) =>
    (JSON.parse(row.people) as [string, string, string][]).map(([person_id, member_id, line_of_coverage]) => ({ person_id, member_id, line_of_coverage })),
  );
}

export async function listChangeIdsOfFiles(db: Executor, fileIds: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (fileIds.length === 0) return found;
  const rows = await db
    .selectFrom('edi_file_changes')
    .select(['edi_file_id', 'benefit_change_id'])
    .where('edi_file_id', 'in', [...fileIds])
    .orderBy('edi_file_id')
    .orderBy('position')
    .execute();
  for (const row of rows) found.set(row.edi_file_id, [...(found.get(row.edi_file_id) ?? []), row.benefit_change_id]);
  return found;
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

/** The file's benefit changes still waiting for a file: now with the carrier (`sent`). Returns those it moved. */
export function markChangesSent(trx: Transaction<Database>, fileId: string): Promise<BenefitChangeRow[]> {
  return trx
    .updateTable('benefit_changes')
    .set({ delivery_state: 'sent' })
    .where('delivery_state', '=', 'awaiting_file')
    .where('id', 'in', (eb) => eb.selectFrom('edi_file_changes').select('benefit_change_id').where('edi_file_id', '=', fileId))
    .returningAll()
    .execute();
}

/** Settles the file's benefit changes still with the carrier (or waiting for the file): completed or rejected. */
export function settleFileChanges(
  trx: Transaction<Database>,
  fileId: string,
  settlement: { delivery_state: 'completed' | 'rejected'; completed_at: string | null; memo: string },
): Promise<BenefitChangeRow[]> {
  return trx
    .updateTable('benefit_changes')
    .set(settlement)
    .where('delivery_state', 'in', ['awaiting_file', 'sent'])
    .where('id', 'in', (eb) => eb.selectFrom('edi_file_changes').select('benefit_change_id').where('edi_file_id', '=', fileId))
    .returningAll()
    .execute();
}

/**
 * The provider's files sent to the carrier `carrier` (their group's profile's ISA07/ISA08) under the control
 * number an acknowledgement names (TA1: ISA13; 999: GS06), newest first: the candidates it may be about, each
 * then held against every element (acknowledgement-matching.ts). Several trading partners (sender ids) of one
 * carrier each have their own sequence, so one number can name a few files.
 */
export async function findFileIdsByControlNumber(
  db: Executor,
  providerId: string,
  filter: { interchange: number } | { group: number },
  carrier: { qualifier: string; id: string },
): Promise<string[]> {
  let query = db
    .selectFrom('edi_files')
    .innerJoin('edi_profiles', 'edi_profiles.group_id', 'edi_files.group_id')
    .select('edi_files.id')
    .where('edi_files.provider_id', '=', providerId)
    .where('edi_profiles.interchange_receiver_qualifier', '=', carrier.qualifier)
    .where('edi_profiles.interchange_receiver_id', '=', carrier.id);
  query =
    'interchange' in filter
      ? query.where('edi_files.interchange_control_number', '=', filter.interchange)
      : query.where('edi_files.group_control_number', '=', filter.group);
  const rows = await query.orderBy('edi_files.created_at', 'desc').orderBy('edi_files.id', 'desc').limit(20).execute();
  return rows.map((row) => row.id);
}

export async function insertUnmatchedAcknowledgement(trx: Transaction<Database>, row: EdiUnmatchedAcknowledgementRow): Promise<void> {
  await trx.insertInto('edi_unmatched_acknowledgements').values(row).execute();
}

export function listUnmatchedAcknowledgements(db: Executor, scope: Scope, page: PageRequest): Promise<Page<EdiUnmatchedAcknowledgementRow>> {
  return paginate(inScope(db.selectFrom('edi_unmatched_acknowledgements').selectAll(), scope, 'edi_unmatched_acknowledgements', null), page);
}

/** A remote file as the pickup remembers it. */
export interface SeenFile {
  name: string;
  size: number;
  modified_at: number;
}

/** Which of `names` the pickup has read from the folder, with the size and time each had then. */
export async function findSeenFiles(db: Executor, folderKey: string, names: readonly string[]): Promise<SeenFile[]> {
  if (names.length === 0) return [];
  const rows = await db
    .selectFrom('edi_pickup_seen_files')
    .select(['name', 'size', 'modified_at'])
    .where('folder_key', '=', folderKey)
    .where('name', 'in', [...new Set(names)])
    .execute();
  return rows.map((row) => ({ name: row.name, size: Number(row.size), modified_at: Number(row.modified_at) }));
}

/** Remembers a remote file as read (once: a second pickup that read it too changes nothing). */
export async function rememberSeenFile(db: Executor, row: Selectable<EdiPickupSeenFileTable>): Promise<void> {
  await db
    .insertInto('edi_pickup_seen_files')
    .values(row)
    .onConflict((oc) => oc.columns(['folder_key', 'name', 'size', 'modified_at']).doNothing())
    .execute();
}

/** Every coverage (coverage-in-force.ts isCoverage, any dates) of the members on the group's plans. */
export async function findCoverageOfGroupOfMembers(db: Executor, providerId: string, groupId: string, memberIds: readonly string[]): Promise<CoverageItem[]> {
  const found: CoverageItem[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    found.push(...(await coverageOfGroup(db, providerId, groupId).where('enrolled_plans.member_id', 'in', batch).where(isCoverage()).execute()));
  }
  return found;
}
