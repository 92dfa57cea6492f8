import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { unassignCard } from '../coverage/coverage-links.repository.ts';
import type { MemberIdCardRow } from './member-id-card.table.ts';

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

/**
 * Deletes the card: the coverage that used it loses its assignment first (explicitly, not only through the
 * foreign key's ON DELETE SET NULL); a linked document stays.
 */
export async function deleteCard(trx: Executor, cardId: string): Promise<void> {
  await unassignCard(trx, cardId);
  await trx.deleteFrom('member_id_cards').where('id', '=', cardId).execute();
}
