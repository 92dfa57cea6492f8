import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * - `members.rehire_rule`: the rule of the member's latest rehire (reinstated, continuing_employee, new_hire;
 *   null for a member never rehired): whether a waiting period starts again from the rehire date.
 * - `plan_configurations.waiting_period_waiver_allowed`: whether an admin's rules_override on an enrollment may
 *   waive the configuration's waiting period (false for every configuration stored before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('members').addColumn('rehire_rule', 'text').execute();
  await db.schema
    .alterTable('plan_configurations')
    .addColumn('waiting_period_waiver_allowed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plan_configurations').dropColumn('waiting_period_waiver_allowed').execute();
  await db.schema.alterTable('members').dropColumn('rehire_rule').execute();
}
