import type { Executor } from '../../db/database.ts';
import { batches } from '../../shared/batches.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { findByIdInScope, inScope } from '../../db/scope.ts';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { CarrierFileResolutionRow, CarrierFileRow } from './carrier-file.table.ts';

function carrierFiles(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('carrier_files').selectAll(), scope, 'carrier_files', 'employer_id');
}

export const findCarrierFileById: (db: Executor, scope: Scope, id: string) => Promise<CarrierFileRow | undefined> = findByIdInScope(carrierFiles);

export async function insertCarrierFile(db: Executor, row: CarrierFileRow): Promise<void> {
  await db.insertInto('carrier_files').values(row).execute();
}

/** The resolutions of a carrier file's discrepancies, in index order. */
export function findResolutions(db: Executor, carrierFileId: string): Promise<CarrierFileResolutionRow[]> {
  return db.selectFrom('carrier_file_resolutions').selectAll().where('carrier_file_id', '=', carrierFileId).orderBy('discrepancy_index').execute();
}

/** Records a resolution; the unique index on (carrier_file_id, discrepancy_index) refuses a second one. */
export async function insertResolution(trx: Transaction<Database>, row: CarrierFileResolutionRow): Promise<void> {
  await trx.insertInto('carrier_file_resolutions').values(row).execute();
}

/** The group's connection method (where a resend goes). */
export async function findConnectionMethodOfGroup(db: Executor, groupId: string) {
  return (await db.selectFrom('carrier_groups').select('connection_method').where('id', '=', groupId).executeTakeFirst())?.connection_method;
}

/** Subscriber id -> member id, for the employer's members whose `column` is one of `values`. */
export async function findMembersBy(
  db: Executor,
  employerId: string,
  column: 'id' | 'payroll_provider_external_id' | 'ssn_digest',
  values: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const batch of batches([...new Set(values)], 5_000)) {
    const rows = await db.selectFrom('members').select(['id', column]).where('employer_id', '=', employerId).where(column, 'in', batch).execute();
    for (const row of rows) found.set(row[column] as string, row.id);
  }
  return found;
}

/** Names and birth dates of members. */
export async function findPeopleOfMembers(db: Executor, memberIds: readonly string[]) {
  const members: { id: string; first_name: string; last_name: string; dob: string }[] = [];
  const dependents: { id: string; member_id: string; first_name: string; last_name: string; dob: string; member_relationship: string }[] = [];
  for (const batch of batches([...new Set(memberIds)], 5_000)) {
    members.push(...(await db.selectFrom('members').select(['id', 'first_name', 'last_name', 'dob']).where('id', 'in', batch).execute()));
    dependents.push(
      ...(await db
        .selectFrom('dependents')
        .select(['id', 'member_id', 'first_name', 'last_name', 'dob', 'member_relationship'])
        .where('member_id', 'in', batch)
        .orderBy('id')
        .execute()),
    );
  }
  return { members, dependents };
}
