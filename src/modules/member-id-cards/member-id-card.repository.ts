import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { MemberIdCardRow } from './member-id-card.table.ts';

export interface CardAssignments {
  enrolledPlans: string[];
  enrolledDependents: string[];
}

function cards(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('member_id_cards').selectAll(), scope, 'member_id_cards', 'employer_id');
}

export const findCardById: (db: Executor, scope: Scope, id: string) => Promise<MemberIdCardRow | undefined> = findByIdInScope(cards);

export function lockCardById(trx: Transaction<Database>, scope: Scope, id: string): Promise<MemberIdCardRow | undefined> {
  return forUpdate(trx, cards(trx, scope).where('id', '=', id)).executeTakeFirst();
}

export function listCards(db: Executor, scope: Scope, filter: { memberId?: string | undefined }, page: PageRequest): Promise<Page<MemberIdCardRow>> {
  let query = cards(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  return paginate(query, page);
}

export async function insertCard(db: Executor, row: MemberIdCardRow): Promise<void> {
  await db.insertInto('member_id_cards').values(row).execute();
}

/**
 * The card's member, locked for the rest of the transaction. Every write of cards takes this lock first, like
 * deleting the member does, so that they never deadlock and a card never outlives its member.
 */
export function lockMember(trx: Transaction<Database>, scope: Scope, memberId: string): Promise<{ id: string; employer_id: string } | undefined> {
  const member = inScope(trx.selectFrom('members').select(['id', 'employer_id']), scope, 'members', 'employer_id').where('id', '=', memberId);
  return forUpdate(trx, member).executeTakeFirst();
}

/** Enrolled plans among `ids` that belong to the member's enrollments. */
export async function findEnrolledPlanIdsOfMember(db: Executor, providerId: string, memberId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('enrolled_plans')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('member_id', '=', memberId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Enrolled dependents among `ids` that belong to enrolled plans of the member. */
export async function findEnrolledDependentIdsOfMember(db: Executor, providerId: string, memberId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('enrolled_dependents')
    .innerJoin('enrolled_plans', 'enrolled_plans.id', 'enrolled_dependents.enrolled_plan_id')
    .select('enrolled_dependents.id')
    .where('enrolled_dependents.provider_id', '=', providerId)
    .where('enrolled_plans.member_id', '=', memberId)
    .where('enrolled_dependents.id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The cards that hold any of these coverage items now (before they are assigned elsewhere). */
export async function findCardsHolding(
  db: Executor,
  items: { enrolledPlans: readonly string[]; enrolledDependents: readonly string[] },
): Promise<MemberIdCardRow[]> {
  if (items.enrolledPlans.length === 0 && items.enrolledDependents.length === 0) return [];
  const none = ['-'];
  return db
    .selectFrom('member_id_cards')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb(
          'id',
          'in',
          eb
            .selectFrom('enrolled_plans')
            .select('member_id_card_id')
            .where('id', 'in', items.enrolledPlans.length > 0 ? [...items.enrolledPlans] : none),
        ),
        eb(
          'id',
          'in',
          eb
            .selectFrom('enrolled_dependents')
            .select('member_id_card_id')
            .where('id', 'in', items.enrolledDependents.length > 0 ? [...items.enrolledDependents] : none),
        ),
      ]),
    )
    .orderBy('id')
    .execute();
}

/** Points the coverage items at the card; an item holds one card, so this moves them off any previous one. */
export async function assignCard(
  trx: Executor,
  cardId: string,
  assignments: { enrolledPlans: readonly string[]; enrolledDependents: readonly string[] },
): Promise<void> {
  if (assignments.enrolledPlans.length > 0) {
    await trx.updateTable('enrolled_plans').set({ member_id_card_id: cardId }).where('id', 'in', assignments.enrolledPlans).execute();
  }
  if (assignments.enrolledDependents.length > 0) {
    await trx.updateTable('enrolled_dependents').set({ member_id_card_id: cardId }).where('id', 'in', assignments.enrolledDependents).execute();
  }
}

/** Ids of the coverage each card is assigned to, two queries whatever the number of cards. */
export async function findCardAssignments(db: Executor, cardIds: readonly string[]): Promise<Map<string, CardAssignments>> {
  const assignments = new Map(cardIds.map((id) => [id, { enrolledPlans: [] as string[], enrolledDependents: [] as string[] }]));
  if (cardIds.length === 0) return assignments;
  const plans = await db
    .selectFrom('enrolled_plans')
    .select(['id', 'member_id_card_id'])
    .where('member_id_card_id', 'in', cardIds)
    .orderBy('created_at')
    .orderBy('position')
    .orderBy('id')
    .execute();
  for (const row of plans) if (row.member_id_card_id !== null) assignments.get(row.member_id_card_id)?.enrolledPlans.push(row.id);
  const dependents = await db
    .selectFrom('enrolled_dependents')
    .select(['id', 'member_id_card_id'])
    .where('member_id_card_id', 'in', cardIds)
    .orderBy('created_at')
    .orderBy('position')
    .orderBy('id')
    .execute();
  for (const row of dependents) if (row.member_id_card_id !== null) assignments.get(row.member_id_card_id)?.enrolledDependents.push(row.id);
  return assignments;
}

/**
 * Endpoint 13: the coverage that used the card loses its assignment (explicitly, not only through the
 * foreign key's ON DELETE SET NULL); a linked document stays.
 */
export async function deleteCard(trx: Executor, cardId: string): Promise<void> {
  await trx.updateTable('enrolled_dependents').set({ member_id_card_id: null }).where('member_id_card_id', '=', cardId).execute();
  await trx.updateTable('enrolled_plans').set({ member_id_card_id: null }).where('member_id_card_id', '=', cardId).execute();
  await trx.deleteFrom('member_id_cards').where('id', '=', cardId).execute();
}
