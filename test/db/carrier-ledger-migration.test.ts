import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.ts';
import * as carrierLedgerAlerts from '../../src/db/migrations/2026-12-01T0001-carrier-ledger-alerts.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// Like the migrations themselves, this test reads the tables without the application's row types.
const CREATED_AT = '2026-11-22T08:30:00.123Z';

describe(`the carrier ledger's starting point (2026-12-01T0001) on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let db: Kysely<any>;

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    db = database.db;
    await migrateToLatest(db);
    await carrierLedgerAlerts.down(db);
  });

  afterEach(async () => {
    await database.destroy();
  });

  /**
   * A member covered in one group: medical 2026 (with a child) then its 2027 successor, dental ended by a
   * termination on 2026-06-30, vision of a failed enrollment whose change the carrier rejected, and life of a
   * pending enrollment (not coverage).
   */
  async function insertWorld(): Promise<void> {
    const owned = { provider_id: 'prov_1', created_at: CREATED_AT };
    await db.insertInto('providers').values({ id: 'prov_1', name: 'Provider One', created_at: CREATED_AT }).execute();
    await db
      .insertInto('employers')
      .values({ ...owned, id: 'er_1', legal_name: 'Acme Corporation', address: '{}', metadata: '{}' })
      .execute();
    await db
      .insertInto('carriers')
      .values({ ...owned, id: 'car_1', legal_name: 'Carrier A' })
      .execute();
    await db
      .insertInto('carrier_groups')
      .values({ ...owned, id: 'grp_1', employer_id: 'er_1', carrier_id: 'car_1', group_number: 'G-1', connection_method: 'manual' })
      .execute();
    const plan = (id: string, line: string, start: string, end: string, previous: string | null = null) => ({
      ...owned,
      id,
      employer_id: 'er_1',
      group_id: 'grp_1',
      plan_name: id,
      line_of_coverage: line,
      effective_start: start,
      effective_end: end,
      requires_primary_care_provider: false,
      previous_plan_id: previous,
      next_plan_id: null,
      metadata: '{}',
    });
    await db
      .insertInto('plans')
      .values([
        plan('plan_med_2026', 'medical', '2026-01-01', '2026-12-31'),
        plan('plan_med_2027', 'medical', '2027-01-01', '2027-12-31', 'plan_med_2026'),
        plan('plan_dental', 'dental', '2026-01-01', '2026-12-31'),
        plan('plan_vision', 'vision', '2026-01-01', '2026-12-31'),
        plan('plan_life', 'life', '2026-01-01', '2026-12-31'),
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
    await db
      .insertInto('dependents')
      .values({
        ...owned,
        id: 'dep_1',
        employer_id: 'er_1',
        member_id: 'mem_1',
        first_name: 'Kim',
        last_name: 'Lee',
        member_relationship: 'child',
        dob: '2015-06-01',
        has_disability: false,
        metadata: '{}',
      })
      .execute();
    const enrollment = (id: string, status: string) => ({
      ...owned,
      id,
      employer_id: 'er_1',
      member_id: 'mem_1',
      category: 'qle',
      status,
      qualifying_life_event_documents: '[]',
      metadata: '{}',
    });
    await db
      .insertInto('enrollments')
      .values([enrollment('enr_2026', 'synced'), enrollment('enr_2027', 'approved'), enrollment('enr_failed', 'failed'), enrollment('enr_pending', 'pending')])
      .execute();
    const enrolled = (id: string, enrollmentId: string, planId: string, start: string, end: string, position = 0) => ({
      ...owned,
      id,
      enrollment_id: enrollmentId,
      member_id: 'mem_1',
      plan_id: planId,
      position,
      effective_start: start,
      effective_end: end,
      volume_cents: null,
      employer_contribution_cents: 40_000,
      member_contribution_cents: 10_000,
      eoi_status: 'not_required',
    });
    await db
      .insertInto('enrolled_plans')
      .values([
        enrolled('ep_med_2026', 'enr_2026', 'plan_med_2026', '2026-01-01', '2026-12-31'),
        enrolled('ep_dental', 'enr_2026', 'plan_dental', '2026-01-01', '2026-06-30', 1),
        enrolled('ep_med_2027', 'enr_2027', 'plan_med_2027', '2027-01-01', '2027-12-31'),
        enrolled('ep_vision', 'enr_failed', 'plan_vision', '2026-03-01', '2026-12-31'),
        enrolled('ep_life', 'enr_pending', 'plan_life', '2026-03-01', '2026-12-31'),
      ])
      .execute();
    await db
      .insertInto('enrolled_dependents')
      .values({ ...owned, id: 'ed_1', enrolled_plan_id: 'ep_med_2027', dependent_id: 'dep_1', position: 0, eoi_status: 'not_required' })
      .execute();
    await db
      .insertInto('benefit_changes')
      .values({
        ...owned,
        id: 'bc_vision',
        employer_id: 'er_1',
        member_id: 'mem_1',
        enrollment_id: 'enr_failed',
        line_of_coverage: 'vision',
        status: 'new',
        changes: '[]',
        next_enrollment_plan_id: 'ep_vision',
        group_id: 'grp_1',
        connection_method: 'manual',
        delivery_state: 'rejected',
        needs_manual_completion: true,
        position: 0,
      })
      .execute();
  }

  it('when coverage recorded before it is migrated, then each member, group and line starts from its latest coverage, told: open-ended at its plan year end, else to its last day; rejected and pending lines are not', async () => {
    await insertWorld();
    await carrierLedgerAlerts.up(db);
    const rows = await db.selectFrom('carrier_ledger').selectAll().orderBy('line_of_coverage').execute();
    expect(
      rows.map((row) => [
        row.line_of_coverage,
        row.source,
        row.enrolled_plan_id,
        row.plan_id,
        row.coverage_start,
        row.coverage_end,
        row.told_at !== null,
        row.refused_at,
      ]),
    ).toStrictEqual([
      ['dental', 'migration', 'ep_dental', 'plan_dental', '2026-01-01', '2026-06-30', true, null],
      ['medical', 'migration', 'ep_med_2027', 'plan_med_2027', '2027-01-01', null, true, null],
    ]);
    const medical = JSON.parse(rows[1]!.item as string);
    expect(medical).toMatchObject({
      groupId: 'grp_1',
      previousPlanId: 'plan_med_2026',
      dependentIds: ['dep_1'],
      dependentVolumeCents: [['dep_1', null]],
      effectiveEnd: '2027-12-31',
    });
  });

  it('when a 999/TA1 rejected a file before this release, then its changes go back to wait for a file, their enrollment failed by nothing else is approved again, and the ledger holds the line as waiting for that change', async () => {
    await insertWorld();
    const owned = { provider_id: 'prov_1', created_at: CREATED_AT };
    await db.updateTable('carrier_groups').set({ connection_method: 'edi' }).where('id', '=', 'grp_1').execute();
    await db.updateTable('benefit_changes').set({ connection_method: 'edi' }).where('id', '=', 'bc_vision').execute();
    await db
      .insertInto('edi_files')
      .values({
        ...owned,
        id: 'edi_rejected',
        employer_id: 'er_1',
        group_id: 'grp_1',
        kind: 'change',
        action: 'change',
        as_of: '2026-11-22',
        status: 'rejected',
        interchange_control_number: 1,
        group_control_number: 1,
        transaction_set_control_number: '0001',
        usage_indicator: 'T',
        member_count: 1,
        segment_count: 20,
        byte_count: 900,
        benefit_change_count: 1,
        file_name: 'x.x12',
        content_sha256: 'abc',
        left_out: '[]',
        delivery_method: 'download',
        delivery_attempts: 1,
        acknowledged_at: CREATED_AT,
      })
      .execute();
    await db
      .insertInto('edi_file_changes')
      .values({ benefit_change_id: 'bc_vision', edi_file_id: 'edi_rejected', position: 0, returned_at: CREATED_AT })
      .execute();
    await carrierLedgerAlerts.up(db);

    const change = await db.selectFrom('benefit_changes').selectAll().where('id', '=', 'bc_vision').executeTakeFirstOrThrow();
    expect([change.delivery_state, change.completed_at]).toStrictEqual(['awaiting_file', null]);
    expect(change.memo).toContain('999/TA1 rejected the file');
    const statuses = await db.selectFrom('enrollments').select(['id', 'status']).orderBy('id').execute();
    expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toMatchObject({ enr_failed: 'approved', enr_pending: 'pending' });
    const vision = await db.selectFrom('carrier_ledger').selectAll().where('line_of_coverage', '=', 'vision').executeTakeFirstOrThrow();
    expect([vision.source, vision.benefit_change_id, vision.told_at, vision.coverage_start, vision.coverage_end]).toStrictEqual([
      'benefit_change',
      'bc_vision',
      null,
      '2026-03-01',
      null,
    ]);
  });

  it('when there is no coverage, then the ledger starts empty, and down drops both tables', async () => {
    await carrierLedgerAlerts.up(db);
    expect(await db.selectFrom('carrier_ledger').selectAll().execute()).toStrictEqual([]);
    expect(await db.selectFrom('alerts').selectAll().execute()).toStrictEqual([]);
    await carrierLedgerAlerts.down(db);
    await expect(db.selectFrom('carrier_ledger').selectAll().execute()).rejects.toThrow();
  });
});
