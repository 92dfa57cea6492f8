import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { cachedQuery } from '../../db/query-cache.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { SENT_ENROLLMENT_STATUSES } from '../enrollments/enrollment.table.ts';
import type { MemberRow } from './member.table.ts';

function members(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('members').selectAll(), scope, 'members', 'employer_id');
}

export const findMemberById: (db: Executor, scope: Scope, id: string) => Promise<MemberRow | undefined> = findByIdInScope(members);

export async function lockMemberById(trx: Transaction<Database>, scope: Scope, id: string): Promise<MemberRow | undefined> {
  return (await memberForUpdate(trx, scope.providerId, scope.employerId, id))[0];
}

// Every path that changes a member's enrollments takes this lock: compiled once per shape (cachedQuery).
const memberForUpdate = cachedQuery((trx: Transaction<Database>, providerId: string, employerId: string | null, id: string) =>
  forUpdate(trx, members(trx, { providerId, employerId }).where('id', '=', id)),
);

/**
 * Locks many members at once, in id order (the lock order), and returns those that exist by id: the daily
 * sweep's batches, one statement for a batch instead of one per member. No tenant scope: only for ids the
 * caller read from the database itself (the sweep acts for every provider).
 */
export async function lockMembersByIds(trx: Transaction<Database>, ids: readonly string[]): Promise<Map<string, MemberRow>> {
  if (ids.length === 0) return new Map();
  const rows = await membersForUpdate(trx, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, row]));
}

const membersForUpdate = cachedQuery((trx: Transaction<Database>, ids: readonly string[]) =>
  forUpdate(trx, trx.selectFrom('members').selectAll().where('id', 'in', ids).orderBy('id')),
);

export interface MemberListFilter {
  employerId?: string | undefined;
  payrollProviderExternalId?: string | undefined;
}

// The payroll id filter seeks the members_provider_payroll_id index (provider_id, payroll_provider_external_id, created_at, id).
export function listMembers(db: Executor, scope: Scope, filter: MemberListFilter, page: PageRequest): Promise<Page<MemberRow>> {
  let query = members(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.payrollProviderExternalId !== undefined) query = query.where('payroll_provider_external_id', '=', filter.payrollProviderExternalId);
  return paginate(query, page);
}

export async function insertMember(db: Executor, row: MemberRow): Promise<void> {
  await db.insertInto('members').values(row).execute();
}

export async function updateMember(db: Executor, row: MemberRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('members').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

export async function replaceMemberSubclasses(db: Executor, memberId: string, subclassIds: readonly string[]): Promise<void> {
  await db.deleteFrom('member_subclasses').where('member_id', '=', memberId).execute();
  if (subclassIds.length === 0) return;
  await db
    .insertInto('member_subclasses')
    .values(subclassIds.map((subclass_id, position) => ({ member_id: memberId, subclass_id, position })))
    .execute();
}

const subclassesOfMember = cachedQuery((db, memberId: string) =>
  db.selectFrom('member_subclasses').select('subclass_id').where('member_id', '=', memberId).orderBy('position'),
);

/** The member's subclass ids, in their positions: what selects the member's plan configuration. */
export async function findMemberSubclassIds(db: Executor, memberId: string): Promise<string[]> {
  return (await subclassesOfMember(db, memberId)).map((row) => row.subclass_id);
}

/** Subclass ids and enrollment ids of each member, in one query each whatever the number of members. */
export async function findMemberLinks(db: Executor, memberIds: readonly string[]): Promise<Map<string, { subclasses: string[]; enrollments: string[] }>> {
  const links = new Map(memberIds.map((id) => [id, { subclasses: [] as string[], enrollments: [] as string[] }]));
  if (memberIds.length === 0) return links;
  const subclasses = await db
    .selectFrom('member_subclasses')
    .select(['member_id', 'subclass_id'])
    .where('member_id', 'in', memberIds)
    .orderBy('member_id')
    .orderBy('position')
    .execute();
  for (const row of subclasses) links.get(row.member_id)?.subclasses.push(row.subclass_id);
  const enrollments = await db
    .selectFrom('enrollments')
    .select(['member_id', 'id'])
    .where('member_id', 'in', memberIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of enrollments) links.get(row.member_id)?.enrollments.push(row.id);
  return links;
}

/** Subclasses (of the given employer) among `ids`; the rest do not exist for this member. */
export async function findEmployerSubclassIds(db: Executor, providerId: string, employerId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('subclasses')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether another member of the member's employer has the same SSN (by its keyed digest). */
export async function hasOtherMemberWithSsn(db: Executor, member: Pick<MemberRow, 'id' | 'employer_id' | 'ssn_digest'>): Promise<boolean> {
  if (member.ssn_digest === null) return false;
  const row = await db
    .selectFrom('members')
    .select('id')
    .where('employer_id', '=', member.employer_id)
    .where('ssn_digest', '=', member.ssn_digest)
    .where('id', '!=', member.id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function isEmployerBusinessUnit(db: Executor, providerId: string, employerId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('business_units')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('employer_id', '=', employerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Plan configurations of the employer's plans still running on `date`, with their plan, oldest first. */
export function findCurrentPlanConfigurations(db: Executor, providerId: string, employerId: string, date: string) {
  return db
    .selectFrom('plan_configurations')
    .innerJoin('plans', 'plans.id', 'plan_configurations.plan_id')
    .select(['plan_configurations.id', 'plan_configurations.plan_id', 'plan_configurations.required_subclass_id', 'plan_configurations.waiting_period_days'])
    .where('plan_configurations.provider_id', '=', providerId)
    .where('plan_configurations.employer_id', '=', employerId)
    .where('plans.effective_end', '>=', date)
    .orderBy('plan_configurations.created_at')
    .orderBy('plan_configurations.id')
    .execute();
}

/** Whether coverage of the member was already sent to a carrier: an approved, synced or failed enrollment. */
export async function hasSentCoverage(db: Executor, memberId: string): Promise<boolean> {
  const row = await db
    .selectFrom('enrollments')
    .select('id')
    .where('member_id', '=', memberId)
    .where('status', 'in', SENT_ENROLLMENT_STATUSES)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Removes the member and everything that is theirs alone (docs/decisions.md "Members and personal data"): unsent
 * enrollments (their enrolled plans, dependents and waivers go with them), ID cards, pay rates, beneficiaries,
 * dependents and subclass links. Documents stay, unlinked from the member; notifications stay as the record of what
 * was said. Returns the ids and parents of what it removed or unlinked (RETURNING, no extra reads), for their events.
 */
export async function deleteMemberAndRecords(trx: Executor, memberId: string) {
  const owned = ['id', 'provider_id', 'employer_id', 'member_id'] as const;
  const enrollments = await trx
    .deleteFrom('enrollments')
    .where('member_id', '=', memberId)
    .returning([...owned, 'status', 'category', 'open_enrollment_window_id', 'rules_override_reason'])
    .execute();
  const memberIdCards = await trx
    .deleteFrom('member_id_cards')
    .where('member_id', '=', memberId)
    .returning([...owned, 'carrier_id', 'document_id'])
    .execute();
  const payRates = await trx.deleteFrom('pay_rates').where('member_id', '=', memberId).returning(owned).execute();
  const beneficiaries = await trx.deleteFrom('beneficiaries').where('member_id', '=', memberId).returning(owned).execute();
  const dependents = await trx.deleteFrom('dependents').where('member_id', '=', memberId).returning(owned).execute();
  await trx.deleteFrom('edi_left_out').where('member_id', '=', memberId).execute();
  await trx.deleteFrom('member_employment_events').where('member_id', '=', memberId).execute();
  const unlinkedDocuments = await trx.updateTable('documents').set({ member_id: null }).where('member_id', '=', memberId).returning(owned).execute();
  await trx.deleteFrom('members').where('id', '=', memberId).execute();
  return { enrollments, memberIdCards, payRates, beneficiaries, dependents, unlinkedDocuments };
}
