import type { Executor, Transaction } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import { batches } from '../../shared/batches.ts';
import { insertRows } from '../../db/bulk-insert.ts';
import { compareDates } from '../../shared/dates.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { SENT_ENROLLMENT_STATUSES } from '../enrollments/enrollment.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import { findEnrolledPlanIdsOfDependents } from '../coverage/coverage-links.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { CensusImportRow, CensusImportStatus, CensusResultRow, CensusRowKind, CensusRowOutcome } from './census-import.table.ts';

/** Ids per IN list: well under both databases' parameter limits. */
const LOOKUP_BATCH = 1_000;
/** Result rows per multi-row INSERT (21 columns each). */
const INSERT_BATCH = 500;

function imports(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('census_imports').selectAll(), scope, 'census_imports', 'employer_id');
}

export const findCensusImportById: (db: Executor, scope: Scope, id: string) => Promise<CensusImportRow | undefined> = findByIdInScope(imports);

/** The import by id, whoever's (the job's read: it acts for the import's own provider). */
export function findCensusImportForJob(db: Executor, id: string): Promise<CensusImportRow | undefined> {
  return db.selectFrom('census_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the import's row: taken before any member's (docs/architecture.md, lock order) by each apply batch. */
export function lockCensusImport(trx: Transaction<Database>, id: string): Promise<CensusImportRow | undefined> {
  return forUpdate(trx, trx.selectFrom('census_imports').selectAll().where('id', '=', id)).executeTakeFirst();
}

export async function insertCensusImport(db: Executor, row: CensusImportRow): Promise<void> {
  await db.insertInto('census_imports').values(row).execute();
}

export async function updateCensusImport(
  db: Executor,
  id: string,
  changes: Partial<Omit<CensusImportRow, 'id' | 'provider_id' | 'employer_id'>>,
): Promise<void> {
  await db.updateTable('census_imports').set(changes).where('id', '=', id).execute();
}

/** A status change that loses cleanly to a concurrent one: whether it happened. */
export async function moveCensusImportStatus(db: Executor, id: string, from: readonly CensusImportStatus[], to: CensusImportStatus): Promise<boolean> {
  const result = await db.updateTable('census_imports').set({ status: to }).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteCensusResults(db: Executor, importId: string): Promise<void> {
  await db.deleteFrom('census_import_rows').where('census_import_id', '=', importId).execute();
}

/** The dry run's rows, through the bulk insert (its text written once per shape: Kysely building 500-row INSERTs cost about as much as running them). */
export async function insertCensusResults(db: Executor, rows: readonly CensusResultRow[]): Promise<void> {
  await insertRows(db, 'census_import_rows', rows, { rowsPerStatement: INSERT_BATCH });
}

/** A page of an import's diff, in the file's order (row ids sort by position: census-import.service.ts resultId). */
export function listCensusResults(db: Executor, importId: string, kind: CensusRowKind | undefined, page: PageRequest): Promise<Page<CensusResultRow>> {
  let query = db.selectFrom('census_import_rows').selectAll().where('census_import_id', '=', importId);
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return paginate(query, page);
}

/** The create and update rows not applied yet: members first (a dependent's member may be created by the file), in file order. */
export function findUnappliedResults(db: Executor, importId: string, limit: number): Promise<CensusResultRow[]> {
  return db
    .selectFrom('census_import_rows')
    .selectAll()
    .where('census_import_id', '=', importId)
    .where('kind', 'in', ['create', 'update'])
    .where('applied_at', 'is', null)
    .orderBy('target', 'desc')
    .orderBy('position')
    .limit(limit)
    .execute();
}

/** The create and update rows after `afterPosition`, `limit` of them in file order (the apply's check of what changed since the dry run, a page at a time). */
export function findChangeResults(db: Executor, importId: string, afterPosition: number, limit: number) {
  return db
    .selectFrom('census_import_rows')
    .select(['position', 'line', 'kind', 'target', 'employee_id', 'member_id', 'dependent_id', 'seen_version'])
    .where('census_import_id', '=', importId)
    .where('position', '>', afterPosition)
    .where('kind', 'in', ['create', 'update'])
    .where('applied_at', 'is', null)
    .orderBy('position')
    .limit(limit)
    .execute();
}

/** Records a batch's outcomes (the rows as read, with outcome, outcome_message, applied_at, member_id and dependent_id set): one statement per batch. */
export async function markCensusResults(trx: Transaction<Database>, rows: readonly CensusResultRow[]): Promise<void> {
  await insertRows(trx, 'census_import_rows', rows, {
    rowsPerStatement: INSERT_BATCH,
    updateConflictsOn: { columns: ['id'], set: ['outcome', 'outcome_message', 'applied_at', 'member_id', 'dependent_id'] },
  });
}

/**
 * The employer's members whose `column` is one of `values`. The provider is named too: the employee id's index
 * begins with it (members_provider_payroll_id); without it each lookup scanned the employer's members.
 */
export async function findMembersOfEmployerBy(
  db: Executor,
  employer: { provider_id: string; employer_id: string },
  column: 'payroll_provider_external_id' | 'ssn_digest',
  values: readonly string[],
): Promise<MemberRow[]> {
  const found: MemberRow[] = [];
  for (const batch of batches([...new Set(values)], LOOKUP_BATCH)) {
    found.push(
      ...(await db
        .selectFrom('members')
        .selectAll()
        .where('provider_id', '=', employer.provider_id)
        .where('employer_id', '=', employer.employer_id)
        .where(column, 'in', batch)
        .execute()),
    );
  }
  return found;
}

export async function findMembersByIds(db: Executor, ids: readonly string[]): Promise<MemberRow[]> {
  const found: MemberRow[] = [];
  for (const batch of batches([...new Set(ids)], LOOKUP_BATCH)) found.push(...(await db.selectFrom('members').selectAll().where('id', 'in', batch).execute()));
  return found;
}

export async function findDependentsOfMembers(db: Executor, memberIds: readonly string[]): Promise<DependentRow[]> {
  const found: DependentRow[] = [];
  for (const batch of batches([...new Set(memberIds)], LOOKUP_BATCH)) {
    found.push(...(await db.selectFrom('dependents').selectAll().where('member_id', 'in', batch).orderBy('created_at').orderBy('id').execute()));
  }
  return found;
}

export async function findDependentsByIds(db: Executor, ids: readonly string[]): Promise<DependentRow[]> {
  const found: DependentRow[] = [];
  for (const batch of batches([...new Set(ids)], LOOKUP_BATCH))
    found.push(...(await db.selectFrom('dependents').selectAll().where('id', 'in', batch).execute()));
  return found;
}

/** Members among `memberIds` with coverage sent to a carrier (an approved, synced or failed enrollment). */
export async function findMembersWithCoverage(db: Executor, memberIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of batches([...new Set(memberIds)], LOOKUP_BATCH)) {
    const rows = await db
      .selectFrom('enrollments')
      .select('member_id')
      .distinct()
      .where('member_id', 'in', batch)
      .where('status', 'in', SENT_ENROLLMENT_STATUSES)
      .execute();
    for (const row of rows) found.add(row.member_id);
  }
  return found;
}

/** Dependents among `dependentIds` named in coverage (any enrolled plan: coverage-links.repository.ts). */
export async function findDependentsWithCoverage(db: Executor, dependentIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of batches([...new Set(dependentIds)], LOOKUP_BATCH)) {
    for (const [id, plans] of await findEnrolledPlanIdsOfDependents(db, batch)) if (plans.length > 0) found.add(id);
  }
  return found;
}

export async function findSubclassIdsOfMembers(db: Executor, memberIds: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const batch of batches([...new Set(memberIds)], LOOKUP_BATCH)) {
    const rows = await db
      .selectFrom('member_subclasses')
      .select(['member_id', 'subclass_id'])
      .where('member_id', 'in', batch)
      .orderBy('member_id')
      .orderBy('position')
      .execute();
    for (const row of rows) found.set(row.member_id, [...(found.get(row.member_id) ?? []), row.subclass_id]);
  }
  return found;
}

/** The employer's business units and subclasses, by id and by name (a file names them either way). */
export async function findEmployerUnits(db: Executor, providerId: string, employerId: string) {
  const businessUnits = await db
    .selectFrom('business_units')
    .select(['id', 'legal_name as name'])
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .execute();
  const subclasses = await db
    .selectFrom('subclasses')
    .select(['id', 'name'])
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .execute();
  return { businessUnits, subclasses };
}

/** The employer's members employed on `today` (no termination_date before it): the missing list and the termination share. */
export async function findEmployedMembers(
  db: Executor,
  employerId: string,
  today: string,
): Promise<{ id: string; payroll_provider_external_id: string | null }[]> {
  const rows = await db
    .selectFrom('members')
    .select(['id', 'payroll_provider_external_id', 'termination_date'])
    .where('employer_id', '=', employerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((row) => row.termination_date === null || compareDates(row.termination_date, today) >= 0);
}

/** The provider an employer belongs to (the CLI's scope when no --provider names one); undefined for no such employer. */
export async function findEmployerProviderId(db: Executor, employerId: string): Promise<string | undefined> {
  return (await db.selectFrom('employers').select('provider_id').where('id', '=', employerId).executeTakeFirst())?.provider_id;
}

/** How many create and update rows an apply has settled so far (any outcome). */
export async function countAppliedResults(db: Executor, importId: string): Promise<number> {
  const row = await db
    .selectFrom('census_import_rows')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('census_import_id', '=', importId)
    .where('applied_at', 'is not', null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The apply's outcomes, counted. */
export async function countResultOutcomes(db: Executor, importId: string): Promise<Record<CensusRowOutcome, number>> {
  const rows = await db
    .selectFrom('census_import_rows')
    .select(['outcome', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('census_import_id', '=', importId)
    .where('outcome', 'is not', null)
    .groupBy('outcome')
    .execute();
  const counts: Record<CensusRowOutcome, number> = { applied: 0, conflict: 0, failed: 0 };
  for (const row of rows) if (row.outcome !== null) counts[row.outcome] = Number(row.count);
  return counts;
}

/** The first rows, in file order, that carry a warning (`problems` is written by JSON.stringify: no warning is `"warnings":[]`). */
export function findResultsWithWarnings(db: Executor, importId: string, limit: number): Promise<CensusResultRow[]> {
  return db
    .selectFrom('census_import_rows')
    .selectAll()
    .where('census_import_id', '=', importId)
    .where('kind', '!=', 'error')
    .where('problems', 'not like', '%"warnings":[]%')
    .orderBy('position')
    .limit(limit)
    .execute();
}

/** The first rows, in file order, that are errors, or whose apply outcome is one of `outcomes`. */
export function findResultsBy(db: Executor, importId: string, filter: { kind: CensusRowKind } | { outcomes: readonly CensusRowOutcome[] }, limit: number) {
  let query = db.selectFrom('census_import_rows').selectAll().where('census_import_id', '=', importId);
  query = 'kind' in filter ? query.where('kind', '=', filter.kind) : query.where('outcome', 'in', filter.outcomes);
  return query.orderBy('position').limit(limit).execute();
}
