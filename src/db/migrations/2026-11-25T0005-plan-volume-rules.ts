import { type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  // JSON text: a plan's volume rules (increment, minimum, maximum, spouse share, child maximum), or null.
  await db.schema.alterTable('plans').addColumn('volume_rules', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plans').dropColumn('volume_rules').execute();
}
