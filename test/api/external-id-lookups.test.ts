import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { errorFields, idsOf, newProviderAdmin } from '../helpers/more-factories.ts';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';

// docs/decisions.md "Lookups by external ids": an integrator finds records by the ids its own systems gave them.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('employers by external_id', () => {
  it('when listed with ?external_id=, then only the employers with that id come back, newest first', async () => {
    const admin = await newProviderAdmin(t, 'employer-external-id');
    const first = await createEmployer(admin, { external_id: 'hris-001' });
    t.clock.advance(1000);
    const second = await createEmployer(admin, { external_id: 'hris-001' });
    await createEmployer(admin, { external_id: 'hris-002' });
    await createEmployer(admin);
    expect(idsOf(await admin.get('/employers?external_id=hris-001'))).toEqual([second.id, first.id]);
    expect(idsOf(await admin.get('/employers?external_id=hris-999'))).toEqual([]);
  });

  it("when another provider has an employer with the same external_id, then it is not in this provider's list", async () => {
    const mine = await newProviderAdmin(t, 'employer-external-id-mine');
    const theirs = await newProviderAdmin(t, 'employer-external-id-theirs');
    const own = await createEmployer(mine, { external_id: 'shared-id' });
    await createEmployer(theirs, { external_id: 'shared-id' });
    expect(idsOf(await mine.get('/employers?external_id=shared-id'))).toEqual([own.id]);
  });

  it('when the external_id is empty, too long or holds a NUL character, then 400 at that query parameter', async () => {
    for (const value of ['', 'x'.repeat(256), 'Acme%00Corp']) {
      const response = await t.admin.get(`/employers?external_id=${value}`);
      expect(response.status, response.text).toBe(400);
      expect(errorFields(response)).toEqual(['external_id']);
    }
  });
});

describe('members by payroll_provider_external_id', () => {
  let admin: ApiClient;
  let employerA: { id: string };
  let employerB: { id: string };
  const members: Record<string, { id: string }> = {};
  beforeAll(async () => {
    admin = await newProviderAdmin(t, 'member-payroll-id');
    employerA = await createEmployer(admin);
    employerB = await createEmployer(admin);
    members.a1 = await createMember(admin, { employer: employerA.id, payroll_provider_external_id: 'EMP-100' });
    t.clock.advance(1000);
    members.a2 = await createMember(admin, { employer: employerA.id, payroll_provider_external_id: 'EMP-100' });
    t.clock.advance(1000);
    members.b1 = await createMember(admin, { employer: employerB.id, payroll_provider_external_id: 'EMP-100' });
    await createMember(admin, { employer: employerA.id, payroll_provider_external_id: 'EMP-200' });
    await createMember(admin, { employer: employerA.id });
  });

  it('when listed with ?payroll_provider_external_id=, then only the members with that id come back, newest first', async () => {
    expect(idsOf(await admin.get('/members?payroll_provider_external_id=EMP-100'))).toEqual([members.b1!.id, members.a2!.id, members.a1!.id]);
  });

  it('when combined with ?employer=, then both filters hold', async () => {
    expect(idsOf(await admin.get(`/members?employer=${employerA.id}&payroll_provider_external_id=EMP-100`))).toEqual([members.a2!.id, members.a1!.id]);
    expect(idsOf(await admin.get(`/members?employer=${employerB.id}&payroll_provider_external_id=EMP-200`))).toEqual([]);
  });

  it('when paged, then the next link keeps the filter and the pages walk every match once', async () => {
    const first = await admin.get('/members?payroll_provider_external_id=EMP-100&page_size=2');
    expect(first.status, first.text).toBe(200);
    expect(idsOf(first)).toEqual([members.b1!.id, members.a2!.id]);
    const next = (first.body as { next: string }).next;
    expect(next).toContain('payroll_provider_external_id=EMP-100');
    const second = await admin.get(next);
    expect(idsOf(second)).toEqual([members.a1!.id]);
    expect((second.body as { next: string | null }).next).toBeNull();
  });

  it("when an employer key lists by payroll id, then only its own employer's members come back", async () => {
    const mine = await createEmployer(t.admin);
    const other = await createEmployer(t.admin);
    const own = await createMember(t.admin, { employer: mine.id, payroll_provider_external_id: 'EMP-150' });
    await createMember(t.admin, { employer: other.id, payroll_provider_external_id: 'EMP-150' });
    const client = await t.client('employer', { employer: mine.id });
    expect(idsOf(await client.get('/members?payroll_provider_external_id=EMP-150'))).toEqual([own.id]);
  });

  it('when another provider lists the same payroll id, then it sees none of these members', async () => {
    const other = await newProviderAdmin(t, 'member-payroll-id-other');
    const theirs = await createMember(other, { payroll_provider_external_id: 'EMP-100' });
    expect(idsOf(await other.get('/members?payroll_provider_external_id=EMP-100'))).toEqual([theirs.id]);
  });

  it('when members are filtered by external_id (a field members do not have), then it stays a 400', async () => {
    const response = await admin.get('/members?external_id=EMP-100');
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['external_id']);
  });
});

describe('dependents by their member payroll id', () => {
  it("when listed with ?member_payroll_provider_external_id=, then the dependents of that provider's members with that id come back", async () => {
    const admin = await newProviderAdmin(t, 'dependent-payroll-id');
    const member = await createMember(admin, { payroll_provider_external_id: 'EMP-300' });
    const other = await createMember(admin, { payroll_provider_external_id: 'EMP-301' });
    const child = await createDependent(admin, { member: member.id });
    t.clock.advance(1000);
    const spouse = await createDependent(admin, { member: member.id, member_relationship: 'spouse', dob: '1989-02-03' });
    await createDependent(admin, { member: other.id });
    const elsewhere = await newProviderAdmin(t, 'dependent-payroll-id-other');
    await createDependent(elsewhere, { member: (await createMember(elsewhere, { payroll_provider_external_id: 'EMP-300' })).id });

    expect(idsOf(await admin.get('/dependents?member_payroll_provider_external_id=EMP-300'))).toEqual([spouse.id, child.id]);
    expect(idsOf(await admin.get(`/dependents?member=${other.id}&member_payroll_provider_external_id=EMP-300`))).toEqual([]);
    expect(idsOf(await admin.get('/dependents?member_payroll_provider_external_id=EMP-300&page_size=1'))).toEqual([spouse.id]);
  });
});
