// SQL of stored EDI files: the file rows, their encrypted chunks, the changes and people each carried, their delivery
// jobs, and the settling of the benefit changes a file carried.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { insertRows } from '../../db/bulk-insert.ts';
import { batches } from '../../shared/batches.ts';
import type { EdiFileKind, EdiFileRow, EdiFileStatus } from './edi.table.ts';

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

/** The group's newest file (undefined before the first). */
export function findLastFile(db: Executor, providerId: string, groupId: string): Promise<Pick<EdiFileRow, 'id' | 'provider_id' | 'created_at'> | undefined> {
  return (
    db
      .selectFrom('edi_files')
      .select(['id', 'provider_id', 'created_at'])
      // With the provider, edi_files_group_page answers in order (without, the group's files were read and sorted).
      .where('provider_id', '=', providerId)
      .where('group_id', '=', groupId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
  );
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

export async function insertFileChanges(trx: Transaction<Database>, fileId: string, changeIds: readonly string[]): Promise<void> {
  await insertRows(
    trx,
    'edi_file_changes',
    changeIds.map((benefit_change_id, position) => ({ benefit_change_id, edi_file_id: fileId, position, returned_at: null })),
    { rowsPerStatement: 1_000 },
  );
}

/**
 * The file was rejected (a 999/TA1): it carries none of its changes any more, and each may go in another file
 * (the unique index over rows not returned allows one such file per change). Call it after the changes were
 * sent back (transitionChangesOfEdiFile with file_return), which reads the rows not returned.
 */
export async function markFileChangesReturned(trx: Transaction<Database>, fileId: string, at: string): Promise<void> {
  await trx.updateTable('edi_file_changes').set({ returned_at: at }).where('edi_file_id', '=', fileId).where('returned_at', 'is', null).execute();
}

/**
 * How many of a rejected file's changes a resend would carry: sent back by its rejection, still waiting for a
 * file (not completed or refused since) and in no file since.
 */
export async function countChangesToResend(db: Executor, fileId: string): Promise<number> {
  const row = await db
    .selectFrom('edi_file_changes as carried')
    .innerJoin('benefit_changes', 'benefit_changes.id', 'carried.benefit_change_id')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('carried.edi_file_id', '=', fileId)
    .where('benefit_changes.delivery_state', '=', 'awaiting_file')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('edi_file_changes as live')
            .select('live.edi_file_id')
            .whereRef('live.benefit_change_id', '=', 'carried.benefit_change_id')
            .where('live.returned_at', 'is', null),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.count);
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
