import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import * as ediFileReturns from '../../src/db/migrations/2026-12-01T0003-edi-file-returns.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';

// Like the migrations themselves, this test reads the tables without the application's row types.
const CREATED_AT = '2026-11-22T08:30:00.123Z';
const REJECTED_AT = '2026-11-25T10:00:00.000Z';

describe(`edi file returns (2026-12-01T0003) on ${testDatabaseKind()}`, () => {
  let database: TestDatabase;
  let db: Kysely<any>;

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    db = database.db;
    await migrateToLatest(db);
    await insertWorld();
  });

  afterEach(async () => {
    await database.destroy();
  });

  /** A member with two edi benefit changes, and three files of their group: rejected, accepted, ready. */
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
      .values({ ...owned, id: 'grp_1', employer_id: 'er_1', carrier_id: 'car_1', group_number: 'G-1', connection_method: 'edi' })
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
    const change = {
      ...owned,
      employer_id: 'er_1',
      member_id: 'mem_1',
      enrollment_id: 'enr_1',
      status: 'new',
      changes: '[]',
      group_id: 'grp_1',
      connection_method: 'edi',
      delivery_state: 'awaiting_file',
      needs_manual_completion: false,
    };
    await db
      .insertInto('benefit_changes')
      .values([
        { ...change, id: 'bc_1', line_of_coverage: 'vision', position: 0 },
        { ...change, id: 'bc_2', line_of_coverage: 'dental', position: 1 },
      ])
      .execute();
    const file = {
      ...owned,
      employer_id: 'er_1',
      group_id: 'grp_1',
      kind: 'change',
      action: 'change',
      as_of: '2026-11-22',
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
    };
    await db
      .insertInto('edi_files')
      .values([
        { ...file, id: 'edi_rejected', status: 'rejected', interchange_control_number: 1, acknowledged_at: REJECTED_AT },
        { ...file, id: 'edi_accepted', status: 'accepted', interchange_control_number: 2, acknowledged_at: REJECTED_AT },
        { ...file, id: 'edi_ready', status: 'ready', interchange_control_number: 3 },
      ])
      .execute();
  }

  const fileChanges = async () =>
    (await db.selectFrom('edi_file_changes').selectAll().orderBy('benefit_change_id').orderBy('edi_file_id').execute()).map((row) => ({ ...row }));

  it('when files recorded before it are migrated, then the rows of a rejected file are returned at its acknowledgement, the others stay live, and files replace none', async () => {
    await ediFileReturns.down(db);
    await db
      .insertInto('edi_file_changes')
      .values([
        { benefit_change_id: 'bc_1', edi_file_id: 'edi_rejected', position: 0 },
        { benefit_change_id: 'bc_2', edi_file_id: 'edi_accepted', position: 0 },
      ])
      .execute();
    await ediFileReturns.up(db);
    expect(await fileChanges()).toStrictEqual([
      { benefit_change_id: 'bc_1', edi_file_id: 'edi_rejected', position: 0, returned_at: REJECTED_AT },
      { benefit_change_id: 'bc_2', edi_file_id: 'edi_accepted', position: 0, returned_at: null },
    ]);
    const files = await db.selectFrom('edi_files').select(['id', 'replaces_file_id']).orderBy('id').execute();
    expect(files.map((row) => row.replaces_file_id)).toStrictEqual([null, null, null]);
  });

  it('when a change is in a file, then it can go in another file only once the first is returned: one live file per change', async () => {
    await db
      .insertInto('edi_file_changes')
      .values([
        { benefit_change_id: 'bc_1', edi_file_id: 'edi_rejected', position: 0, returned_at: REJECTED_AT },
        { benefit_change_id: 'bc_2', edi_file_id: 'edi_accepted', position: 0, returned_at: null },
      ])
      .execute();
    await db.insertInto('edi_file_changes').values({ benefit_change_id: 'bc_1', edi_file_id: 'edi_ready', position: 0, returned_at: null }).execute();
    let refused: unknown;
    try {
      await db.insertInto('edi_file_changes').values({ benefit_change_id: 'bc_2', edi_file_id: 'edi_ready', position: 1, returned_at: null }).execute();
    } catch (error) {
      refused = error;
    }
    expect(isUniqueViolation(refused)).toBe(true);
    expect(await fileChanges()).toHaveLength(3);
  });

  it('when migrated down, then each change keeps one row (its live file, else its latest) and the link column is gone', async () => {
    await db
      .insertInto('edi_file_changes')
      .values([
        { benefit_change_id: 'bc_1', edi_file_id: 'edi_rejected', position: 0, returned_at: REJECTED_AT },
        { benefit_change_id: 'bc_1', edi_file_id: 'edi_ready', position: 0, returned_at: null },
        { benefit_change_id: 'bc_2', edi_file_id: 'edi_accepted', position: 0, returned_at: null },
      ])
      .execute();
    await ediFileReturns.down(db);
    expect(await fileChanges()).toStrictEqual([
      { benefit_change_id: 'bc_1', edi_file_id: 'edi_ready', position: 0 },
      { benefit_change_id: 'bc_2', edi_file_id: 'edi_accepted', position: 0 },
    ]);
    const [file] = await db.selectFrom('edi_files').selectAll().where('id', '=', 'edi_ready').execute();
    expect(Object.keys(file!)).not.toContain('replaces_file_id');
    await ediFileReturns.up(db);
    expect(await fileChanges()).toHaveLength(2);
  });
});
