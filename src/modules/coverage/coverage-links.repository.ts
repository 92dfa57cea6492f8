// The links between coverage and the records it names or that point at it: the ID cards assigned to enrolled
// plans and dependents, the dependents covered or waiving, the beneficiaries designated. Each module that owns
// such a record asks here, so coverage tables are read and written in src/modules/coverage only.
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { MemberIdCardRow } from '../member-id-cards/member-id-card.table.ts';

/** The coverage a card is assigned to, by id. */
export interface CardAssignments {
  enrolledPlans: string[];
  enrolledDependents: string[];
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
  for (const row of await cardHolders(db, 'enrolled_plans', cardIds)) assignments.get(row.member_id_card_id!)?.enrolledPlans.push(row.id);
  for (const row of await cardHolders(db, 'enrolled_dependents', cardIds)) assignments.get(row.member_id_card_id!)?.enrolledDependents.push(row.id);
  return assignments;
}

/** Takes the card off the coverage that holds it (before the card is deleted). */
export async function unassignCard(trx: Executor, cardId: string): Promise<void> {
  await trx.updateTable('enrolled_dependents').set({ member_id_card_id: null }).where('member_id_card_id', '=', cardId).execute();
  await trx.updateTable('enrolled_plans').set({ member_id_card_id: null }).where('member_id_card_id', '=', cardId).execute();
}

/** The enrolled plans covering each dependent, oldest coverage first, in one query whatever the number of dependents. */
export async function findEnrolledPlanIdsOfDependents(db: Executor, dependentIds: readonly string[]): Promise<Map<string, string[]>> {
  const links = new Map(dependentIds.map((id) => [id, [] as string[]]));
  if (dependentIds.length === 0) return links;
  const rows = await db
    .selectFrom('enrolled_dependents')
    .select(['dependent_id', 'enrolled_plan_id'])
    .where('dependent_id', 'in', dependentIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) links.get(row.dependent_id)?.push(row.enrolled_plan_id);
  return links;
}

/** The enrollments that name the dependent, as covered or as waiving (ids, each once); the caller locks them. */
export async function findEnrollmentIdsNamingDependent(trx: Transaction<Database>, dependentId: string): Promise<string[]> {
  const covering = await trx
    .selectFrom('enrolled_dependents')
    .innerJoin('enrolled_plans', 'enrolled_plans.id', 'enrolled_dependents.enrolled_plan_id')
    .select('enrolled_plans.enrollment_id')
    .where('enrolled_dependents.dependent_id', '=', dependentId)
    .execute();
  const waiving = await trx.selectFrom('coverage_waivers').select('enrollment_id').where('dependent_id', '=', dependentId).execute();
  return [...new Set([...covering, ...waiving].map((row) => row.enrollment_id))];
}

/** Removes the dependent from the given (unsent) enrollments' elections: who they cover and who they waive. */
export async function removeDependentFromEnrollments(trx: Executor, dependentId: string, unsentEnrollmentIds: readonly string[]): Promise<void> {
  if (unsentEnrollmentIds.length > 0) {
    await trx
      .deleteFrom('enrolled_dependents')
      .where('dependent_id', '=', dependentId)
      .where('enrolled_plan_id', 'in', (eb) => eb.selectFrom('enrolled_plans').select('id').where('enrollment_id', 'in', unsentEnrollmentIds))
      .execute();
    await trx.deleteFrom('coverage_waivers').where('dependent_id', '=', dependentId).where('enrollment_id', 'in', unsentEnrollmentIds).execute();
  }
}

/** Whether any election's beneficiary designation names the beneficiary (the row cannot go while one does). */
export async function isBeneficiaryDesignated(db: Executor, beneficiaryId: string): Promise<boolean> {
  const row = await db.selectFrom('beneficiary_designations').select('id').where('beneficiary_id', '=', beneficiaryId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Enrolled plans or dependents holding one of `cardIds`, in the order they were elected. */
function cardHolders(db: Executor, table: 'enrolled_plans' | 'enrolled_dependents', cardIds: readonly string[]) {
  return db
    .selectFrom(table)
    .select(['id', 'member_id_card_id'])
    .where('member_id_card_id', 'in', cardIds)
    .orderBy('created_at')
    .orderBy('position')
    .orderBy('id')
    .execute();
}
