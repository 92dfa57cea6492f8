// SQL a build reads to make a file's loops: changes waiting for a file, members, dependents, and the
// demographics digests of what each carrier was last sent. Coverage is coverage/group-coverage.repository.ts's.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { insertRows } from '../../db/bulk-insert.ts';
import { batches } from '../../shared/batches.ts';
import { compareIds } from '../../shared/ids.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import type { MemberRange } from '../coverage/group-coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { EnrollmentCategory } from '../enrollments/enrollment.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { SentName } from './edi-people.ts';

/**
 * The group's benefit changes still waiting for a file that no file carries (a file a 999/TA1 rejected carries
 * nothing: its changes were sent back), oldest first and in enrollment order; with `resending`, only those of
 * that rejected file (POST /edi_files/{id}/resend). Moving them on is benefit-change.repository's
 * (transitionChangesOfEdiFile).
 */
export function listUnsentChanges(db: Executor, providerId: string, groupId: string, limit: number, resending?: string): Promise<BenefitChangeRow[]> {
  let query = db
    .selectFrom('benefit_changes')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('group_id', '=', groupId)
    .where('connection_method', '=', 'edi')
    .where('delivery_state', '=', 'awaiting_file')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('edi_file_changes')
            .select('edi_file_changes.edi_file_id')
            .whereRef('edi_file_changes.benefit_change_id', '=', 'benefit_changes.id')
            .where('edi_file_changes.returned_at', 'is', null),
        ),
      ),
    );
  if (resending !== undefined) {
    query = query.where('id', 'in', (eb) => eb.selectFrom('edi_file_changes').select('benefit_change_id').where('edi_file_id', '=', resending));
  }
  return query.orderBy('created_at').orderBy('enrollment_id').orderBy('position').limit(limit).execute();
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
  'termination_reason',
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

/** What the group's carrier was last sent about a person: the demographics digest and the name (undefined when not kept). */
export interface SentPerson {
  digest: string;
  name: SentName | undefined;
}

function sentPersonOf(row: { digest: string; last_name: string | null; first_name: string | null; middle_name: string | null }): SentPerson {
  return {
    digest: row.digest,
    name: row.last_name === null ? undefined : { last_name: row.last_name, first_name: row.first_name, middle_name: row.middle_name },
  };
}

/** What the group's carrier was last sent about each person (of `personIds` when given). */
export async function findSentDigests(db: Executor, groupId: string, personIds?: readonly string[]): Promise<Map<string, SentPerson>> {
  const query = db
    .selectFrom('edi_sent_demographics')
    .select(['person_id', 'digest', 'last_name', 'first_name', 'middle_name'])
    .where('group_id', '=', groupId);
  if (personIds === undefined) return new Map((await query.execute()).map((row) => [row.person_id, sentPersonOf(row)]));
  const found = new Map<string, SentPerson>();
  for (const batch of batches([...new Set(personIds)], 5_000)) {
    for (const row of await query.where('person_id', 'in', batch).execute()) found.set(row.person_id, sentPersonOf(row));
  }
  return found;
}

/**
 * The digest that marks a person to be sent again (a carrier file's demographics resent, docs/decisions.md
 * "Carrier files"): never a real digest (those are 43 characters of base64url), so the next change file sees a
 * difference and sends the person's demographic maintenance, then stores the real digest over it.
 */
export const RESEND_DIGEST = 'resend';

/**
 * Marks a person the group's carrier was sent in a file before, so that the next change file sends their
 * demographics again. False when no file of the group has sent them (nothing of ours to send again).
 */
export async function markDemographicsToResend(trx: Transaction<Database>, groupId: string, personId: string): Promise<boolean> {
  const result = await trx
    .updateTable('edi_sent_demographics')
    .set({ digest: RESEND_DIGEST })
    .where('group_id', '=', groupId)
    .where('person_id', '=', personId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The people of the group marked to be sent again (a partial index holds only them). */
export async function findPeopleToResend(db: Executor, groupId: string): Promise<string[]> {
  const rows = await db.selectFrom('edi_sent_demographics').select('person_id').where('group_id', '=', groupId).where('digest', '=', RESEND_DIGEST).execute();
  return rows.map((row) => row.person_id);
}

/** The category and reason of enrollments (the event behind their benefit changes: INS04). */
export async function findEnrollmentReasons(
  db: Executor,
  ids: readonly string[],
): Promise<Map<string, { category: EnrollmentCategory; reason: string | null }>> {
  const found = new Map<string, { category: EnrollmentCategory; reason: string | null }>();
  for (const batch of batches([...new Set(ids)], 5_000)) {
    const rows = await db.selectFrom('enrollments').select(['id', 'category', 'reason']).where('id', 'in', batch).execute();
    for (const row of rows) found.set(row.id, { category: row.category, reason: row.reason });
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

/** Stores what the file sent (digests and names), but for people `known` to be stored already with the same digest and a name. */
export async function saveSentDigests(
  trx: Transaction<Database>,
  groupId: string,
  fileId: string,
  digests: ReadonlyMap<string, { digest: string; name: SentName }>,
  known: ReadonlyMap<string, SentPerson>,
): Promise<void> {
  // In key order: each statement appends to the index instead of splitting pages all over it.
  const rows = [...digests]
    .filter(([person_id, sent]) => known.get(person_id)?.digest !== sent.digest || known.get(person_id)?.name === undefined)
    .sort(([a], [b]) => compareIds(a, b))
    .map(([person_id, sent]) => ({ group_id: groupId, person_id, digest: sent.digest, edi_file_id: fileId, ...sent.name }));
  // From a cached statement text: built by Kysely, the 100 statements of a first full file of 50,000 members
  // (100,000 people) took 0.8 s of CPU, 9% of the server's over the edi-files bench (now under 4%).
  await insertRows(trx, 'edi_sent_demographics', rows, {
    rowsPerStatement: 1_000,
    updateConflictsOn: { columns: ['group_id', 'person_id'], set: ['digest', 'edi_file_id', 'last_name', 'first_name', 'middle_name'] },
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
      // Not what a file the carrier rejected carried: it never told the carrier anything.
      .where('edi_file_changes.returned_at', 'is', null)
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
