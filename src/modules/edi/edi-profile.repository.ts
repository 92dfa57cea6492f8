// SQL of trading partners' EDI profiles: the profile rows, the scheduler's daily claim and control numbers.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { EdiProfileRow } from './edi.table.ts';

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
