import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Encrypter } from '../../src/shared/crypto.ts';
import { SsnDigester } from '../../src/shared/ssn.ts';
import { backfillSsnDigests } from '../../src/modules/members/ssn-digest-backfill.ts';
import { newId } from '../../src/shared/ids.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { address, createBusinessUnit, createEmployer, createMember, createSubclass } from '../helpers/factories.ts';
import { errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { insertEnrollment, insertPlanWithConfiguration } from '../helpers/rows.ts';

// The test clock stands at 2026-03-02T15:00:00Z: "today" is 2026-03-02.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const SSN = '123456789';

async function notificationsAbout(client: ApiClient, memberId: string) {
  const response = await client.get(`/notifications?related_object_id=${memberId}&page_size=100`);
  expect(response.status).toBe(200);
  return response.body.results as { notification_type: string; owner: string; payload: Record<string, unknown> }[];
}

describe('members: create and read', () => {
  it('when a member is created with every field, then 201 echoes them, with ssn_last_four and never the SSN', async () => {
    const employer = await createEmployer(t.admin);
    const unit = await createBusinessUnit(t.admin, { employer: employer.id });
    const department = await createSubclass(t.admin, { employer: employer.id, category: 'department' });
    const location = await createSubclass(t.admin, { employer: employer.id, category: 'location', name: 'Chicago' });
    const body = {
      employer: employer.id,
      first_name: 'Dana',
      last_name: 'Rivera',
      dob: '1988-04-12',
      ssn: SSN,
      email: 'dana@example.com',
      phone_number: '3125550101',
      address: address({ line2: 'Apt 2' }),
      hire_date: '2026-02-15',
      termination_date: null,
      biological_sex: 'female',
      employment_status: 'full_time',
      hours_worked: 37.5,
      pay_frequency: 'biweekly',
      payroll_provider_external_id: 'emp-0042',
      job_title: 'Machinist',
      business_unit: unit.id,
      subclasses: [department.id, location.id],
      metadata: { badge: '42' },
    };
    const response = await t.admin.post('/members', body);
    expect(response.status).toBe(201);
    const { ssn: _ssn, ...withoutSsn } = body;
    expect(response.body).toEqual({
      ...withoutSsn,
      id: expect.stringMatching(/^mem_/),
      ssn_last_four: '6789',
      original_hire_date: body.hire_date,
      termination_reason: null,
      date_of_death: null,
      rehire_rule: null,
      pay_schedule: null,
      enrollments: [],
      created_at: t.clock.now().toISOString(),
    });
    expect(response.text).not.toContain(SSN);
    const fetched = await t.admin.get(`/members/${response.body.id}`);
    expect(fetched.body).toEqual(response.body);
  });

  it('when optional fields are left out, then they read as null, subclasses as []', async () => {
    const member = await createMember(t.admin);
    expect(member).toMatchObject({
      ssn_last_four: null,
      email: null,
      termination_date: null,
      business_unit: null,
      subclasses: [],
      hours_worked: null,
      metadata: {},
    });
    expect(member.address.line2).toBeNull();
  });

  it('when the SSN is stored, then it is encrypted at rest and decrypts with the key', async () => {
    const member = await createMember(t.admin, { ssn: '587654321' });
    const row = await t.database.db.selectFrom('members').selectAll().where('id', '=', member.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('587654321');
    expect(new Encrypter(TEST_ENCRYPTION_KEY).decrypt(row.ssn_encrypted!)).toBe('587654321');
  });

  it('when members are read, listed, patched and logged, then no SSN appears anywhere', async () => {
    const member = await createMember(t.admin, { ssn: '555443333' });
    const responses = [
      await t.admin.get(`/members/${member.id}`),
      await t.admin.get('/members?page_size=100'),
      await t.admin.patch(`/members/${member.id}`, { ssn: '555443334', job_title: 'Lead' }),
      await t.admin.post('/members', { ssn: '555443335' }),
    ];
    for (const response of responses) {
      expect(response.text).not.toMatch(/55544333[345]/);
    }
    expect(responses[2]!.body.ssn_last_four).toBe('3334');
    expect(t.logs.join('\n')).not.toMatch(/55544333[345]/);
  });

  it('when the SSN is patched to null, then it is removed', async () => {
    const member = await createMember(t.admin, { ssn: SSN });
    const response = await t.admin.patch(`/members/${member.id}`, { ssn: null });
    expect(response.body.ssn_last_four).toBeNull();
    const row = await t.database.db.selectFrom('members').select('ssn_encrypted').where('id', '=', member.id).executeTakeFirstOrThrow();
    expect(row.ssn_encrypted).toBeNull();
  });

  it.each([
    ['an 8-digit SSN', { ssn: '12345678' }, 'ssn'],
    ['an SSN with dashes in other places', { ssn: '12-345-6789' }, 'ssn'],
    ['an SSN with spaces', { ssn: '123 45 6789' }, 'ssn'],
    ['an SSN as a number', { ssn: 123456789 }, 'ssn'],
    ['a date of birth that is not a date', { dob: '1988-02-30' }, 'dob'],
    ['a date of birth in the future', { dob: '2027-01-01' }, 'dob'],
    ['a hire date before birth', { dob: '1990-01-01', hire_date: '1989-12-31' }, 'hire_date'],
    ['a termination before hire', { hire_date: '2024-01-15', termination_date: '2024-01-14' }, 'termination_date'],
    ['an unknown employment status', { employment_status: 'contractor' }, 'employment_status'],
    ['an unknown pay frequency', { pay_frequency: 'daily' }, 'pay_frequency'],
    ['an unknown biological sex', { biological_sex: 'x' }, 'biological_sex'],
    ['negative hours', { hours_worked: -1 }, 'hours_worked'],
    ['more hours than a week has', { hours_worked: 169 }, 'hours_worked'],
    ['a first name over 255', { first_name: 'x'.repeat(256) }, 'first_name'],
    ['an empty last name', { last_name: '' }, 'last_name'],
    ['a bad state', { address: address({ state: 'QC' }) }, 'state'],
    ['duplicate subclasses', { subclasses: ['sub_a', 'sub_a'] }, 'subclasses'],
    ['an unknown field', { salary: '1' }, 'salary'],
  ])('when created with %s, then 400 naming the field', async (_case, overrides, field) => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/members', {
      employer: employer.id,
      first_name: 'A',
      last_name: 'B',
      dob: '1990-01-01',
      address: address(),
      hire_date: '2024-01-15',
      ...overrides,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain(field);
  });

  it("when references name another employer's business unit or subclass, or an unknown employer, then 400 naming them", async () => {
    const mine = await createEmployer(t.admin);
    const other = await createEmployer(t.admin);
    const otherUnit = await createBusinessUnit(t.admin, { employer: other.id });
    const ownSubclass = await createSubclass(t.admin, { employer: mine.id });
    const otherSubclass = await createSubclass(t.admin, { employer: other.id });
    const response = await t.admin.post('/members', {
      employer: mine.id,
      first_name: 'A',
      last_name: 'B',
      dob: '1990-01-01',
      address: address(),
      hire_date: '2024-01-15',
      business_unit: otherUnit.id,
      subclasses: [ownSubclass.id, otherSubclass.id],
    });
    expect(response.status).toBe(400);
    expect(response.body.input_errors.map((e: { field_path: string[] }) => e.field_path.join('.'))).toEqual(['business_unit', 'subclasses.1']);
    const unknownEmployer = await createMember(t.admin, { employer: 'er_unknown' }).catch((error: Error) => error.message);
    expect(unknownEmployer).toContain('400');
  });
});

describe('members: SSNs the SSA issues, one per member of an employer (docs/decisions.md "SSNs")', () => {
  const body = (employer: string, ssn: string) => ({
    employer,
    first_name: 'A',
    last_name: 'B',
    dob: '1990-01-01',
    address: address(),
    hire_date: '2024-01-15',
    ssn,
  });

  // One row of shared/ssn.ts SSN_RULES each, at its boundary.
  it.each([
    ['area 001', '001451234', 201],
    ['area 665', '665451234', 201],
    ['area 667', '667451234', 201],
    ['area 899', '899451234', 201],
    ['area 000', '000451234', 400],
    ['area 666', '666451234', 400],
    ['area 900', '900451234', 400],
    ['area 999', '999451234', 400],
    ['group 01', '123011234', 201],
    ['group 00', '123001234', 400],
    ['serial 0001', '123450001', 201],
    ['serial 0000', '123450000', 400],
  ])('when created with an SSN of %s (%s), then %i (a 400 names ssn and never repeats the number)', async (_case, ssn, status) => {
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/members', body(employer.id, ssn));
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.body).toMatchObject({ type: 'validation_error', input_errors: [{ field: 'ssn', field_path: ['ssn'] }] });
      expect(response.body.input_errors[0].message).toMatch(/^Not an SSN the SSA issues/);
      expect(response.text).not.toContain(ssn);
      const patched = await t.admin.patch(`/members/${(await createMember(t.admin)).id}`, { ssn });
      expect(patched.status).toBe(400);
      expect(errorFields(patched)).toEqual(['ssn']);
      expect(patched.text).not.toContain(ssn);
    }
  });

  it('when a second member of the employer is created with the same SSN, then 400 naming ssn; another employer may have it', async () => {
    const employer = await createEmployer(t.admin);
    const first = await t.admin.post('/members', body(employer.id, '234567891'));
    expect(first.status).toBe(201);
    const second = await t.admin.post('/members', body(employer.id, '234567891'));
    expect(second.status, second.text).toBe(400);
    expect(second.body).toMatchObject({ type: 'validation_error', input_errors: [{ field: 'ssn', message: 'Another member of this employer has this SSN.' }] });
    expect(second.text).not.toContain('234567891');
    expect((await t.admin.post('/members', body((await createEmployer(t.admin)).id, '234567891'))).status).toBe(201);
    // Once the first no longer has it, the number is free again.
    expect((await t.admin.patch(`/members/${first.body.id}`, { ssn: null })).status).toBe(200);
    expect((await t.admin.post('/members', body(employer.id, '234567891'))).status).toBe(201);
  });

  it("when a member is patched to another member's SSN, then 400 naming ssn and nothing changes; patched to its own, 200", async () => {
    const employer = await createEmployer(t.admin);
    const first = await createMember(t.admin, { employer: employer.id, ssn: '345678912' });
    const second = await createMember(t.admin, { employer: employer.id, ssn: '345678913' });
    const response = await t.admin.patch(`/members/${second.id}`, { ssn: '345678912', job_title: 'Lead' });
    expect(response.status, response.text).toBe(400);
    expect(errorFields(response)).toEqual(['ssn']);
    expect(response.text).not.toContain('345678912');
    expect((await t.admin.get(`/members/${second.id}`)).body).toMatchObject({ ssn_last_four: '8913', job_title: null });
    expect((await t.admin.patch(`/members/${first.id}`, { ssn: '345678912', job_title: 'Lead' })).status).toBe(200);
  });

  it('when the same SSN is created for one employer many times at once, then exactly one is created and the others are 400, never 500', async () => {
    const employer = await createEmployer(t.admin);
    const responses = await Promise.all(Array.from({ length: 6 }, () => t.admin.post('/members', body(employer.id, '456789123'))));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const response of responses.filter((r) => r.status === 400)) expect(errorFields(response)).toEqual(['ssn']);
    const rows = await t.database.db.selectFrom('members').select('id').where('employer_id', '=', employer.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('when two members are patched to one SSN at once, then one gets it and the other is 400', async () => {
    const employer = await createEmployer(t.admin);
    const members = [await createMember(t.admin, { employer: employer.id }), await createMember(t.admin, { employer: employer.id })];
    const responses = await Promise.all(members.map((member) => t.admin.patch(`/members/${member.id}`, { ssn: '567891234' })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400]);
  });

  it('when the SSN is stored, then its keyed digest is stored beside it, not the SSN nor a plain hash of it', async () => {
    const member = await createMember(t.admin, { ssn: '678912345' });
    const row = await t.database.db.selectFrom('members').select(['ssn_digest']).where('id', '=', member.id).executeTakeFirstOrThrow();
    expect(row.ssn_digest).toBe(new SsnDigester(TEST_ENCRYPTION_KEY).digest('678912345'));
    expect(row.ssn_digest).not.toBe(createHash('sha256').update('678912345').digest('base64url'));
    expect(row.ssn_digest).not.toBe(createHash('sha256').update('678912345').digest('hex'));
  });
});

describe('members stored before SSN digests (the startup backfill)', () => {
  it('when members have SSNs but no digest, then startup fills them; of two sharing an SSN the earlier keeps it; a second run changes nothing', async () => {
    const encrypter = new Encrypter(TEST_ENCRYPTION_KEY);
    const digester = new SsnDigester(TEST_ENCRYPTION_KEY);
    const employer = await createEmployer(t.admin);
    const first = await createMember(t.admin, { employer: employer.id, ssn: '712345678' });
    const other = await createMember(t.admin, { employer: employer.id, ssn: '712345679' });
    // As migration 2026-11-30T0003 leaves existing members: no digest; and a duplicate entered before the rule.
    await t.database.db.updateTable('members').set({ ssn_digest: null }).where('id', 'in', [first.id, other.id]).execute();
    const later = await createMember(t.admin, { employer: employer.id });
    await t.database.db
      .updateTable('members')
      .set({ ssn_encrypted: encrypter.encrypt('712345678'), ssn_last_four: '5678' })
      .where('id', '=', later.id)
      .execute();

    const logged: string[] = [];
    const log = {
      info: (data: object, message: string) => logged.push(`${JSON.stringify(data)} ${message}`),
      warn: (data: object, message: string) => logged.push(`${JSON.stringify(data)} ${message}`),
    };
    const result = await backfillSsnDigests(t.database.db, encrypter, digester, log);
    expect(result.filled).toBeGreaterThanOrEqual(2);
    expect(result.duplicates).toContain(later.id);
    expect(result.duplicates).not.toContain(first.id);
    const digests = await t.database.db.selectFrom('members').select(['id', 'ssn_digest']).where('employer_id', '=', employer.id).orderBy('id').execute();
    expect(digests).toEqual([
      { id: first.id, ssn_digest: digester.digest('712345678') },
      { id: other.id, ssn_digest: digester.digest('712345679') },
      { id: later.id, ssn_digest: null },
    ]);
    expect(logged.join('\n')).toContain(later.id);
    expect(logged.join('\n')).not.toMatch(/71234567|5678/);
    expect(logged.join('\n')).not.toContain(digester.digest('712345678'));

    const again = await backfillSsnDigests(t.database.db, encrypter, digester);
    expect(again.filled).toBe(0);
    expect(again.duplicates).toContain(later.id);
    // The later member's SSN is refused as a duplicate once corrected to it, and free to change to its own.
    expect(errorFields(await t.admin.patch(`/members/${later.id}`, { ssn: '712345678' }))).toEqual(['ssn']);
    expect((await t.admin.patch(`/members/${later.id}`, { ssn: '712345670' })).status).toBe(200);
  });
});

describe('members: update, list and scope', () => {
  it('when patched, then only given fields change, metadata merges and subclasses are replaced', async () => {
    const employer = await createEmployer(t.admin);
    const first = await createSubclass(t.admin, { employer: employer.id });
    const second = await createSubclass(t.admin, { employer: employer.id, category: 'location' });
    const member = await createMember(t.admin, { employer: employer.id, subclasses: [first.id], metadata: { a: '1', b: '2' } });
    const response = await t.admin.patch(`/members/${member.id}`, { job_title: 'Lead', subclasses: [second.id], metadata: { a: '', c: '3' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...member, job_title: 'Lead', subclasses: [second.id], metadata: { b: '2', c: '3' } });
    const unchanged = await t.admin.patch(`/members/${member.id}`, { first_name: 'Dee' });
    expect(unchanged.body.subclasses).toEqual([second.id]);
  });

  it('when the employer is patched, then 400: a member cannot move employers', async () => {
    const member = await createMember(t.admin);
    const other = await createEmployer(t.admin);
    const response = await t.admin.patch(`/members/${member.id}`, { employer: other.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain('employer');
  });

  it("when listed with ?employer=, then only that employer's members come back, newest first", async () => {
    const admin = await newProviderAdmin(t, 'members-list');
    const a = await createEmployer(admin);
    const b = await createEmployer(admin);
    const first = await createMember(admin, { employer: a.id });
    t.clock.advance(1000);
    const second = await createMember(admin, { employer: a.id });
    await createMember(admin, { employer: b.id });
    expect(idsOf(await admin.get(`/members?employer=${a.id}`))).toEqual([second.id, first.id]);
    expect(idsOf(await admin.get('/members'))).toHaveLength(3);
  });

  it("when an employer key reaches for another employer's member, then 404; creating one there is a 400", async () => {
    const mine = await createEmployer(t.admin);
    const other = await createEmployer(t.admin);
    const theirs = await createMember(t.admin, { employer: other.id });
    const client = await t.client('employer', { employer: mine.id });
    const own = await createMember(client, { employer: mine.id });
    expect((await client.get(`/members/${theirs.id}`)).status).toBe(404);
    expect((await client.patch(`/members/${theirs.id}`, { job_title: 'x' })).status).toBe(404);
    expect((await client.delete(`/members/${theirs.id}`)).status).toBe(404);
    expect(idsOf(await client.get(`/members?employer=${other.id}`))).toEqual([]);
    expect(idsOf(await client.get('/members'))).toEqual([own.id]);
    const refused = await client.post('/members', {
      employer: other.id,
      first_name: 'A',
      last_name: 'B',
      dob: '1990-01-01',
      address: address(),
      hire_date: '2024-01-01',
    });
    expect(refused.status).toBe(400);
    expect(errorFields(refused)).toContain('employer');
  });

  it("when another provider's member is addressed, then 404 everywhere", async () => {
    const other = await newProviderAdmin(t, 'members-other');
    const theirs = await createMember(other);
    expect((await t.admin.get(`/members/${theirs.id}`)).status).toBe(404);
    expect((await t.admin.patch(`/members/${theirs.id}`, { job_title: 'x' })).status).toBe(404);
    expect((await t.admin.delete(`/members/${theirs.id}`)).status).toBe(404);
  });

  it('when a read-only key writes members, then 403', async () => {
    const member = await createMember(t.admin);
    const readOnly = await t.client('read_only');
    expect((await readOnly.get(`/members/${member.id}`)).status).toBe(200);
    expect((await readOnly.post('/members', {})).status).toBe(403);
    expect((await readOnly.patch(`/members/${member.id}`, { job_title: 'x' })).status).toBe(403);
    expect((await readOnly.delete(`/members/${member.id}`)).status).toBe(403);
  });
});

describe('members: notifications', () => {
  it.each([
    ['hired today', '2026-03-02', true],
    ['hired exactly 30 days ago', '2026-01-31', true],
    ['hired 31 days ago', '2026-01-30', false],
    ['hired for a future date', '2026-04-01', true],
  ])('when a member is %s, then a welcome is %s', async (_case, hireDate, expected) => {
    const member = await createMember(t.admin, { hire_date: hireDate });
    const welcomes = (await notificationsAbout(t.admin, member.id)).filter((n) => n.notification_type === 'welcome');
    expect(welcomes).toHaveLength(expected ? 1 : 0);
    if (expected) expect(welcomes[0]).toMatchObject({ owner: 'member', payload: { member: member.id, employer: member.employer } });
  });

  it('when the waiting period of a plan that applies is already over at creation, then newly_eligible; otherwise not', async () => {
    const employer = await createEmployer(t.admin);
    await insertPlanWithConfiguration(t, { employer: employer.id, waitingPeriodDays: 30 });
    const over = await createMember(t.admin, { employer: employer.id, hire_date: '2026-01-31' });
    const notYet = await createMember(t.admin, { employer: employer.id, hire_date: '2026-02-01' });
    const types = async (id: string) => (await notificationsAbout(t.admin, id)).map((n) => n.notification_type);
    expect(await types(over.id)).toContain('newly_eligible');
    expect(await types(notYet.id)).not.toContain('newly_eligible');
  });

  it('when the only configuration requires a subclass the member lacks, then no newly_eligible', async () => {
    const employer = await createEmployer(t.admin);
    const union = await createSubclass(t.admin, { employer: employer.id, category: 'union', name: 'Local 12' });
    await insertPlanWithConfiguration(t, { employer: employer.id, requiredSubclass: union.id });
    const outsider = await createMember(t.admin, { employer: employer.id });
    const insider = await createMember(t.admin, { employer: employer.id, subclasses: [union.id] });
    const types = async (id: string) => (await notificationsAbout(t.admin, id)).map((n) => n.notification_type);
    expect(await types(outsider.id)).not.toContain('newly_eligible');
    expect(await types(insider.id)).toContain('newly_eligible');
  });

  it('when the employer has no plan configuration, then no newly_eligible', async () => {
    const member = await createMember(t.admin);
    expect((await notificationsAbout(t.admin, member.id)).map((n) => n.notification_type)).not.toContain('newly_eligible');
  });

  it('when termination_date is set, then one member_terminated for the employer; the same date again adds none, a new date adds one', async () => {
    const member = await createMember(t.admin);
    await t.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-31' });
    await t.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-31', job_title: 'x' });
    let terminated = (await notificationsAbout(t.admin, member.id)).filter((n) => n.notification_type === 'member_terminated');
    expect(terminated).toHaveLength(1);
    expect(terminated[0]).toMatchObject({ owner: 'employer', payload: { member: member.id, employer: member.employer } });
    await t.admin.patch(`/members/${member.id}`, { termination_date: '2026-04-30' });
    terminated = (await notificationsAbout(t.admin, member.id)).filter((n) => n.notification_type === 'member_terminated');
    expect(terminated).toHaveLength(2);
  });

  it('when a member is created already terminated, then member_terminated at creation', async () => {
    const member = await createMember(t.admin, { hire_date: '2020-01-01', termination_date: '2026-02-01' });
    expect((await notificationsAbout(t.admin, member.id)).map((n) => n.notification_type)).toContain('member_terminated');
  });

  it('when a write fails, then no notification was recorded for it', async () => {
    const before = (await t.admin.get('/notifications?page_size=100')).body.results.length;
    const employer = await createEmployer(t.admin);
    const response = await t.admin.post('/members', {
      employer: employer.id,
      first_name: 'A',
      last_name: 'B',
      dob: '1990-01-01',
      address: address(),
      hire_date: '2026-03-01',
      business_unit: 'bu_missing',
    });
    expect(response.status).toBe(400);
    expect((await t.admin.get('/notifications?page_size=100')).body.results.length).toBe(before);
  });

  it('when notifications are read, then payloads never carry an SSN or a date of birth', async () => {
    const member = await createMember(t.admin, { ssn: '111223333', dob: '1977-07-07', hire_date: '2026-03-01', termination_date: '2026-03-30' });
    const text = JSON.stringify(await notificationsAbout(t.admin, member.id));
    expect(text).not.toContain('111223333');
    expect(text).not.toContain('3333"');
    expect(text).not.toContain('1977-07-07');
  });
});

describe('members: DELETE /members/{id}', () => {
  async function seedOwnRecords(memberId: string, employerId: string) {
    const db = t.database.db;
    const now = t.clock.now().toISOString();
    const base = { provider_id: t.providerId, employer_id: employerId, member_id: memberId, created_at: now };
    await db
      .insertInto('dependents')
      .values({
        ...base,
        id: newId('dependent'),
        first_name: 'Kid',
        middle_name: null,
        last_name: 'R',
        member_relationship: 'child',
        ssn_last_four: null,
        dob: '2015-01-01',
        biological_sex: null,
        address: null,
        has_disability: false,
        metadata: '{}',
      })
      .execute();
    await db
      .insertInto('beneficiaries')
      .values({
        ...base,
        id: newId('beneficiary'),
        full_name: 'Pat R',
        member_relationship: 'spouse',
        tin_last_four: null,
        address: null,
        phone_number: null,
        dob: null,
      })
      .execute();
    await db
      .insertInto('pay_rates')
      .values({ ...base, id: newId('pay_rate'), amount_cents: 5_000_000, period: 'annually', effective_start: '2026-01-01' })
      .execute();
    await db
      .insertInto('member_id_cards')
      .values({ ...base, id: newId('member_id_card'), carrier_id: null, member_number: 'M1', group_number: 'G1', document_id: null })
      .execute();
    const documentId = newId('document');
    await db
      .insertInto('documents')
      .values({
        id: documentId,
        provider_id: t.providerId,
        employer_id: employerId,
        member_id: memberId,
        name: 'card.pdf',
        content_type: 'application/pdf',
        size: 3,
        content: Buffer.from('pdf'),
        created_at: now,
      })
      .execute();
    return { documentId };
  }

  async function count(table: 'dependents' | 'beneficiaries' | 'pay_rates' | 'member_id_cards' | 'enrollments' | 'enrolled_plans', memberId: string) {
    const rows = await t.database.db.selectFrom(table).select('id').where('member_id', '=', memberId).execute();
    return rows.length;
  }

  it('when a member entered in error is deleted, then they and their records are gone in one go; documents and notifications stay', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id, hire_date: '2026-03-01' });
    const { planId } = await insertPlanWithConfiguration(t, { employer: employer.id });
    await insertEnrollment(t, { member: member.id, employer: employer.id, planId, status: 'pending' });
    await insertEnrollment(t, { member: member.id, employer: employer.id, planId, status: 'cancelled' });
    const { documentId } = await seedOwnRecords(member.id, employer.id);

    const response = await t.admin.delete(`/members/${member.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: member.id, object: 'member', deleted: true });
    expect((await t.admin.get(`/members/${member.id}`)).status).toBe(404);
    for (const table of ['dependents', 'beneficiaries', 'pay_rates', 'member_id_cards', 'enrollments', 'enrolled_plans'] as const) {
      expect(await count(table, member.id), table).toBe(0);
    }
    const document = await t.database.db.selectFrom('documents').select('member_id').where('id', '=', documentId).executeTakeFirstOrThrow();
    expect(document.member_id).toBeNull();
    expect((await notificationsAbout(t.admin, member.id)).length).toBeGreaterThan(0);
  });

  it.each(['approved', 'synced', 'failed'] as const)(
    'when the member has %s coverage, then 409 invalid_state pointing to termination_date, and nothing is removed',
    async (status) => {
      const employer = await createEmployer(t.admin);
      const member = await createMember(t.admin, { employer: employer.id });
      const { planId } = await insertPlanWithConfiguration(t, { employer: employer.id });
      await insertEnrollment(t, { member: member.id, employer: employer.id, planId, status });
      await seedOwnRecords(member.id, employer.id);
      const response = await t.admin.delete(`/members/${member.id}`);
      expect(response.status).toBe(409);
      expect(response.body.type).toBe('invalid_state');
      expect(response.body.message).toContain('termination_date');
      expect((await t.admin.get(`/members/${member.id}`)).status).toBe(200);
      expect(await count('dependents', member.id)).toBe(1);
      expect(await count('enrollments', member.id)).toBe(1);
    },
  );

  it('when a member with enrollments is read, then their enrollment ids are listed', async () => {
    const employer = await createEmployer(t.admin);
    const member = await createMember(t.admin, { employer: employer.id });
    const { planId } = await insertPlanWithConfiguration(t, { employer: employer.id });
    const { enrollmentId } = await insertEnrollment(t, { member: member.id, employer: employer.id, planId, status: 'pending' });
    expect((await t.admin.get(`/members/${member.id}`)).body.enrollments).toEqual([enrollmentId]);
  });
});
