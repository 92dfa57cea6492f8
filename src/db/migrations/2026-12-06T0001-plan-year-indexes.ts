import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * Three indexes the plan-year bench asked for (docs/architecture.md, the plan-year simulation):
 *
 * - `benefit_changes_group_delivery`: a group's changes waiting for a file. The build of each group's 834 read
 *   every change of every group in that delivery state (`benefit_changes_delivery`) and kept its own.
 * - `benefit_changes_group_member`: what a group's files last told the carrier of some members (a build's
 *   reinstatements): read by member, not through every change of the group.
 * - `dependents_relationship_dob`: the daily sweep's age-out candidates, children born by a date, instead of
 *   every covered dependent every day.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('benefit_changes_group_delivery').on('benefit_changes').columns(['group_id', 'delivery_state']).execute();
  await db.schema.createIndex('benefit_changes_group_member').on('benefit_changes').columns(['group_id', 'member_id']).execute();
  await db.schema.createIndex('dependents_relationship_dob').on('dependents').columns(['member_relationship', 'dob']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dependents_relationship_dob').execute();
  await db.schema.dropIndex('benefit_changes_group_member').execute();
  await db.schema.dropIndex('benefit_changes_group_delivery').execute();
}
