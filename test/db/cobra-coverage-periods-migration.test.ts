import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.ts';
import * as cobraCoveragePeriods from '../../src/db/migrations/2026-12-04T0301-cobra-coverage-periods.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// Like the migrations themselves, this test reads the tables without the application's row types.
const CREATED_AT = '2026-11-22T08:30:00.123Z';

describe(`COBRA coverage periods (2026-12-04T0301) on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let db: Kysely<any>;

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    db = database.db;
    await migrateToLatest(db);
    const owned = { provider_id: 'prov_1', created_at: CREATED_AT };
    await db.insertInto('providers').values({ id: 'prov_1', name: 'Provider One', created_at: CREATED_AT }).execute();
    await db
      .insertInto('employers')
      .values({ ...owned, id: 'er_1', legal_name: 'Acme Corporation', address: '{}', metadata: '{}' })
      .execute();
    await db
      .insertInto('members')
      .values({
        ...owned,
        id: 'mem_1',
        employer_id: 'er_1',
        first_name: 'Ada',
        last_name: 'Lee',
        dob: '1985-05-05',
        address: '{}',
        hire_date: '2025-01-01',
        metadata: '{}',
      })
      .execute();
    await db
      .insertInto('enrollments')
      .values({
        ...owned,
        id: 'enr_1',
        employer_id: 'er_1',
        member_id: 'mem_1',
        category: 'qle',
        status: 'approved',
        qualifying_life_event_documents: '[]',
        metadata: '{}',
      })
      .execute();
  });

  afterEach(async () => {
    await database.destroy();
  });

  it('when events recorded before it are migrated, then each gets the months and last day of its type and date (Jan 31 + 18 months = Jul 31; Aug 31 + 18 = Feb 29)', async () => {
    await cobraCoveragePeriods.down(db);
    const event = (id: string, event_type: string, event_date: string) => ({
      id,
      provider_id: 'prov_1',
      employer_id: 'er_1',
      member_id: 'mem_1',
      enrollment_id: 'enr_1',
      event_type,
      event_date,
      coverage_lost_date: event_date,
      created_at: CREATED_AT,
    });
    await db
      .insertInto('cobra_events')
      .values([
        event('cobra_1', 'termination', '2026-01-31'),
        event('cobra_2', 'termination', '2026-01-31'),
        event('cobra_3', 'reduction_of_hours', '2026-08-31'),
        event('cobra_4', 'death', '2026-01-31'),
        event('cobra_5', 'dependent_ceased_to_be_dependent', '9998-06-30'),
      ])
      .execute();

    await cobraCoveragePeriods.up(db);

    const rows = await db
      .selectFrom('cobra_events')
      .select([
        'id',
        'maximum_coverage_months',
        'coverage_period_end',
        'disability_person_id',
        'disabled_on',
        'disability_determined_on',
        'disability_recorded_at',
      ])
      .orderBy('id')
      .execute();
    const none = { disability_person_id: null, disabled_on: null, disability_determined_on: null, disability_recorded_at: null };
    expect(rows).toEqual([
      { id: 'cobra_1', maximum_coverage_months: 18, coverage_period_end: '2027-07-31', ...none },
      { id: 'cobra_2', maximum_coverage_months: 18, coverage_period_end: '2027-07-31', ...none },
      { id: 'cobra_3', maximum_coverage_months: 18, coverage_period_end: '2028-02-29', ...none },
      { id: 'cobra_4', maximum_coverage_months: 36, coverage_period_end: '2029-01-31', ...none },
      { id: 'cobra_5', maximum_coverage_months: 36, coverage_period_end: '9999-12-31', ...none },
    ]);
  });
});
