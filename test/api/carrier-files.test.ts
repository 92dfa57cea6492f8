import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { createEnrollmentWorld, type EnrollmentWorld, giveEdiProfile } from '../helpers/enrollment-world.ts';
import { census, heldMember } from '../helpers/carrier-file-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';
import { parsed } from '../helpers/x12.ts';

// Clock: 2026-03-02 (the test app's). The world's medical plans (Gold PPO, Silver HMO) are on its manual group,
// which has no EDI profile: its subscriber ids are member ids.
let t: TestContext;
let w: EnrollmentWorld;
beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
});
afterAll(async () => {
  await t.close();
});

interface Discrepancy {
  kind: string;
  member: string | null;
  dependent: string | null;
  line_of_coverage: string | null;
  fields: string[];
  file_lines: number[];
}

describe('POST /groups/{id}/carrier_files (docs/decisions.md "Carrier files")', () => {
  it('when the carrier census agrees, differs and lacks people, then each discrepancy is listed with its file lines, and the comparison is kept', async () => {
    const agreeing = await heldMember(w, 'Ana', [{ relationship: 'child', first_name: 'Kim', dob: '2015-06-01' }]);
    const absent = await heldMember(w, 'Ben');
    const differing = await heldMember(w, 'Cleo', [{ relationship: 'spouse', first_name: 'Dale', dob: '1981-02-02' }]);
    const uncovered = await createMember(w.admin, {
      employer: w.employer.id,
      first_name: 'Eve',
      last_name: 'Stone',
      dob: '1980-01-01',
      hire_date: '2020-01-01',
    });
    const content = census([
      [agreeing.member.id, 'employee', 'medical', 'Gold PPO', 'ANA', 'Stone', '1980-01-01', 'member_child', '2026-01-01', ''],
      [agreeing.member.id, 'child', 'medical', 'Gold PPO', 'Kim', 'Stone', '2015-06-01', '', '', ''],
      [differing.member.id, 'employee', 'medical', 'Silver HMO', 'Cleo', 'Stoner', '1980-01-01', 'member', '2026-02-01', ''],
      ['mem_nobody', 'employee', 'medical', w.plans.medical.id, 'Zed', 'Null', '1970-01-01', '', '', ''],
      [uncovered.id, 'employee', 'medical', w.plans.medical.id, 'Eve', 'Stone', '1980-01-01', '', '', ''],
      [uncovered.id, 'cousin', 'medical', w.plans.medical.id, 'Flo', 'Stone', '1990-01-01', '', '', ''],
      [uncovered.id, 'employee', 'medical', w.plans.medical.id, 'Eve', 'Stone', '1980-13-01', '', '', ''],
    ]);
    const received = await ok(w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'csv', content }), 201);
    expect(received).toMatchObject({
      object: 'carrier_file',
      group: w.groups.manualGroup.id,
      employer: w.employer.id,
      format: 'csv',
      as_of: '2026-03-02',
      row_count: 7,
    });
    expect(received.row_problems).toEqual([
      { line: 7, column: 'relationship', message: expect.stringContaining('Must be employee or one of') },
      { line: 8, column: 'dob', message: 'Must be a calendar date, YYYY-MM-DD.' },
    ]);
    const ofMember = (id: string | null) =>
      (received.discrepancies as Discrepancy[]).filter((d) => d.member === id).map((d) => [d.kind, d.line_of_coverage, d.fields, d.file_lines]);
    expect(ofMember(agreeing.member.id)).toEqual([]);
    expect(ofMember(absent.member.id)).toEqual([['missing', 'medical', [], []]]);
    expect(ofMember(differing.member.id)).toEqual([
      ['plan', 'medical', [], [4]],
      ['dates', 'medical', ['coverage_start'], [4]],
      ['dependents', 'medical', [], []],
      ['tier', 'medical', [], [4]],
      ['demographics', null, ['last_name'], [4]],
    ]);
    expect(ofMember(uncovered.id)).toEqual([['extra', 'medical', [], [6]]]);
    expect(ofMember(null)).toEqual([['extra', null, [], [5]]]);
    expect(JSON.stringify(received)).not.toContain('mem_nobody');

    expect(await ok(w.admin.get(`/carrier_files/${received.id}`))).toEqual(received);
  });

  it('when the file names a dependent we do not cover, then the dependents differ, at its line', async () => {
    const { member } = await heldMember(w, 'Gus');
    const content = census([
      [member.id, 'employee', 'medical', w.plans.medical.id, '', '', '', '', '', ''],
      [member.id, 'child', 'medical', w.plans.medical.id, 'Hal', 'Stone', '2016-01-01', '', '', ''],
    ]);
    const received = await ok(w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'csv', content, as_of: '2026-02-01' }), 201);
    expect((received.discrepancies as Discrepancy[]).filter((d) => d.member === member.id).map((d) => [d.kind, d.file_lines])).toEqual([['dependents', [3]]]);
  });

  it.each([
    ['not a CSV header', 'hello,world\n1,2\n'],
    ['an unclosed quote', 'subscriber_id,relationship,line_of_coverage,plan\n"mem_1,employee,medical,x\n'],
    ['an unknown column', 'subscriber_id,relationship,line_of_coverage,plan,ssn\nmem_1,employee,medical,x,123456789\n'],
  ])('when the content is %s, then it is a 400 on content and nothing is kept', async (_name, content) => {
    const response = await w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'csv', content });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['content']);
    expect(response.text).not.toContain('123456789');
  });

  it('when another provider sends a file for the group or reads a comparison, then it is a 404', async () => {
    const other = await newProviderAdmin(t);
    const content = census([]);
    expect((await other.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'csv', content })).status).toBe(404);
    const mine = await ok(w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'csv', content }), 201);
    expect((await other.get(`/carrier_files/${mine.id}`)).status).toBe(404);
  });
});

/** An 834 as a carrier sends what it holds (a full audit file, INS03 030), one INS loop per person. */
function carrier834(
  people: {
    subscriber: string;
    ins02: string;
    last: string;
    first: string;
    dob: string;
    coverage: { hd03: string; hd04: string; hd05?: string; start: string; end?: string }[];
  }[],
): string {
  const pad = (value: string, width: number) => value.padEnd(width, ' ');
  const body = [
    'ST*834*0001*005010X220A1',
    'BGN*00*AUDIT1*20260301*1200****4',
    'N1*P5*World Widgets Inc*FI*123456789',
    'N1*IN*World Health Co*FI*987654321',
    ...people.flatMap((person) => [
      `INS*${person.ins02 === '18' ? 'Y' : 'N'}*${person.ins02}*030*XN*A***${person.ins02 === '18' ? 'FT' : ''}`.replace(/\*+$/, ''),
      `REF*0F*${person.subscriber}`,
      `NM1*IL*1*${person.last}*${person.first}`,
      `DMG*D8*${person.dob.replaceAll('-', '')}*F`,
      ...person.coverage.flatMap((line) => [
        `HD*030**${line.hd03}*${line.hd04}${line.hd05 ? `*${line.hd05}` : ''}`,
        `DTP*348*D8*${line.start.replaceAll('-', '')}`,
        ...(line.end ? [`DTP*349*D8*${line.end.replaceAll('-', '')}`] : []),
      ]),
    ]),
  ];
  body.push(`SE*${body.length + 1}*0001`);
  const isa = `ISA*00*${pad('', 10)}*00*${pad('', 10)}*ZZ*${pad('CARRIER', 15)}*ZZ*${pad('SPONSOR', 15)}*260301*1200*^*00501*000000001*0*P*:`;
  return [isa, 'GS*BE*CARRIER*SPONSOR*20260301*1200*1*X*005010X220A1', ...body, 'GE*1*1', 'IEA*1*000000001'].map((segment) => `${segment}~`).join('\n');
}

describe('POST /groups/{id}/carrier_files with an 834 (format x12_834)', () => {
  it('when a carrier sends an 834 of what it holds, then it is read as the census is: the same discrepancies, at the HD segments', async () => {
    const agreeing = await heldMember(w, 'Ivy', [{ relationship: 'child', first_name: 'Jo', dob: '2014-04-04' }]);
    const differing = await heldMember(w, 'Lou', [{ relationship: 'spouse', first_name: 'May', dob: '1982-03-03' }]);
    const absent = await heldMember(w, 'Ned');
    const content = carrier834([
      {
        subscriber: agreeing.member.id,
        ins02: '18',
        last: 'STONE',
        first: 'IVY',
        dob: '1980-01-01',
        coverage: [{ hd03: 'HLT', hd04: 'GOLD PPO', hd05: 'ECH', start: '2026-01-01' }],
      },
      {
        subscriber: agreeing.member.id,
        ins02: '19',
        last: 'STONE',
        first: 'JO',
        dob: '2014-04-04',
        coverage: [{ hd03: 'HLT', hd04: 'GOLD PPO', start: '2026-01-01' }],
      },
      {
        subscriber: differing.member.id,
        ins02: '18',
        last: 'STONE',
        first: 'LOU',
        dob: '1980-01-01',
        coverage: [{ hd03: 'HLT', hd04: 'GOLD PPO', hd05: 'EMP', start: '2026-01-01', end: '2026-02-28' }],
      },
      {
        subscriber: differing.member.id,
        ins02: '18',
        last: 'STONE',
        first: 'LOU',
        dob: '1980-01-01',
        coverage: [{ hd03: 'ZZZ', hd04: 'GOLD PPO', start: '2026-01-01' }],
      },
    ]);
    // The file is an 834 a third-party parser reads.
    const segments = await parsed(content);
    expect(segments.filter((segment) => segment.name === 'INS')).toHaveLength(4);

    const received = await ok(w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'x12_834', content, as_of: '2026-02-15' }), 201);
    expect(received).toMatchObject({ format: 'x12_834', as_of: '2026-02-15', row_count: 4 });
    expect(received.row_problems).toEqual([{ line: 30, column: 'HD03', message: expect.stringContaining('HD03') }]);
    const ofMember = (id: string | null) =>
      (received.discrepancies as Discrepancy[]).filter((d) => d.member === id).map((d) => [d.kind, d.fields, d.file_lines]);
    expect(ofMember(agreeing.member.id)).toEqual([]);
    expect(ofMember(absent.member.id)).toEqual([['missing', [], []]]);
    expect(ofMember(differing.member.id)).toEqual([
      ['dates', ['coverage_end'], [23]],
      ['dependents', [], []],
      ['tier', [], [23]],
    ]);
  });

  it('when the content is not an 834, then it is a 400 on content', async () => {
    for (const content of [
      'hello',
      'ISA*00*short~',
      'ISA*00*          *00*          *ZZ*CARRIER        *ZZ*SPONSOR        *260301*1200*^*00501*000000001*0*P*:~ST*999*1~SE*2*1~',
    ]) {
      const response = await w.admin.post(`/groups/${w.groups.manualGroup.id}/carrier_files`, { format: 'x12_834', content });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['content']);
    }
  });
});

describe('carrier files of a group whose 834s send SSNs as subscriber ids', () => {
  it('when the census names members by SSN (or by member id where we have no SSN), then they are found by the keyed digest, and an unknown SSN is never echoed', async () => {
    await giveEdiProfile(w, 'ssn');
    const held = async (firstName: string, ssn?: string) => {
      const member = await createMember(w.admin, {
        employer: w.employer.id,
        first_name: firstName,
        dob: '1980-01-01',
        hire_date: '2020-01-01',
        ...(ssn ? { ssn } : {}),
      });
      await ok(
        w.admin.post('/enrollments', {
          member: member.id,
          category: 'carrier_sync',
          effective_start: '2026-01-01',
          enrolled_plans: [{ plan: w.plans.vision.id }],
        }),
        201,
      );
      return member;
    };
    const withSsn = await held('Ola', '345678901');
    const withoutSsn = await held('Pia');
    const content = census([
      ['345678901', 'employee', 'vision', 'Vision Care', '', '', '', '', '', ''],
      [withoutSsn.id, 'employee', 'vision', 'Vision Care', '', '', '', '', '', ''],
      ['345678902', 'employee', 'vision', 'Vision Care', '', '', '', '', '', ''],
    ]);
    const response = await w.admin.post(`/groups/${w.groups.ediGroup.id}/carrier_files`, { format: 'csv', content });
    expect(response.status).toBe(201);
    const discrepancies = response.body.discrepancies as Discrepancy[];
    expect(discrepancies.filter((d) => d.member === withSsn.id || d.member === withoutSsn.id)).toEqual([]);
    expect(discrepancies.filter((d) => d.member === null).map((d) => [d.kind, d.file_lines])).toEqual([['extra', [4]]]);
    expect(response.text).not.toContain('345678901');
    expect(response.text).not.toContain('345678902');
  });
});
