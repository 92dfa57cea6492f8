import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { PayScheduleRow } from './payroll.table.ts';

function paySchedules(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('pay_schedules').selectAll(), scope, 'pay_schedules', 'employer_id');
}

export const findPayScheduleById: (db: Executor, scope: Scope, id: string) => Promise<PayScheduleRow | undefined> = findByIdInScope(paySchedules);

export function lockPayScheduleById(trx: Transaction<Database>, scope: Scope, id: string): Promise<PayScheduleRow | undefined> {
  return forUpdate(trx, paySchedules(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listPaySchedules(db: Executor, scope: Scope, filter: { employerId?: string | undefined }, page: PageRequest): Promise<Page<PayScheduleRow>> {
  let query = paySchedules(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  return paginate(query, page);
}

/** Every schedule of an employer, oldest first. */
export function findEmployerPaySchedules(db: Executor, providerId: string, employerId: string): Promise<PayScheduleRow[]> {
  return db
    .selectFrom('pay_schedules')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The schedule a member is paid on: their own, else their employer's default; undefined without either. */
export async function findPayScheduleOfMember(
  db: Executor,
  member: { provider_id: string; employer_id: string; pay_schedule_id: string | null },
): Promise<PayScheduleRow | undefined> {
  let query = db.selectFrom('pay_schedules').selectAll().where('provider_id', '=', member.provider_id).where('employer_id', '=', member.employer_id);
  query = member.pay_schedule_id === null ? query.where('is_default', '=', true) : query.where('id', '=', member.pay_schedule_id);
  return query.executeTakeFirst();
}

export async function isEmployerPaySchedule(db: Executor, providerId: string, employerId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('pay_schedules')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertPaySchedule(db: Executor, row: PayScheduleRow): Promise<void> {
  await db.insertInto('pay_schedules').values(row).execute();
}

export async function updatePaySchedule(db: Executor, row: PayScheduleRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('pay_schedules').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

/** Makes no schedule of the employer the default but `exceptId` (before another becomes it: the partial unique index). */
export async function clearDefaultPaySchedule(db: Executor, providerId: string, employerId: string, exceptId: string): Promise<void> {
  await db
    .updateTable('pay_schedules')
    .set({ is_default: false })
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', '!=', exceptId)
    .where('is_default', '=', true)
    .execute();
}

/** Whether the schedule has paid runs (its dates are then history: frequency and first pay date stay). */
export async function hasPayrollRuns(db: Executor, payScheduleId: string): Promise<boolean> {
  const row = await db.selectFrom('payroll_runs').select('id').where('pay_schedule_id', '=', payScheduleId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The schedule each of these members is paid on (their own, else the employer default), by member id; members with none are absent. */
export async function findPaySchedulesOfMembers(db: Executor, memberIds: readonly string[]): Promise<Map<string, PayScheduleRow>> {
  if (memberIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('members')
    .innerJoin('pay_schedules', (join) =>
      join
        .onRef('pay_schedules.provider_id', '=', 'members.provider_id')
        .onRef('pay_schedules.employer_id', '=', 'members.employer_id')
        .on((eb) =>
          eb.or([
            eb('pay_schedules.id', '=', eb.ref('members.pay_schedule_id')),
            eb.and([eb('members.pay_schedule_id', 'is', null), eb('pay_schedules.is_default', '=', true)]),
          ]),
        ),
    )
    .selectAll('pay_schedules')
    .select('members.id as member_id')
    .where('members.id', 'in', [...new Set(memberIds)])
    .execute();
  return new Map(rows.map(({ member_id: memberId, ...schedule }) => [memberId, schedule]));
}
