import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * The daily sweep's divorce candidates (dependents whose relationship ended, still covered past it) read every
 * spouse-like dependent through `dependents_relationship_dob` each day: 55 ms a day at 10,000 members in the
 * plan-year bench, growing with the population. Only dependents with a relationship_end_date are indexed here,
 * so the read starts from the few whose relationship ended (15 ms on the same database, the rest being their
 * coverage history).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('dependents_relationship_end')
    .on('dependents')
    .column('relationship_end_date')
    .where(sql.ref('relationship_end_date'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dependents_relationship_end').execute();
}
