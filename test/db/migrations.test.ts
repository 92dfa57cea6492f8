import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import * as benefitChangeCoverageDates from '../../src/db/migrations/2026-11-23T0002-benefit-change-coverage-dates.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// Like the migrations themselves, this test reads the tables without the application's row types.
const MIGRATION_NAMES = readdirSync(fileURLToPath(new URL('../../src/db/migrations/', import.meta.url)))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();

const FOUNDATION_TABLES = ['settings', 'providers', 'employers', 'api_keys', 'idempotency_keys', 'carriers', 'carrier_groups', 'business_units', 'subclasses'];

const CREATED_AT = '2026-11-22T08:30:00.123Z';

describe(`migrations on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let db: Kysely<any>;

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    db = database.db;
  });

  afterEach(async () => {
    await database.destroy();
  });

  async function insertProvider(id = 'prov_1', name = 'Provider One'): Promise<void> {
    await db.insertInto('providers').values({ id, name, created_at: CREATED_AT }).execute();
  }

  async function insertEmployer(id = 'er_1', providerId = 'prov_1'): Promise<void> {
    await db
      .insertInto('employers')
      .values({
        id,
        provider_id: providerId,
        legal_name: 'Acme Corporation',
        address: JSON.stringify({ line1: '1 Main St', city: 'San Francisco', state: 'CA', zip_code: '94105' }),
        metadata: JSON.stringify({ tier: 'gold', 'quoted "key"': 'ünïcode 🎉' }),
        created_at: CREATED_AT,
      })
      .execute();
  }

  describe('migrating an empty database', () => {
    it('when the database is empty, then every migration in src/db/migrations is applied, in order', async () => {
      expect(MIGRATION_NAMES.length).toBeGreaterThan(0);
      expect(await migrateToLatest(db)).toStrictEqual(MIGRATION_NAMES);

      const recorded = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      expect(recorded.map((row) => row.name)).toStrictEqual(MIGRATION_NAMES);
    });

    it('when migrating again, then nothing is applied', async () => {
      await migrateToLatest(db);
      expect(await migrateToLatest(db)).toStrictEqual([]);
    });

    it('when migrated, then every foundation table exists and is empty', async () => {
      await migrateToLatest(db);
      for (const table of FOUNDATION_TABLES) {
        const row = await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .executeTakeFirstOrThrow();
        expect({ table, count: Number(row.count) }).toStrictEqual({ table, count: 0 });
      }
    });
  });

  describe('benefit change coverage dates (2026-11-23T0002)', () => {
    beforeEach(async () => {
      await migrateToLatest(db);
    });

    /** A member with coverage on two plans of one employer: medical (replaced), then dental from June. */
    async function insertCoverage(): Promise<void> {
      await insertProvider();
      await insertEmployer();
      const owned = { provider_id: 'prov_1', created_at: CREATED_AT };
      await db
        .insertInto('carriers')
        .values({ ...owned, id: 'car_1', legal_name: 'Carrier A' })
        .execute();
      await db
        .insertInto('carrier_groups')
        .values({ ...owned, id: 'grp_1', employer_id: 'er_1', carrier_id: 'car_1', group_number: 'G-1', connection_method: 'manual' })
        .execute();
      const plan = {
        ...owned,
        employer_id: 'er_1',
        group_id: 'grp_1',
        effective_start: '2026-01-01',
        effective_end: '2026-12-31',
        requires_primary_care_provider: false,
        metadata: '{}',
      };
      await db
        .insertInto('plans')
        .values([
          { ...plan, id: 'plan_medical', plan_name: 'Gold', line_of_coverage: 'medical' },
          { ...plan, id: 'plan_dental', plan_name: 'Dental', line_of_coverage: 'dental' },
        ])
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
      const enrollment = {
        ...owned,
        employer_id: 'er_1',
        member_id: 'mem_1',
        category: 'qle',
        status: 'approved',
        qualifying_life_event_documents: '[]',
        metadata: '{}',
      };
      await db
        .insertInto('enrollments')
        .values([
          { ...enrollment, id: 'enr_1', effective_start: '2026-01-01' },
          { ...enrollment, id: 'enr_2', effective_start: '2026-06-01' },
        ])
        .execute();
      const enrolled = { ...owned, member_id: 'mem_1', position: 0, eoi_status: 'not_required' };
      await db
        .insertInto('enrolled_plans')
        .values([
          { ...enrolled, id: 'ep_medical', enrollment_id: 'enr_1', plan_id: 'plan_medical', effective_start: '2026-01-01', effective_end: '2026-05-31' },
          { ...enrolled, id: 'ep_dental', enrollment_id: 'enr_2', plan_id: 'plan_dental', effective_start: '2026-06-01', effective_end: '2026-12-31' },
        ])
        .execute();
      const change = {
        ...owned,
        employer_id: 'er_1',
        member_id: 'mem_1',
        changes: '[]',
        group_id: 'grp_1',
        connection_method: 'manual',
        delivery_state: 'manual',
        needs_manual_completion: true,
      };
      await db
        .insertInto('benefit_changes')
        .values([
          { ...change, id: 'bc_new', enrollment_id: 'enr_2', line_of_coverage: 'dental', status: 'new', next_enrollment_plan_id: 'ep_dental', position: 0 },
          {
            ...change,
            id: 'bc_removed',
            enrollment_id: 'enr_2',
            line_of_coverage: 'medical',
            status: 'removed',
            previous_enrollment_plan_id: 'ep_medical',
            position: 1,
          },
        ])
        .execute();
    }

    it('when benefit changes recorded before it are migrated, then each gets the dates of its enrolled plan: the next one, or the removed one up to its end', async () => {
      await insertCoverage();
      await benefitChangeCoverageDates.down(db);
      await benefitChangeCoverageDates.up(db);
      const rows = await db.selectFrom('benefit_changes').select(['id', 'coverage_start', 'coverage_end']).orderBy('id').execute();
      expect(rows.map((row) => ({ ...row }))).toStrictEqual([
        { id: 'bc_new', coverage_start: '2026-06-01', coverage_end: '2026-12-31' },
        { id: 'bc_removed', coverage_start: '2026-01-01', coverage_end: '2026-05-31' },
      ]);
    });

    it('when migrated down, then the columns are gone and the changes stay', async () => {
      await insertCoverage();
      await benefitChangeCoverageDates.down(db);
      const [row] = await db.selectFrom('benefit_changes').selectAll().where('id', '=', 'bc_new').execute();
      expect(row).toBeDefined();
      expect(Object.keys(row!)).not.toContain('coverage_start');
      expect(Object.keys(row!)).not.toContain('coverage_end');
    });
  });

  describe('the migrated schema reads the same on both databases', () => {
    beforeEach(async () => {
      await migrateToLatest(db);
    });

    it('when a provider is stored, then it reads back with its timestamp as the exact ISO string', async () => {
      await insertProvider();
      const row = await db.selectFrom('providers').selectAll().executeTakeFirstOrThrow();
      expect({ ...row }).toStrictEqual({ id: 'prov_1', name: 'Provider One', created_at: CREATED_AT });
    });

    it.each([
      ['2026-01-05T00:00:00.000Z', 'whole seconds'],
      ['2024-02-29T23:59:59.999Z', 'the last millisecond of a leap day'],
      ['1999-12-31T23:59:59.001Z', 'a date last century'],
    ])('when the timestamp is %s (%s), then it reads back unchanged', async (createdAt) => {
      await db.insertInto('providers').values({ id: 'prov_t', name: 'Timed', created_at: createdAt }).execute();
      const row = await db.selectFrom('providers').select('created_at').executeTakeFirstOrThrow();
      expect(row.created_at).toBe(createdAt);
    });

    it('when a timestamp is written as a Date, then it reads back as the ISO string', async () => {
      await db
        .insertInto('providers')
        .values({ id: 'prov_d', name: 'Dated', created_at: new Date(CREATED_AT) })
        .execute();
      const row = await db.selectFrom('providers').select('created_at').executeTakeFirstOrThrow();
      expect(row.created_at).toBe(CREATED_AT);
    });

    it('when timestamps are compared and ordered, then the order is chronological', async () => {
      const timestamps = ['2026-11-22T08:30:01.000Z', '2026-11-22T08:30:00.999Z', '2026-11-22T08:30:00.123Z', '2025-12-31T23:59:59.999Z'];
      for (const [index, createdAt] of timestamps.entries()) {
        await db
          .insertInto('providers')
          .values({ id: `prov_${index}`, name: `Provider ${index}`, created_at: createdAt })
          .execute();
      }
      const ordered = await db.selectFrom('providers').select('created_at').orderBy('created_at').execute();
      expect(ordered.map((row) => row.created_at)).toStrictEqual([...timestamps].sort());
      const later = await db.selectFrom('providers').select('id').where('created_at', '>', '2026-11-22T08:30:00.123Z').orderBy('id').execute();
      expect(later.map((row) => row.id)).toStrictEqual(['prov_0', 'prov_1']);
    });

    it('when an employer is stored, then its JSON columns read back as text holding the same JSON', async () => {
      await insertProvider();
      await insertEmployer();
      const row = await db.selectFrom('employers').selectAll().executeTakeFirstOrThrow();

      expect(row).toMatchObject({ id: 'er_1', provider_id: 'prov_1', legal_name: 'Acme Corporation', trade_name: null, created_at: CREATED_AT });
      expect(typeof row.address).toBe('string');
      expect(typeof row.metadata).toBe('string');
      expect(JSON.parse(row.address)).toStrictEqual({ line1: '1 Main St', city: 'San Francisco', state: 'CA', zip_code: '94105' });
      expect(JSON.parse(row.metadata)).toStrictEqual({ tier: 'gold', 'quoted "key"': 'ünïcode 🎉' });
    });

    it('when business units are stored with is_primary, then the boolean reads back as true/1 and false/0 and filters on both', async () => {
      await insertProvider();
      await insertEmployer();
      const unit = { provider_id: 'prov_1', employer_id: 'er_1', metadata: '{}', created_at: CREATED_AT };
      await db
        .insertInto('business_units')
        .values([
          { ...unit, id: 'bu_primary', legal_name: 'Head Office', is_primary: true },
          { ...unit, id: 'bu_branch', legal_name: 'Branch', is_primary: false },
        ])
        .execute();

      const rows = await db.selectFrom('business_units').select(['id', 'is_primary', 'address']).orderBy('id').execute();
      expect(rows.map((row) => row.id)).toStrictEqual(['bu_branch', 'bu_primary']);
      expect([false, 0]).toContain(rows[0]?.is_primary);
      expect([true, 1]).toContain(rows[1]?.is_primary);
      expect(rows[1]?.address).toBeNull();

      const primary = await db.selectFrom('business_units').select('id').where('is_primary', '=', true).execute();
      expect(primary.map((row) => row.id)).toStrictEqual(['bu_primary']);
    });

    it('when an integer column is stored, then it reads back as a number', async () => {
      await insertProvider();
      await db
        .insertInto('api_keys')
        .values({ id: 'key_1', provider_id: 'prov_1', role: 'admin', lookup: 'abc', key_hash: 'hash', redacted: 'sk_...abc', created_at: CREATED_AT })
        .execute();
      await db
        .insertInto('idempotency_keys')
        .values({
          api_key_id: 'key_1',
          idempotency_key: 'idem-1',
          request_hash: 'h',
          state: 'done',
          response_status: 201,
          response_body: '{"id":"er_1"}',
          created_at: CREATED_AT,
        })
        .execute();

      const row = await db.selectFrom('idempotency_keys').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ response_status: 201, response_body: '{"id":"er_1"}', created_at: CREATED_AT });
      const key = await db.selectFrom('api_keys').select(['employer_id', 'revoked_at']).executeTakeFirstOrThrow();
      expect({ ...key }).toStrictEqual({ employer_id: null, revoked_at: null });
    });

    it('when a unique column is duplicated, then isUniqueViolation recognises the error', async () => {
      await insertProvider('prov_1', 'Same Name');
      const error: unknown = await db
        .insertInto('providers')
        .values({ id: 'prov_2', name: 'Same Name', created_at: CREATED_AT })
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    });

    it('when a composite primary key is duplicated, then isUniqueViolation recognises the error', async () => {
      await insertProvider();
      await db
        .insertInto('api_keys')
        .values({ id: 'key_1', provider_id: 'prov_1', role: 'admin', lookup: 'abc', key_hash: 'hash', redacted: 'r', created_at: CREATED_AT })
        .execute();
      const idempotencyKey = { api_key_id: 'key_1', idempotency_key: 'same', request_hash: 'h', state: 'in_progress', created_at: CREATED_AT };
      await db.insertInto('idempotency_keys').values(idempotencyKey).execute();
      const error: unknown = await db
        .insertInto('idempotency_keys')
        .values(idempotencyKey)
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    });

    it('when plans are linked to their renewals, then each has at most one successor and one predecessor, and a link names an existing plan', async () => {
      await insertProvider();
      await insertEmployer();
      await db.insertInto('carriers').values({ id: 'carr_1', provider_id: 'prov_1', legal_name: 'Carrier', created_at: CREATED_AT }).execute();
      await db
        .insertInto('carrier_groups')
        .values({
          id: 'grp_1',
          provider_id: 'prov_1',
          employer_id: 'er_1',
          carrier_id: 'carr_1',
          group_number: 'G-1',
          connection_method: 'manual',
          created_at: CREATED_AT,
        })
        .execute();
      const plan = (id: string, year: number) => ({
        id,
        provider_id: 'prov_1',
        employer_id: 'er_1',
        group_id: 'grp_1',
        plan_name: `Gold ${year}`,
        line_of_coverage: 'medical',
        effective_start: `${year}-01-01`,
        effective_end: `${year}-12-31`,
        requires_primary_care_provider: false,
        metadata: '{}',
        created_at: CREATED_AT,
      });
      // Unlinked plans (NULL links) do not collide.
      await db
        .insertInto('plans')
        .values([plan('plan_2026', 2026), plan('plan_2027', 2027), plan('plan_other', 2027)])
        .execute();
      await db.updateTable('plans').set({ next_plan_id: 'plan_2027' }).where('id', '=', 'plan_2026').execute();
      await db.updateTable('plans').set({ previous_plan_id: 'plan_2026' }).where('id', '=', 'plan_2027').execute();

      const secondPredecessor: unknown = await db
        .updateTable('plans')
        .set({ next_plan_id: 'plan_2027' })
        .where('id', '=', 'plan_other')
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(secondPredecessor)).toBe(true);
      const secondSuccessor: unknown = await db
        .updateTable('plans')
        .set({ previous_plan_id: 'plan_2026' })
        .where('id', '=', 'plan_other')
        .execute()
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(secondSuccessor)).toBe(true);
      const missing: unknown = await db
        .updateTable('plans')
        .set({ next_plan_id: 'plan_missing' })
        .where('id', '=', 'plan_other')
        .execute()
        .catch((caught: unknown) => caught);
      expect(missing).toBeInstanceOf(Error);
      expect(isUniqueViolation(missing)).toBe(false);

      const rows = await db.selectFrom('plans').select(['id', 'previous_plan_id', 'next_plan_id']).orderBy('id').execute();
      expect(rows.map((row) => ({ ...row }))).toStrictEqual([
        { id: 'plan_2026', previous_plan_id: null, next_plan_id: 'plan_2027' },
        { id: 'plan_2027', previous_plan_id: 'plan_2026', next_plan_id: null },
        { id: 'plan_other', previous_plan_id: null, next_plan_id: null },
      ]);
    });

    it('when a row references a missing parent, then the foreign key rejects it, and that is not a unique violation', async () => {
      const error: unknown = await insertEmployer('er_orphan', 'prov_missing').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(isUniqueViolation(error)).toBe(false);
      const count = await sql<{ count: number | string }>`select count(*) as count from employers`.execute(db);
      expect(Number(count.rows[0]?.count)).toBe(0);
    });
  });
});
