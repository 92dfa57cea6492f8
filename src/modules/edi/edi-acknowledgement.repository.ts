// SQL of acknowledgements: finding the files one is about, the unmatched ones, and the files the pickup has read.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { Selectable } from 'kysely';
import type { EdiPickupSeenFileTable, EdiUnmatchedAcknowledgementRow } from './edi.table.ts';

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
