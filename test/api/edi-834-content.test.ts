/**
 * What an 834 change file says about each person's story (docs/decisions.md "Carrier EDI (X12 834)", What a
 * change file carries): one loop per person with the maintenance type and reason of what happened to them,
 * terminations dated on every HD, cancellations of coverage that never started, addresses continued in N302,
 * name changes with the prior name (2100B) and DTP*303, subscriber ids without an SSN, and names the X12
 * character set cannot carry refused at the API. Built through the API on SQLite and PostgreSQL; every file is
 * checked against the guide by expectGuideConformant (test/helpers/x12.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FormattedSegment } from 'x12-parser';
import { buildDailySweep } from '../../src/app.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { address, createMember } from '../helpers/factories.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld, giveEdiProfile } from '../helpers/enrollment-world.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { Encrypter } from '../../src/shared/crypto.ts';
import { createTestApp, ok, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant, type EdiFileRecord } from '../helpers/x12.ts';

// Clock: 2026-03-02T15:00Z before each test. Plans run 2026-01-01..2026-12-31; families are hired 2026-03-01.
let t: TestContext;
let sweep: DailySweep;
beforeAll(async () => {
  t = await createTestApp();
  sweep = buildDailySweep({ db: t.database.db, clock: t.clock });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  t.clock.set('2026-03-02T15:00:00.000Z');
});

/** A fresh world whose edi group has a profile: REF*0F from the SSN, downloaded by hand. */
async function ediWorld(): Promise<EnrollmentWorld> {
  const w = await createEnrollmentWorld(t);
  await giveEdiProfile(w, 'ssn');
  return w;
}

async function planIn(w: EnrollmentWorld, overrides: Record<string, unknown>) {
  const plan = await createPlan(w.admin, {
    group: w.groups.ediGroup.id,
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '12.00' }),
    ...overrides,
  });
  const configuration = await createPlanConfiguration(w.admin, { plan: plan.id, waiting_period_days: 0 });
  await ok(w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
  return plan;
}

/** A member hired 2026-03-01 and a spouse. */
async function hiredCouple(w: EnrollmentWorld, member: Record<string, unknown> = {}) {
  const created = await createMember(w.admin, {
    employer: w.employer.id,
    first_name: 'Avery',
    last_name: 'Stone',
    dob: '1990-07-14',
    hire_date: '2026-03-01',
    ssn: '123456789',
    biological_sex: 'female',
    employment_status: 'full_time',
    ...member,
  });
  const spouse = await createDependent(w.admin, {
    member: created.id,
    member_relationship: 'spouse',
    first_name: 'Rowan',
    last_name: 'Stone',
    dob: '1989-11-03',
    biological_sex: 'male',
  });
  return { member: created, spouse };
}

type Person = { id: string };

function election(plan: Person, dependents: readonly Person[] = []) {
  return { plan: plan.id, enrolled_dependents: dependents.map((dependent) => ({ dependent: dependent.id })) };
}

function qle(w: EnrollmentWorld, member: Person, reason: string, change_date: string, effective_start: string, enrolled_plans: unknown[]) {
  return approvedEnrollment(w, { member: member.id, category: 'qle', reason, change_date, effective_start, enrolled_plans });
}

const newHire = (w: EnrollmentWorld, member: Person, dependents: readonly Person[] = []) =>
  qle(w, member, 'new_hire', '2026-03-01', '2026-03-01', [election(w.plans.vision, dependents)]);

interface BuiltFile {
  record: EdiFileRecord;
  segments: FormattedSegment[];
}

async function buildFile(w: EnrollmentWorld): Promise<BuiltFile> {
  const record = (await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' }), 201)) as EdiFileRecord;
  const download = await w.admin.get(`/edi_files/${record.id}/content`);
  expect(download.status, download.text).toBe(200);
  return { record, segments: await expectGuideConformant(record, download.text) };
}

const named = (file: BuiltFile, name: string, qualifier?: string) =>
  file.segments.filter((segment) => segment.name === name && (qualifier === undefined || segment['1'] === qualifier));
/** INS01-INS04 and INS08 of each member loop, in file order. */
const memberLoops = (file: BuiltFile) => named(file, 'INS').map((ins) => [ins['1'], ins['2'], ins['3'], ins['4'], ins['8'] ?? '']);
/** Each person loop's segments from its INS to the next INS. */
function personLoops(file: BuiltFile): FormattedSegment[][] {
  const loops: FormattedSegment[][] = [];
  for (const segment of file.segments) {
    if (segment.name === 'INS') loops.push([]);
    if (segment.name === 'SE') break;
    loops.at(-1)?.push(segment);
  }
  return loops;
}
/** A loop's 2300s as [HD01, HD04, DTP*348, DTP*349]. */
function coverageOf(loop: readonly FormattedSegment[]): string[][] {
  const rows: string[][] = [];
  for (const segment of loop) {
    if (segment.name === 'HD') rows.push([segment['1']!, segment['4']!, '', '']);
    if (segment.name === 'DTP' && segment['1'] === '348') rows.at(-1)![2] = segment['3']!;
    if (segment.name === 'DTP' && segment['1'] === '349') rows.at(-1)![3] = segment['3']!;
  }
  return rows;
}
const dateOf = (loop: readonly FormattedSegment[], qualifier: string) => loop.find((segment) => segment.name === 'DTP' && segment['1'] === qualifier)?.['3'];

describe("each person's story in one loop (005010X220A1 INS03/INS04, HD01, DTP*349/357)", () => {
  it('when a plan change and the termination of the member wait for the same file, then each person is terminated (024, INS04 08, DTP*357) and every HD is a 024 with its DTP*349', async () => {
    const w = await ediWorld();
    const visionPlus = await planIn(w, { plan_name: 'Vision Plus', line_of_coverage: 'vision' });
    const { member, spouse } = await hiredCouple(w);
    await newHire(w, member, [spouse]);
    await buildFile(w);
    // Vision Plus from 2026-06-01; then the employment ends 2026-06-15; nothing is sent in between.
    await qle(w, member, 'employment_change', '2026-02-28', '2026-06-01', [election(visionPlus, [spouse])]);
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-06-15' }));
    await sweep.run('2026-06-16');
    t.clock.set('2026-06-16T15:00:00.000Z');

    const file = await buildFile(w);

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '024', '08', 'TE'],
      ['N', '01', '024', '08', ''],
    ]);
    for (const loop of personLoops(file)) {
      expect(dateOf(loop, '357')).toBe('20260615');
      // The plan the carrier holds ends the day before the change; the plan it changed to, with the employment.
      expect(coverageOf(loop)).toEqual([
        ['024', 'Vision Care', '20260301', '20260531'],
        ['024', 'Vision Plus', '20260601', '20260615'],
      ]);
    }
  });

  it('when coverage is added and ended before any file carried it, then the person is added (021) with the last day on the HD (DTP*349) and DTP*356/357', async () => {
    const w = await ediWorld();
    const { member } = await hiredCouple(w);
    await newHire(w, member);
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20' }));
    await sweep.run('2026-03-21');
    t.clock.set('2026-03-21T15:00:00.000Z');

    const file = await buildFile(w);

    expect(memberLoops(file)).toEqual([['Y', '18', '021', '28', 'TE']]);
    const [loop] = personLoops(file);
    expect([dateOf(loop!, '356'), dateOf(loop!, '357')]).toEqual(['20260301', '20260320']);
    expect(coverageOf(loop!)).toEqual([['021', 'Vision Care', '20260301', '20260320']]);
  });

  it('when coverage the carrier was sent is cancelled before it starts, then the HD is a 024 dated on its start: DTP*348 then DTP*349, both the first day', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredCouple(w);
    // Open enrollment: covered from 2026-04-01.
    await approvedEnrollment(w, { member: member.id, enrolled_plans: [election(w.plans.vision, [spouse])] });
    const added = await buildFile(w);
    expect(memberLoops(added).map((loop) => loop[2])).toEqual(['021', '021']);
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20' }));
    await sweep.run('2026-03-21');
    t.clock.set('2026-03-21T15:00:00.000Z');

    const file = await buildFile(w);

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '024', '08', 'TE'],
      ['N', '01', '024', '08', ''],
    ]);
    for (const loop of personLoops(file)) {
      expect(coverageOf(loop)).toEqual([['024', 'Vision Care', '20260401', '20260401']]);
      expect(dateOf(loop, '357')).toBe('20260401');
    }
  });

  it('when a child is born (new_child), then the child is added with INS04 02 (birth) and the subscriber changed with it; a divorce ends the former spouse with 01', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredCouple(w);
    await newHire(w, member, [spouse]);
    const first = await buildFile(w);
    expect(memberLoops(first)).toEqual([
      ['Y', '18', '021', '28', 'FT'],
      ['N', '01', '021', '28', ''],
    ]);

    t.clock.set('2026-04-12T15:00:00.000Z');
    const child = await createDependent(w.admin, { member: member.id, member_relationship: 'child', first_name: 'Ivy', last_name: 'Stone', dob: '2026-04-10' });
    await qle(w, member, 'new_child', '2026-04-10', '2026-04-10', [election(w.plans.vision, [spouse, child])]);
    const born = await buildFile(w);
    expect(memberLoops(born)).toEqual([
      ['Y', '18', '001', '02', 'FT'],
      ['N', '19', '021', '02', ''],
    ]);

    t.clock.set('2026-05-20T15:00:00.000Z');
    await qle(w, member, 'divorce', '2026-05-15', '2026-06-01', [election(w.plans.vision, [child])]);
    const divorced = await buildFile(w);
    expect(memberLoops(divorced)).toEqual([
      ['Y', '18', '001', '01', 'FT'],
      ['N', '01', '024', '01', ''],
    ]);
    expect(coverageOf(personLoops(divorced)[1]!).map(([type, plan, , end]) => [type, plan, end])).toEqual([['024', 'Vision Care', '20260531']]);
  });
});

describe("the termination's reason and the employment status (005010X220A1 INS04 1203, INS08 584)", () => {
  /** A couple covered since their hire, already sent to the carrier, whose employment then ends on 2026-03-20 as `change` says. */
  async function endedCouple(change: Record<string, unknown>) {
    const w = await ediWorld();
    const { member, spouse } = await hiredCouple(w);
    await newHire(w, member, [spouse]);
    await buildFile(w);
    t.clock.set('2026-03-21T15:00:00.000Z');
    await ok(w.admin.patch(`/members/${member.id}`, change));
    await sweep.run('2026-03-21');
    return buildFile(w);
  }

  it.each([
    // INS04 03 Death: a death ends the employment, and the family's coverage, that day; INS08 TE.
    ['a death', '03', 'TE', { date_of_death: '2026-03-20' }],
    // INS04 04 Retirement; INS08 RT Retired.
    ['a retirement', '04', 'RT', { termination_date: '2026-03-20', termination_reason: 'retirement' }],
    // INS04 40 Lay Off without Benefits: the termination ends the coverage.
    ['a layoff', '40', 'TE', { termination_date: '2026-03-20', termination_reason: 'layoff' }],
    // INS04 38 Leave of Absence without Benefits.
    ['a leave', '38', 'TE', { termination_date: '2026-03-20', termination_reason: 'leave' }],
    ['a voluntary termination', '08', 'TE', { termination_date: '2026-03-20', termination_reason: 'voluntary' }],
    ['gross misconduct', '08', 'TE', { termination_date: '2026-03-20', termination_reason: 'gross_misconduct' }],
    ['a termination without a reason', '08', 'TE', { termination_date: '2026-03-20' }],
  ])('when the employment ends by %s, then each loop ends (024) with INS04 %s and the subscriber has INS08 %s', async (_label, reason, status, change) => {
    const file = await endedCouple(change);
    expect(memberLoops(file)).toEqual([
      ['Y', '18', '024', reason, status],
      ['N', '01', '024', reason, ''],
    ]);
    for (const loop of personLoops(file)) expect(coverageOf(loop)).toEqual([['024', 'Vision Care', '20260301', '20260320']]);
  });

  it("when the member's latest leave entry is a leave of absence without a return, then INS08 is L1; after the return, the employment status again", async () => {
    const w = await ediWorld();
    const { member } = await hiredCouple(w);
    await ok(
      w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'leave_of_absence', effective_date: '2026-03-01', leave_type: 'fmla' }),
      201,
    );
    await newHire(w, member);
    expect(memberLoops(await buildFile(w))).toEqual([['Y', '18', '021', '28', 'L1']]);

    await ok(w.admin.post(`/members/${member.id}/employment_events`, { event_type: 'return_from_leave', effective_date: '2026-03-02' }), 201);
    await ok(w.admin.patch(`/members/${member.id}`, { first_name: 'Averie' }));
    expect(memberLoops(await buildFile(w)).map((loop) => loop[4])).toEqual(['FT']);
  });
});

describe('addresses continued in N302 (005010X220A1 2100A N3, N301/N302 AN 1/55)', () => {
  it('when the first address line is longer than 55 characters, then it goes on in N302 before the second line, and nothing of it is lost', async () => {
    const w = await ediWorld();
    const line1 = '4417 North Independence Boulevard Southwest Building 7 Apartment 12B';
    const { member } = await hiredCouple(w, { address: address({ line1, line2: 'Care of Jordan Stone' }) });
    await newHire(w, member);

    const file = await buildFile(w);

    const [n3] = named(file, 'N3');
    expect(n3!['1']!.length).toBeLessThanOrEqual(55);
    expect(n3!['2']!.length).toBeLessThanOrEqual(55);
    expect(`${n3!['1']} ${n3!['2']}`).toBe(`${line1} Care of Jordan Stone`);
    expect(n3!['2']).toContain('Apartment 12B');
  });
});

describe('name changes (005010X220A1 INS04 25, DTP*303, 2100A NM1*74, 2100B NM1*70)', () => {
  it("when the member's name changes in the same file as a plan change, then the name change is a loop of its own (001, 25, DTP*303, the prior name in 2100B) before the plan change's (EC)", async () => {
    const w = await ediWorld();
    const visionPlus = await planIn(w, { plan_name: 'Vision Plus', line_of_coverage: 'vision' });
    const { member, spouse } = await hiredCouple(w);
    await newHire(w, member, [spouse]);
    await buildFile(w);

    await ok(w.admin.patch(`/members/${member.id}`, { last_name: 'Stone-Park' }));
    await qle(w, member, 'employment_change', '2026-02-28', '2026-06-01', [election(visionPlus, [spouse])]);
    const file = await buildFile(w);

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '001', '25', 'FT'],
      ['Y', '18', '001', 'EC', 'FT'],
      ['N', '01', '001', 'EC', ''],
    ]);
    const [renamed, changed] = personLoops(file);
    expect(dateOf(renamed!, '303')).toBe('20260302');
    expect(renamed!.filter((segment) => segment.name === 'NM1').map((nm1) => [nm1['1'], nm1['3'], nm1['4']])).toEqual([
      ['74', 'Stone-Park', 'Avery'],
      ['70', 'Stone', 'Avery'],
    ]);
    expect(renamed!.filter((segment) => segment.name === 'HD')).toEqual([]);
    expect(changed!.filter((segment) => segment.name === 'NM1').map((nm1) => [nm1['1'], nm1['3']])).toEqual([['IL', 'Stone-Park']]);
    expect(dateOf(changed!, '303')).toBeUndefined();

    // Sent once: the carrier now holds the new name.
    const next = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' });
    expect(next.status, next.text).toBe(409);
  });

  it("when a dependent's name changes alone, then the dependent's loop is the correction (001, 25, DTP*303, 2100B) and the subscriber's is notification only (XN)", async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredCouple(w);
    await newHire(w, member, [spouse]);
    await buildFile(w);

    await ok(w.admin.patch(`/dependents/${spouse.id}`, { first_name: 'Rowen', middle_name: 'Lee' }));
    const file = await buildFile(w);

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '001', 'XN', 'FT'],
      ['N', '01', '001', '25', ''],
    ]);
    const [, corrected] = personLoops(file);
    expect(dateOf(corrected!, '303')).toBe('20260302');
    expect(corrected!.filter((segment) => segment.name === 'NM1').map((nm1) => [nm1['1'], nm1['3'], nm1['4'], nm1['5'] ?? ''])).toEqual([
      ['74', 'Stone', 'Rowen', 'Lee'],
      ['70', 'Stone', 'Rowan', ''],
    ]);
  });
});

describe('subscriber ids without an SSN (REF*0F)', () => {
  it('when a member has no SSN and the profile takes REF*0F from the SSN, then the member id is the subscriber id and NM108/NM109 are left out, instead of the member being left out', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredCouple(w, { ssn: undefined });
    await newHire(w, member, [spouse]);

    const file = await buildFile(w);

    expect(file.record.left_out).toEqual([]);
    expect(file.record.member_count).toBe(1);
    expect(named(file, 'REF', '0F').map((ref) => ref['2'])).toEqual([member.id, member.id]);
    expect(named(file, 'NM1').map((nm1) => [nm1['8'] ?? '', nm1['9'] ?? ''])).toEqual([
      ['', ''],
      ['', ''],
    ]);
  });
});

describe('names the X12 character set cannot carry are refused at the API (400 naming the field)', () => {
  it.each([
    ['a delimiter in the first name', { first_name: 'Li*Wei' }, ['first_name'], /\* ~ : \^/],
    ['a component separator in the last name', { last_name: 'Stone:Park' }, ['last_name'], /\* ~ : \^/],
    ['CJK characters in the last name', { last_name: '山田' }, ['last_name'], /outside the X12 character set/],
    ['a segment terminator in the address', { address: address({ line1: '7 Harbor Road~' }) }, ['address', 'line1'], /\* ~ : \^/],
    ['Cyrillic in the city', { address: address({ city: 'Москва' }) }, ['address', 'city'], /outside the X12 character set/],
  ])('when a member is created or changed with %s, then 400', async (_label, fields, path, message) => {
    const w = await ediWorld();
    const body = {
      employer: w.employer.id,
      first_name: 'Avery',
      last_name: 'Stone',
      dob: '1990-07-14',
      hire_date: '2026-03-01',
      address: address(),
      ...fields,
    };
    const created = await w.admin.post('/members', body);
    expect(created.status, created.text).toBe(400);
    expect(created.body.type).toBe('validation_error');
    expect(JSON.stringify(created.body)).toMatch(message);
    expect(fieldPaths(created.body)).toEqual([path]);

    const member = await createMember(w.admin, { employer: w.employer.id });
    const patched = await w.admin.patch(`/members/${member.id}`, fields);
    expect(patched.status, patched.text).toBe(400);
    expect(fieldPaths(patched.body)).toEqual([path]);
  });

  it('when a dependent is created or changed with a delimiter or CJK characters in a name, then 400 naming the field', async () => {
    const w = await ediWorld();
    const member = await createMember(w.admin, { employer: w.employer.id });
    const created = await w.admin.post('/dependents', {
      member: member.id,
      member_relationship: 'child',
      first_name: 'Ivy',
      last_name: '王',
      dob: '2019-04-22',
    });
    expect(created.status, created.text).toBe(400);
    expect(fieldPaths(created.body)).toEqual([['last_name']]);
    const child = await createDependent(w.admin, { member: member.id });
    const patched = await w.admin.patch(`/dependents/${child.id}`, { middle_name: 'A^B' });
    expect(patched.status, patched.text).toBe(400);
    expect(fieldPaths(patched.body)).toEqual([['middle_name']]);
  });

  it('when names carry Latin accents, then they are accepted as given and the 834 writes them without the accents', async () => {
    const w = await ediWorld();
    const { member } = await hiredCouple(w, { first_name: 'José', last_name: 'Núñez-Weiß' });
    expect([member.first_name, member.last_name]).toEqual(['José', 'Núñez-Weiß']);
    await newHire(w, member);

    const file = await buildFile(w);

    expect(named(file, 'NM1').map((nm1) => [nm1['3'], nm1['4']])).toEqual([['Nunez-Weiss', 'Jose']]);
  });
});

/** The field paths of a validation error body. */
function fieldPaths(body: { input_errors?: { field_path: string[] }[] }): string[][] {
  return (body.input_errors ?? []).map((error) => error.field_path);
}

describe('what a file cannot carry is alerted once and shown on the file (docs/decisions.md "Alerts")', () => {
  async function alertsOf(w: EnrollmentWorld, kind: string, member: string) {
    return (await ok(w.admin.get(`/alerts?kind=${kind}&member=${member}`))).results as {
      kind: string;
      audience: string;
      related_object_type: string;
      related_object_id: string;
      payload: Record<string, unknown>;
    }[];
  }
  async function alertEvents(w: EnrollmentWorld, relatedObjectId: string) {
    const events = (await ok(w.admin.get('/events?type=alert.created&page_size=100'))).results as { data: Record<string, unknown> }[];
    return events.filter((event) => JSON.stringify(event.data).includes(relatedObjectId));
  }

  it('when a change waits because its line has no 834 code, then the file lists it (unmapped), and one admin alert and one event are raised however many builds see it', async () => {
    const w = await ediWorld();
    const life = await planIn(w, {
      plan_name: 'Group Life',
      line_of_coverage: 'life',
      premium_type: undefined,
      composite_rates: undefined,
      guaranteed_issue_volume: '50000.00',
    });
    const { member, spouse } = await hiredCouple(w);
    const hired = await qle(w, member, 'new_hire', '2026-03-01', '2026-03-01', [election(w.plans.vision), { ...election(life), requested_volume: '20000.00' }]);
    const changes = (await ok(w.admin.get(`/enrollments/${hired.id}/benefit_changes`))) as { id: string; line_of_coverage: string }[];
    const lifeChange = changes.find((change) => change.line_of_coverage === 'life')!;

    const first = await buildFile(w);
    expect((first.record as EdiFileRecord & { unmapped: unknown[] }).unmapped).toEqual([{ benefit_change: lifeChange.id, line_of_coverage: 'life' }]);
    // Nothing else to send: 409, and still the one alert.
    expect((await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' })).status).toBe(409);
    t.clock.set('2026-03-03T15:00:00.000Z');
    await qle(w, member, 'marriage', '2026-02-28', '2026-04-01', [election(w.plans.vision, [spouse]), { ...election(life), requested_volume: '20000.00' }]);
    const second = await buildFile(w);
    // The life change still waits (the marriage changed nothing of life): listed again, alerted once.
    expect((second.record as EdiFileRecord & { unmapped: unknown[] }).unmapped).toEqual([{ benefit_change: lifeChange.id, line_of_coverage: 'life' }]);

    const alerts = await alertsOf(w, 'edi_unmapped_line', member.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ audience: 'admin', related_object_type: 'benefit_change', related_object_id: lifeChange.id });
    expect(await alertEvents(w, lifeChange.id)).toHaveLength(1);
  });

  it('when a change is the only one waiting and its line has no code, then the build answers nothing to send and the alert is raised all the same, once', async () => {
    const w = await ediWorld();
    const life = await planIn(w, {
      plan_name: 'Group Life',
      line_of_coverage: 'life',
      premium_type: undefined,
      composite_rates: undefined,
      guaranteed_issue_volume: '50000.00',
    });
    const { member } = await hiredCouple(w);
    await qle(w, member, 'new_hire', '2026-03-01', '2026-03-01', [{ ...election(life), requested_volume: '20000.00' }]);
    for (let build = 0; build < 2; build += 1) {
      const response = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' });
      expect(response.status, response.text).toBe(409);
    }
    expect(await alertsOf(w, 'edi_unmapped_line', member.id)).toHaveLength(1);
  });

  it('when a member is left out of files, then an admin alert is raised once per report (with the left_out report and its event)', async () => {
    const w = await ediWorld();
    const good = await hiredCouple(w);
    const legacy = await hiredCouple(w, { first_name: 'Legacy', ssn: '234567890' });
    await newHire(w, good.member);
    await newHire(w, legacy.member);
    // An SSN stored before the API checked SSNs: NM109 cannot carry it.
    await t.database.db.updateTable('members').set({ ssn_digest: null }).where('id', '=', legacy.member.id).execute();
    await t.database.db
      .updateTable('members')
      .set({ ssn_encrypted: new Encrypter(TEST_ENCRYPTION_KEY).encrypt('000451234'), ssn_last_four: '1234' })
      .where('id', '=', legacy.member.id)
      .execute();

    const first = await buildFile(w);
    expect(first.record.left_out).toEqual([{ member: legacy.member.id, reason: 'NM109: is not an SSN the SSA issues' }]);
    t.clock.set('2026-03-03T15:00:00.000Z');
    await qle(w, good.member, 'marriage', '2026-02-28', '2026-04-01', [election(w.plans.vision, [good.spouse])]);
    await buildFile(w);

    const alerts = await alertsOf(w, 'edi_left_out', legacy.member.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ audience: 'admin', related_object_type: 'member', related_object_id: legacy.member.id });
    expect(JSON.stringify(alerts)).not.toMatch(/000451234|Legacy/);
  });
});
