import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Encrypter } from '../../src/shared/crypto.ts';
import { SsnDigester } from '../../src/shared/ssn.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { errorFields } from '../helpers/more-factories.ts';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';

// docs/decisions.md "SSNs": an SSN is accepted as 9 digits or written 123-45-6789, and stored as 9 digits.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const encrypter = new Encrypter(TEST_ENCRYPTION_KEY);

async function storedMemberSsn(id: string) {
  const row = await t.database.db.selectFrom('members').select(['ssn_encrypted', 'ssn_digest']).where('id', '=', id).executeTakeFirstOrThrow();
  return { ssn: row.ssn_encrypted === null ? null : encrypter.decrypt(row.ssn_encrypted), digest: row.ssn_digest };
}

async function storedDependentSsn(id: string) {
  const row = await t.database.db.selectFrom('dependents').select('ssn_encrypted').where('id', '=', id).executeTakeFirstOrThrow();
  return row.ssn_encrypted === null ? null : encrypter.decrypt(row.ssn_encrypted);
}

describe('member SSNs written with dashes', () => {
  it('when a member is created with 123-45-6789, then it is stored as 9 digits, encrypted, with its last four', async () => {
    const member = await createMember(t.admin, { ssn: '587-65-4321' });
    expect(member.ssn_last_four).toBe('4321');
    expect(member).not.toHaveProperty('ssn');
    const stored = await storedMemberSsn(member.id);
    expect(stored).toEqual({ ssn: '587654321', digest: new SsnDigester(TEST_ENCRYPTION_KEY).digest('587654321') });
  });

  it('when a member is patched to a dashed SSN, then it is stored as 9 digits', async () => {
    const member = await createMember(t.admin);
    const response = await t.admin.patch(`/members/${member.id}`, { ssn: '231-45-6780' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.ssn_last_four).toBe('6780');
    expect((await storedMemberSsn(member.id)).ssn).toBe('231456780');
  });

  it('when a second member of the employer has the same SSN written the other way, then 400: the same SSN', async () => {
    const employer = await createEmployer(t.admin);
    await createMember(t.admin, { employer: employer.id, ssn: '345678912' });
    const second = await t.admin.post('/members', {
      employer: employer.id,
      first_name: 'Lee',
      last_name: 'Park',
      dob: '1990-01-01',
      address: { line1: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' },
      hire_date: '2024-01-01',
      ssn: '345-67-8912',
    });
    expect(second.status).toBe(400);
    expect(second.body.input_errors).toEqual([expect.objectContaining({ field: 'ssn', message: 'Another member of this employer has this SSN.' })]);
  });

  it.each([
    ['dashes in other places', '12-345-6789'],
    ['one dash', '123-456789'],
    ['spaces', '123 45 6789'],
    ['dots', '123.45.6789'],
    ['a trailing dash', '123456789-'],
    ['10 digits with dashes', '123-45-67890'],
  ])('when an SSN is written with %s, then 400 at ssn with the shape message, never repeating it', async (_label, ssn) => {
    const member = await createMember(t.admin);
    const response = await t.admin.patch(`/members/${member.id}`, { ssn });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toEqual([expect.objectContaining({ field: 'ssn', message: 'An SSN is exactly 9 digits, or written 123-45-6789.' })]);
    expect(response.text).not.toContain(ssn);
  });

  it('when a dashed SSN is one the SSA never issues, then 400 naming the part, never the number in either form', async () => {
    const member = await createMember(t.admin);
    const response = await t.admin.patch(`/members/${member.id}`, { ssn: '123-45-0000' });
    expect(response.status).toBe(400);
    expect(response.body.input_errors[0].message).toMatch(/^Not an SSN the SSA issues: The serial number/);
    expect(response.text).not.toContain('123-45-0000');
    expect(response.text).not.toContain('123450000');
    expect(t.logs.join('\n')).not.toContain('123-45-0000');
  });
});

describe('dependent SSNs written with dashes', () => {
  it('when a dependent is created with 123-45-6789, then it is stored as 9 digits and sets ssn_last_four', async () => {
    const dependent = await createDependent(t.admin, { ssn: '412-34-5678' });
    expect(dependent.ssn_last_four).toBe('5678');
    expect(await storedDependentSsn(dependent.id)).toBe('412345678');
  });

  it('when a dashed SSN comes with its last four, then they agree; a last four that disagrees is 400', async () => {
    const dependent = await createDependent(t.admin);
    const agreeing = await t.admin.patch(`/dependents/${dependent.id}`, { ssn: '412-34-1111', ssn_last_four: '1111' });
    expect(agreeing.status, agreeing.text).toBe(200);
    expect(await storedDependentSsn(dependent.id)).toBe('412341111');
    const disagreeing = await t.admin.patch(`/dependents/${dependent.id}`, { ssn: '412-34-2222', ssn_last_four: '1111' });
    expect(disagreeing.status).toBe(400);
    expect(errorFields(disagreeing)).toEqual(['ssn_last_four']);
  });

  it('when a dependent SSN has another shape, then 400 at ssn, never repeating it', async () => {
    const dependent = await createDependent(t.admin);
    const response = await t.admin.patch(`/dependents/${dependent.id}`, { ssn: '4123-4-5678' });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toEqual([expect.objectContaining({ field: 'ssn', message: 'An SSN is exactly 9 digits, or written 123-45-6789.' })]);
    expect(response.text).not.toContain('4123-4-5678');
  });
});
