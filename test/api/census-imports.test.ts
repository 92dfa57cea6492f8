import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { newProviderAdmin } from '../helpers/more-factories.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { heldMember } from '../helpers/carrier-file-world.ts';
import { createTestApp, ok, type ApiClient, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's).
let t: TestContext;
let w: EnrollmentWorld;
beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
});
afterAll(async () => {
  await t.close();
});

const HEADER =
  'employee_id,relationship,first_name,middle_name,last_name,dob,sex,ssn,address_line1,address_line2,city,state,zip_code,email,phone,hire_date,termination_date,termination_reason,employment_type,scheduled_hours,pay_frequency,annual_pay,business_unit,subclass';
type Cells = Partial<Record<string, string>>;
const COLUMNS = HEADER.split(',');
const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const csv = (rows: Cells[], header = HEADER) => [header, ...rows.map((row) => COLUMNS.map((column) => quoted(row[column] ?? '')).join(','))].join('\n');
const address = { address_line1: '1 Elm St', city: 'Springfield', state: 'IL', zip_code: '62701' };

async function upload(client: ApiClient, employer: string, content: string, query = '') {
  return client.post(`/census_imports?employer=${employer}${query}`, undefined, { rawBody: content, headers: { 'content-type': 'text/csv' } });
}

async function allRows(client: ApiClient, id: string, kind?: string) {
  const rows: any[] = [];
  let url: string | null = `/census_imports/${id}/rows?page_size=100${kind ? `&kind=${kind}` : ''}`;
  while (url) {
    const page: any = await ok(client.get(url));
    rows.push(...page.results);
    url = page.next;
  }
  return rows;
}

async function newEmployer(admin: ApiClient) {
  return ok(admin.post('/employers', { legal_name: 'Roster Co', address: { line1: '1 Main', city: 'Springfield', state: 'IL', zip_code: '62701' } }), 201);
}

describe('POST /census_imports (docs/decisions.md "Census imports")', () => {
  it('when a file holds every kind of row, then the dry run lists creates, field diffs, unchanged rows, errors, warnings and missing members, and writes nothing', async () => {
    const covered = await heldMember(w, 'Cora', [{ relationship: 'child', first_name: 'Kit', dob: '2015-06-01' }]);
    await ok(w.admin.patch(`/members/${covered.member.id}`, { payroll_provider_external_id: 'E1' }));
    const steady = await createMember(w.admin, {
      employer: w.employer.id,
      first_name: 'Sol',
      last_name: 'Reyes',
      dob: '1975-05-05',
      hire_date: '2019-01-01',
      payroll_provider_external_id: 'E2',
      address: { line1: '1 Elm St', city: 'Springfield', state: 'IL', zip_code: '62701' },
    });
    const bySsn = await createMember(w.admin, {
      employer: w.employer.id,
      first_name: 'Ned',
      last_name: 'Ross',
      dob: '1970-02-02',
      hire_date: '2018-01-01',
      ssn: '123456789',
    });
    const absent = await createMember(w.admin, {
      employer: w.employer.id,
      first_name: 'Abe',
      last_name: 'Gone',
      dob: '1971-01-01',
      hire_date: '2018-01-01',
      payroll_provider_external_id: 'E9',
    });
    const content = csv([
      { employee_id: 'E1', relationship: 'employee', first_name: 'Cora', last_name: 'Stone', dob: '1980-01-02', ssn: '219-09-9999' }, // 2: update with dob and SSN changes, warnings
      { employee_id: 'E1', relationship: 'child', first_name: 'Kit', last_name: 'Stone', dob: '2015-06-01' }, // 3: unchanged dependent
      { employee_id: 'E1', relationship: 'spouse', first_name: 'Lee', last_name: 'Stone', dob: '1981-03-03' }, // 4: new dependent
      { employee_id: 'E2', relationship: 'employee', first_name: 'Sol', last_name: 'Reyes', dob: '1975-05-05', ...address, hire_date: '2019-01-01' }, // 5: unchanged
      { employee_id: 'E3', relationship: 'employee', first_name: 'Ned', ssn: '123456789', termination_date: '2026-02-01', termination_reason: 'voluntary' }, // 6: by SSN, terminated in the past
      {
        employee_id: 'E4',
        relationship: 'employee',
        first_name: 'Mia',
        last_name: 'New',
        dob: '1990-01-01',
        ...address,
        hire_date: '2026-02-15',
        annual_pay: '52000.00',
      }, // 7: create
      { employee_id: 'E4', relationship: 'employee', first_name: 'Mia', last_name: 'Again', dob: '1990-01-01', ...address, hire_date: '2026-02-15' }, // 8: same person twice
      { employee_id: 'E5', relationship: 'employee', first_name: 'Ann', last_name: 'Bad', dob: '1990-02-30', ...address, hire_date: '2026-01-01' }, // 9: bad date
      { employee_id: 'E2', relationship: 'employee', first_name: 'Sol', ssn: '123456789' }, // 10: E2 is Sol, the SSN is Ned's (and a repeat)
      { employee_id: 'E77', relationship: 'child', first_name: 'Orphan', last_name: 'X', dob: '2010-01-01' }, // 11: no such employee
      { employee_id: 'E6', relationship: 'employee', first_name: '山田', last_name: 'Taro', dob: '1990-01-01', ...address, hire_date: '2026-01-01' }, // 12: a name carriers cannot carry
      { employee_id: 'E7', relationship: 'employee', first_name: 'A'.repeat(40), last_name: 'Long', dob: '1990-01-01', ...address, hire_date: '2026-01-01' }, // 13: too long for an 834
    ]);
    const created = await ok(upload(w.admin, w.employer.id, content, '&max_termination_share=0.5'), 202);
    expect(created).toMatchObject({ object: 'census_import', status: 'checked', format: 'csv', total_rows: 12, processed_rows: 12, employer: w.employer.id });
    const rows = await allRows(w.admin, created.id);
    const byLine = new Map(rows.map((row) => [row.line, row]));
    expect(byLine.get(2)).toMatchObject({ kind: 'update', member: covered.member.id });
    expect(byLine.get(2).changes).toEqual([
      { field: 'dob', old: '1980-01-01', new: '1980-01-02' },
      { field: 'ssn', old: null, new: 'changed' },
    ]);
    expect(
      byLine
        .get(2)
        .warnings.map((w: any) => w.code)
        .sort(),
    ).toEqual(['dob_changed_with_coverage', 'ssn_changed_with_coverage']);
    expect(byLine.get(3)).toMatchObject({ kind: 'unchanged', target: 'dependent', dependent: covered.people[0].id });
    expect(byLine.get(4)).toMatchObject({ kind: 'create', target: 'dependent', member: covered.member.id });
    expect(byLine.get(5)).toMatchObject({ kind: 'unchanged', member: steady.id });
    expect(byLine.get(6)).toMatchObject({ kind: 'update', member: bySsn.id });
    expect(byLine.get(6).changes.map((c: any) => c.field)).toEqual(['termination_date', 'termination_reason', 'payroll_provider_external_id']);
    expect(byLine.get(6).warnings.map((w: any) => w.code)).toEqual(['termination_in_past']);
    expect(byLine.get(7)).toMatchObject({ kind: 'create', target: 'member' });
    expect(byLine.get(7).warnings.map((w: any) => w.code)).toEqual(['not_applied']);
    expect(byLine.get(8).errors).toEqual([{ line: 8, column: 'employee_id', message: 'Line 7 has this employee_id already: one row per employee.' }]);
    expect(byLine.get(9).errors).toEqual([{ line: 9, column: 'dob', message: 'Must be a calendar date, YYYY-MM-DD.' }]);
    expect(byLine.get(10)).toMatchObject({ kind: 'error' });
    expect(byLine.get(11).errors[0]).toMatchObject({
      column: 'employee_id',
      message: expect.stringContaining('neither an employee row of this file nor a member'),
    });
    expect(byLine.get(12).errors[0]).toMatchObject({ column: 'first_name', message: expect.stringContaining('X12') });
    expect(byLine.get(13)).toMatchObject({ kind: 'create' });
    expect(byLine.get(13).warnings.map((w: any) => w.code)).toEqual(['name_too_long_for_carriers']);
    const missing = await allRows(w.admin, created.id, 'missing');
    expect(missing.map((row) => row.member)).toContain(absent.id);
    expect(missing.map((row) => row.member)).not.toContain(steady.id);
    expect(JSON.stringify(rows)).not.toMatch(/219099999|123456789/);
    // Nothing written by the dry run.
    expect((await ok(w.admin.get(`/members/${covered.member.id}`))).dob).toBe('1980-01-01');
    expect((await ok(w.admin.get(`/members/${bySsn.id}`))).termination_date).toBeNull();

    const applied = await ok(w.admin.post(`/census_imports/${created.id}/apply`, {}));
    expect(applied).toMatchObject({ status: 'applied', applied_rows: 5 });
    expect((await ok(w.admin.get(`/members/${covered.member.id}`))).dob).toBe('1980-01-02');
    expect((await ok(w.admin.get(`/members/${bySsn.id}`))).termination_date).toBe('2026-02-01');
    expect((await ok(w.admin.get(`/members?employer=${w.employer.id}&payroll_provider_external_id=E4`))).results).toHaveLength(1);
    expect((await ok(w.admin.get(`/dependents?member=${covered.member.id}`))).results.map((d: any) => d.first_name).sort()).toEqual(['Kit', 'Lee']);
    // Absent from the file: still employed.
    expect((await ok(w.admin.get(`/members/${absent.id}`))).termination_date).toBeNull();

    // A second apply changes nothing.
    const again = await ok(w.admin.post(`/census_imports/${created.id}/apply`, {}));
    expect(again).toEqual(applied);
    expect((await ok(w.admin.get(`/members?employer=${w.employer.id}&payroll_provider_external_id=E4`))).results).toHaveLength(1);
  });

  it('when a file omits every member, then no one is terminated and coverage stays', async () => {
    const held = await heldMember(w, 'Omi');
    const created = await ok(
      upload(
        w.admin,
        w.employer.id,
        csv([{ employee_id: 'ONLY', relationship: 'employee', first_name: 'Only', last_name: 'One', dob: '1990-01-01', ...address, hire_date: '2026-01-01' }]),
      ),
      202,
    );
    expect((await allRows(w.admin, created.id, 'missing')).map((row) => row.member)).toContain(held.member.id);
    await ok(w.admin.post(`/census_imports/${created.id}/apply`, {}));
    expect((await ok(w.admin.get(`/members/${held.member.id}`))).termination_date).toBeNull();
    expect((await ok(w.admin.get(`/enrollments/${held.enrollment.id}`))).status).not.toBe('terminated');
  });

  it('when apply is sent with no body, {} or its one field, then it applies like any action; another field or a non-boolean is a 400', async () => {
    const admin = await newProviderAdmin(t, 'apply-bodies');
    const employer = await newEmployer(admin);
    const row = (id: string) => ({
      employee_id: id,
      relationship: 'employee',
      first_name: 'Ab',
      last_name: 'Cd',
      dob: '1990-01-01',
      ...address,
      hire_date: '2026-01-01',
    });
    const noBody = await ok(upload(admin, employer.id, csv([row('B1')])), 202);
    const applied = await ok(admin.post(`/census_imports/${noBody.id}/apply`));
    expect(applied).toMatchObject({ status: 'applied', applied_rows: 1 });
    expect((await ok(admin.post(`/census_imports/${noBody.id}/apply`))).applied_rows).toBe(1);
    const emptyObject = await ok(upload(admin, employer.id, csv([row('B1'), row('B2')])), 202);
    expect((await ok(admin.post(`/census_imports/${emptyObject.id}/apply`, {}))).status).toBe('applied');
    const withField = await ok(upload(admin, employer.id, csv([row('B3')])), 202);
    for (const body of [{ confirm: true }, { confirm_terminations: 'yes' }, []]) {
      const refused = await admin.post(`/census_imports/${withField.id}/apply`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await ok(admin.post(`/census_imports/${withField.id}/apply`, { confirm_terminations: false }))).status).toBe('applied');
  });

  it('when an upload has no body, or the CSV as a JSON string, then a 400 before anything is stored', async () => {
    const admin = await newProviderAdmin(t, 'upload-bodies');
    const employer = await newEmployer(admin);
    const none = await admin.post(`/census_imports?employer=${employer.id}`);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('text/csv');
    expect((await admin.post(`/census_imports?employer=${employer.id}`, csv([]))).status).toBe(400);
    expect((await upload(admin, employer.id, csv([]))).status).toBe(202);
  });

  it('when a file terminates more than the share, then the apply needs confirm_terminations', async () => {
    const admin = await newProviderAdmin(t, 'mass-termination');
    const employer = await newEmployer(admin);
    for (const id of ['T1', 'T2', 'T3']) {
      await createMember(admin, { employer: employer.id, payroll_provider_external_id: id });
    }
    const created = await ok(
      upload(admin, employer.id, csv([{ employee_id: 'T1', relationship: 'employee', termination_date: '2026-03-31' }]), '&max_termination_share=0.25'),
      202,
    );
    expect(created.summary).toMatchObject({ terminations: 1, employed_members: 3, needs_termination_confirmation: true });
    const refused = await admin.post(`/census_imports/${created.id}/apply`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('confirmation_required');
    const applied = await ok(admin.post(`/census_imports/${created.id}/apply`, { confirm_terminations: true }));
    expect(applied.status).toBe('applied');
  });

  it('when a record changed since the dry run, then the apply is a 409 census_record_changed and nothing is applied', async () => {
    const admin = await newProviderAdmin(t, 'changed');
    const employer = await newEmployer(admin);
    const member = await createMember(admin, { employer: employer.id, payroll_provider_external_id: 'C1' });
    const dependent = await createDependent(admin, { member: member.id });
    const created = await ok(
      upload(
        admin,
        employer.id,
        csv([
          { employee_id: 'C1', relationship: 'employee', last_name: 'Changed' },
          { employee_id: 'C1', relationship: 'child', first_name: dependent.first_name, dob: dependent.dob, last_name: 'Kid' },
        ]),
      ),
      202,
    );
    await ok(admin.patch(`/members/${member.id}`, { email: 'new@example.com' }));
    const refused = await admin.post(`/census_imports/${created.id}/apply`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('census_record_changed');
    expect((await ok(admin.get(`/dependents/${dependent.id}`))).last_name).toBe(dependent.last_name);
  });

  it('when the services refuse a row at the apply, then that row alone is failed, its dependents with it, and the rest of its batch is applied once', async () => {
    const admin = await newProviderAdmin(t, 'refused-row');
    const employer = await newEmployer(admin);
    const employee = (id: string, ssn: string) => ({
      employee_id: id,
      relationship: 'employee',
      first_name: 'Ann',
      last_name: id,
      dob: '1990-01-01',
      ssn,
      ...address,
      hire_date: '2026-01-01',
    });
    const created = await ok(
      upload(
        admin,
        employer.id,
        csv([
          employee('R1', '212-55-1111'),
          employee('R2', '212-55-2222'),
          { employee_id: 'R2', relationship: 'child', first_name: 'Kid', last_name: 'R2', dob: '2015-01-01' },
          employee('R3', '212-55-3333'),
        ]),
      ),
      202,
    );
    expect(created.summary).toMatchObject({ create: 4, error: 0 });
    // Since the dry run, a member with R2's SSN came in through the API: the member service refuses R2's row.
    const other = await createMember(admin, { employer: employer.id, ssn: '212552222' });
    const applied = await ok(admin.post(`/census_imports/${created.id}/apply`, {}));
    expect(applied).toMatchObject({ status: 'applied', applied_rows: 2 });
    const rows = await allRows(admin, created.id);
    expect(rows.map((row) => [row.line, row.outcome]).sort((a, b) => a[0] - b[0])).toEqual([
      [2, 'applied'],
      [3, 'failed'],
      [4, 'failed'],
      [5, 'applied'],
    ]);
    expect(rows.find((row) => row.line === 3).outcome_message).toContain('SSN');
    const members = (await ok(admin.get(`/members?employer=${employer.id}&page_size=100`))).results;
    expect(members.map((member: any) => member.payroll_provider_external_id ?? member.id).sort()).toEqual(['R1', 'R3', other.id].sort());
    const events = (await ok(admin.get('/events?type=member.created&page_size=100'))).results;
    expect(events).toHaveLength(3);
  });

  it('when another provider asks for an import, then it is 404', async () => {
    const created = await ok(upload(w.admin, w.employer.id, csv([])), 202);
    const other = await newProviderAdmin(t, 'other');
    expect((await other.get(`/census_imports/${created.id}`)).status).toBe(404);
    expect((await other.get(`/census_imports/${created.id}/rows`)).status).toBe(404);
    expect((await other.post(`/census_imports/${created.id}/apply`, {})).status).toBe(404);
    expect((await upload(other, w.employer.id, csv([]))).status).toBe(400);
  });

  it('when the CSV is hostile, then it is read as text or refused with a 400, never a 500', async () => {
    const admin = await newProviderAdmin(t, 'hostile');
    const employer = await newEmployer(admin);
    const wrongHeader = await upload(admin, employer.id, 'name,surname\nA,B');
    expect(wrongHeader.status).toBe(400);
    expect(wrongHeader.body.input_errors[0].message).toContain('lacks employee_id, relationship');
    const unknown = await upload(admin, employer.id, 'employee_id,relationship,=cmd()\nA,employee,B');
    expect(unknown.status).toBe(400);
    const content = `\uFEFF${csv([
      {
        employee_id: 'H1',
        relationship: 'employee',
        first_name: '=HYPERLINK("http://x")',
        last_name: 'Evil',
        dob: '1990-01-01',
        ...address,
        hire_date: '2026-01-01',
      },
      { employee_id: 'H2', relationship: 'employee', first_name: 'Nul\u0000l', last_name: 'X', dob: '1990-01-01', ...address, hire_date: '2026-01-01' },
      { employee_id: 'H3', relationship: 'employee', first_name: 'L'.repeat(100_000), last_name: 'X', dob: '1990-01-01', ...address, hire_date: '2026-01-01' },
      { employee_id: 'H4', relationship: 'employee', first_name: 'Fine', last_name: 'Row', dob: '1990-01-01', ...address, hire_date: '2026-01-01' },
    ]).replaceAll('\n', '\r\n')}`;
    const created = await ok(upload(admin, employer.id, content), 202);
    const rows = await allRows(admin, created.id);
    expect(rows.map((row) => [row.line, row.kind])).toEqual([
      [2, 'error'],
      [3, 'error'],
      [4, 'error'],
      [5, 'create'],
    ]);
    expect(rows[0].errors[0]).toMatchObject({ column: 'first_name', message: expect.stringContaining('formula') });
    expect(rows[1].errors[0]).toMatchObject({ column: 'first_name', message: expect.stringContaining('control character') });
    expect(rows[2].errors[0]).toMatchObject({ column: 'first_name', message: 'Longer than 255 characters.' });
  });

  it('when rows come as JSON, then they are checked the same way', async () => {
    const admin = await newProviderAdmin(t, 'json');
    const employer = await newEmployer(admin);
    const created = await ok(
      admin.post('/census_imports', {
        employer: employer.id,
        rows: [
          {
            employee_id: 'J1',
            relationship: 'employee',
            first_name: 'Jo',
            last_name: 'Json',
            dob: '1990-01-01',
            ...address,
            hire_date: '2026-01-01',
            scheduled_hours: 40,
          },
        ],
      }),
      202,
    );
    expect(created.summary).toMatchObject({ create: 1, error: 0 });
    expect((await ok(admin.post(`/census_imports/${created.id}/apply`, {}))).applied_rows).toBe(1);
  });
});
