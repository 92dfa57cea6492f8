/**
 * Carrier 834 files (ASC X12N 005010X220A1) built through the API, each scenario on a fresh world, on SQLite
 * and PostgreSQL. Every file a test builds is parsed with the third-party x12-parser and checked against the
 * guide by expectGuideConformant; each scenario's file is also compared with its golden copy,
 * test/golden/edi/<scenario>.x12 (one segment per line, BGN02 - the file's id - written as EDI_FILE_ID; the
 * dates and times come from the test clock, so nothing else varies).
 *
 * To rewrite the golden files after an intended change of the output, run
 *   UPDATE_GOLDEN=1 npx vitest run --project sqlite test/api/edi-files.test.ts
 * then run this file normally (both databases compare) and read the diff of test/golden/edi/ before committing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FormattedSegment } from 'x12-parser';
import { buildDailySweep } from '../../src/app.ts';
import { insertRows } from '../../src/db/bulk-insert.ts';
import { findEnrolledDependentsOf } from '../../src/modules/enrollments/enrollment.repository.ts';
import { Encrypter } from '../../src/shared/crypto.ts';
import { newId } from '../../src/shared/ids.ts';
import type { DailySweep } from '../../src/modules/daily-sweep/sweep.service.ts';
import { createCarrier, createEmployer, createGroup, createMember } from '../helpers/factories.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { ApiClient, createTestApp, ok, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant, one, type EdiFileRecord } from '../helpers/x12.ts';

// Clock: 2026-03-02T15:00Z before each test (ISA09/ISA10, GS04/GS05, BGN03/BGN04 and the default as_of).
// Each world's plans run 2026-01-01..2026-12-31; the families below are hired 2026-03-01, covered from then.
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

const GOLDEN_DIRECTORY = fileURLToPath(new URL('../golden/edi/', import.meta.url));
const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === '1';

/** The file as its golden copy holds it: one segment per line, BGN02 (the file's id) written EDI_FILE_ID. */
function goldenText(content: string): string {
  return content
    .split('~')
    .filter((segment) => segment !== '')
    .map((segment) => {
      if (!segment.startsWith('BGN*')) return `${segment}~\n`;
      const elements = segment.split('*');
      elements[2] = 'EDI_FILE_ID';
      return `${elements.join('*')}~\n`;
    })
    .join('');
}

function expectGolden(scenario: string, content: string): void {
  const path = join(GOLDEN_DIRECTORY, `${scenario}.x12`);
  if (UPDATE_GOLDEN) {
    mkdirSync(GOLDEN_DIRECTORY, { recursive: true });
    writeFileSync(path, goldenText(content));
    return;
  }
  expect(existsSync(path), `${path} is missing: UPDATE_GOLDEN=1 writes it`).toBe(true);
  expect(goldenText(content), `${scenario}.x12 (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

// ------------------------------------------------------------------------------------------------------------
// Worlds, families and elections, through the API.

/** A trading-partner profile with deterministic output: REF*0F from the SSN, downloaded by hand. */
function profileBody(overrides: Record<string, unknown> = {}) {
  return {
    interchange_sender: { qualifier: 'ZZ', id: 'WORLDWIDGETS' },
    interchange_receiver: { qualifier: 'ZZ', id: 'WORLDHEALTH' },
    application_sender_code: 'WORLDWIDGETS',
    application_receiver_code: 'WORLDHEALTH',
    sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
    payer: { name: 'World Health Co', id: '987654321' },
    companion_guide: { subscriber_id_source: 'ssn' },
    delivery: { method: 'download' },
    ...overrides,
  };
}

function putProfile(w: EnrollmentWorld, group: string, overrides: Record<string, unknown> = {}) {
  return ok(w.admin.request('PUT', `/groups/${group}/edi_profile`, { body: profileBody(overrides) }));
}

/** A fresh world whose edi group (carrier World Health Co) has its profile. */
async function ediWorld(): Promise<EnrollmentWorld> {
  const w = await createEnrollmentWorld(t);
  await putProfile(w, w.groups.ediGroup.id);
  return w;
}

/** Another plan of a group, priced, configured and with a contribution strategy, ready to enroll in. */
async function planIn(w: EnrollmentWorld, group: string, overrides: Record<string, unknown>) {
  const plan = await createPlan(w.admin, { group, premium_type: 'composite', composite_rates: compositeRates({ member: '12.00' }), ...overrides });
  const configuration = await createPlanConfiguration(w.admin, { plan: plan.id, waiting_period_days: 0 });
  await ok(w.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy()));
  return plan;
}

async function configurationOf(w: EnrollmentWorld, plan: string): Promise<string> {
  return (await ok(w.admin.get(`/plan_configurations?plan=${plan}`))).results[0].id as string;
}

/** A member hired 2026-03-01 with an SSN (REF*0F and NM109), a spouse and a child. */
async function hiredFamily(w: EnrollmentWorld, options: { firstName?: string; ssn?: string; childDob?: string } = {}) {
  const member = await createMember(w.admin, {
    employer: w.employer.id,
    first_name: options.firstName ?? 'Avery',
    last_name: 'Stone',
    dob: '1990-07-14',
    hire_date: '2026-03-01',
    ssn: options.ssn ?? '123456789',
    biological_sex: 'female',
    employment_status: 'full_time',
  });
  const spouse = await createDependent(w.admin, {
    member: member.id,
    member_relationship: 'spouse',
    first_name: 'Rowan',
    last_name: 'Stone',
    dob: '1989-11-03',
    biological_sex: 'male',
  });
  const child = await createDependent(w.admin, {
    member: member.id,
    member_relationship: 'child',
    first_name: 'Ivy',
    last_name: 'Stone',
    dob: options.childDob ?? '2019-04-22',
    biological_sex: 'female',
  });
  return { member, spouse, child };
}

type Person = { id: string };

/** An election of the world's edi vision plan (Vision Care) covering `dependents`. */
function visionCare(w: EnrollmentWorld, dependents: readonly Person[] = []) {
  return { plan: w.plans.vision.id, premium: '10.00', enrolled_dependents: dependents.map((dependent) => ({ dependent: dependent.id })) };
}

function election(plan: Person, dependents: readonly Person[] = [], extra: Record<string, unknown> = {}) {
  return { plan: plan.id, enrolled_dependents: dependents.map((dependent) => ({ dependent: dependent.id })), ...extra };
}

/** The new hire's first election, from the hire date (2026-03-01), approved. */
function newHireElection(w: EnrollmentWorld, member: Person, enrolled_plans: unknown[]) {
  return approvedEnrollment(w, {
    member: member.id,
    category: 'qle',
    reason: 'new_hire',
    change_date: '2026-03-01',
    effective_start: '2026-03-01',
    enrolled_plans,
  });
}

/** A life-event election reported on 2026-02-28, effective `effective_start`, approved. */
function lifeEventElection(
  w: EnrollmentWorld,
  member: Person,
  reason: string,
  effective_start: string,
  enrolled_plans: unknown[],
  extra: Record<string, unknown> = {},
) {
  return approvedEnrollment(w, { member: member.id, category: 'qle', reason, change_date: '2026-02-28', effective_start, enrolled_plans, ...extra });
}

async function changesOf(w: EnrollmentWorld, enrollment: Person) {
  return (await ok(w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`))) as {
    id: string;
    line_of_coverage: string;
    status: string;
    changes: string[];
    coverage_start: string | null;
    coverage_end: string | null;
    delivery_state: string;
  }[];
}

interface BuiltFile {
  record: EdiFileRecord;
  content: string;
  segments: FormattedSegment[];
}

/** Builds a file through the API, downloads it, and checks it against the guide (expectGuideConformant). */
async function buildFile(
  w: EnrollmentWorld,
  body: { group: string; kind?: 'change' | 'full'; as_of?: string; action?: 'replace' | 'verify' },
  options: { companionGuideLineCodes?: readonly string[] } = {},
): Promise<BuiltFile> {
  const record = (await ok(w.admin.post('/edi_files', { kind: 'change', ...body }), 201)) as EdiFileRecord;
  const download = await w.admin.get(`/edi_files/${record.id}/content`);
  expect(download.status, download.text).toBe(200);
  expect(download.headers.get('content-type')).toContain('application/edi-x12');
  const segments = await expectGuideConformant(record, download.text, options);
  return { record, content: download.text, segments };
}

async function nothingToSend(w: EnrollmentWorld, group: string): Promise<void> {
  const response = await w.admin.post('/edi_files', { group, kind: 'change' });
  expect(response.status, response.text).toBe(409);
  expect(response.body.message).toContain('Nothing to send');
}

const segmentsNamed = (file: BuiltFile, name: string) => file.segments.filter((segment) => segment.name === name);
/** INS01-INS04 and INS08 of each member loop, in file order. */
const memberLoops = (file: BuiltFile) => segmentsNamed(file, 'INS').map((ins) => [ins['1'], ins['2'], ins['3'], ins['4'], ins['8'] ?? '']);
/** HD01, HD03 and HD05 of each coverage loop, in file order. */
const coverageLoops = (file: BuiltFile) => segmentsNamed(file, 'HD').map((hd) => [hd['1'], hd['3'], hd['5']]);

// ------------------------------------------------------------------------------------------------------------

describe('834 change files: one scenario each, against its golden file', () => {
  it('when a new hire elects vision for a spouse and a child, then the file adds all three (INS03/HD01 021) from the hire date', async () => {
    const w = await ediWorld();
    const { member, spouse, child } = await hiredFamily(w);
    const hired = await newHireElection(w, member, [visionCare(w, [spouse, child])]);

    const file = await buildFile(w, { group: w.groups.ediGroup.id });

    // INS04 28 Initial Enrollment: the event is the hire.
    expect(memberLoops(file)).toEqual([
      ['Y', '18', '021', '28', 'FT'],
      ['N', '01', '021', '28', ''],
      ['N', '19', '021', '28', ''],
    ]);
    expect(file.record.benefit_changes).toEqual((await changesOf(w, hired)).map((change) => change.id));
    expectGolden('new-hire', file.content);
  });

  it('when a dependent is added (a change with dependent_change), then the subscriber is changed (001) and the spouse added (021) from the change', async () => {
    const w = await ediWorld();
    const { member, spouse, child } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [child])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    const married = await lifeEventElection(w, member, 'marriage', '2026-04-01', [visionCare(w, [child, spouse])]);
    const [change] = await changesOf(w, married);
    expect(change).toMatchObject({ status: 'change', changes: expect.arrayContaining(['dependent_change']) });
    const file = await buildFile(w, { group: w.groups.ediGroup.id });

    // The child, already covered and on the same plan, is not sent again. INS04 32: the event is the marriage.
    expect(memberLoops(file)).toEqual([
      ['Y', '18', '001', '32', 'FT'],
      ['N', '01', '021', '32', ''],
    ]);
    expect(coverageLoops(file)).toEqual([
      ['001', 'VIS', 'FAM'],
      ['021', 'VIS', 'FAM'],
    ]);
    expect(file.record.benefit_changes).toEqual([change!.id]);
    expectGolden('add-dependent', file.content);
  });

  it('when the plan changes within the carrier (two edi plans of one group), then everyone covered is changed (001) onto the new plan from its start', async () => {
    const w = await ediWorld();
    const visionPlus = await planIn(w, w.groups.ediGroup.id, { plan_name: 'Vision Plus', line_of_coverage: 'vision' });
    const { member, spouse } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    const switched = await lifeEventElection(w, member, 'employment_change', '2026-06-01', [election(visionPlus, [spouse])]);
    const [change] = await changesOf(w, switched);
    expect(change).toMatchObject({ status: 'change', changes: expect.arrayContaining(['plan_change']), coverage_start: '2026-06-01' });
    const file = await buildFile(w, { group: w.groups.ediGroup.id });

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '001', 'EC', 'FT'],
      ['N', '01', '001', 'EC', ''],
    ]);
    expect(segmentsNamed(file, 'HD').map((hd) => hd['4'])).toEqual(['Vision Plus', 'Vision Plus']);
    expectGolden('plan-change', file.content);
  });

  it("when the line moves to another carrier, then the old carrier's file ends it (024, DTP*349 the day before) and the new carrier's adds it (021)", async () => {
    const w = await ediWorld();
    const summit = await createCarrier(w.admin, { legal_name: 'Summit Vision Inc', trade_name: 'Summit Vision' });
    const summitGroup = await createGroup(w.admin, { employer: w.employer.id, carrier: summit.id, connection_method: 'edi', group_number: 'SV-100' });
    await putProfile(w, summitGroup.id, {
      interchange_receiver: { qualifier: 'ZZ', id: 'SUMMITVISION' },
      application_receiver_code: 'SUMMITVISION',
      payer: { name: 'Summit Vision Inc', id: '555444333' },
    });
    const summitVision = await planIn(w, summitGroup.id, { plan_name: 'Summit Vision', line_of_coverage: 'vision' });
    const { member, spouse } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    const moved = await lifeEventElection(w, member, 'employment_change', '2026-06-01', [election(summitVision, [spouse])]);
    const [removed, added] = await changesOf(w, moved);
    expect([removed, added].map((change) => [change?.status, change?.coverage_start, change?.coverage_end])).toEqual([
      ['removed', '2026-03-01', '2026-05-31'],
      ['new', '2026-06-01', '2026-12-31'],
    ]);
    const old = await buildFile(w, { group: w.groups.ediGroup.id });
    const next = await buildFile(w, { group: summitGroup.id });

    expect(memberLoops(old)).toEqual([
      ['Y', '18', '024', '07', 'FT'],
      ['N', '01', '024', '07', ''],
    ]);
    expect(
      segmentsNamed(old, 'DTP')
        .filter((dtp) => dtp['1'] === '349')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260531', '20260531']);
    expect(old.record.benefit_changes).toEqual([removed!.id]);
    expect(memberLoops(next)).toEqual([
      ['Y', '18', '021', 'EC', 'FT'],
      ['N', '01', '021', 'EC', ''],
    ]);
    expect(
      segmentsNamed(next, 'DTP')
        .filter((dtp) => dtp['1'] === '348')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260601', '20260601']);
    expect(next.record.benefit_changes).toEqual([added!.id]);
    // Each carrier is its own trading partner: the new one's first file is its number 1.
    expect(next.record.interchange_control_number).toBe(1);
    expectGolden('carrier-switch-old-carrier', old.content);
    expectGolden('carrier-switch-new-carrier', next.content);
  });

  it('when the member is terminated, then the file ends everyone (024, INS04 08) with INS08 TE, DTP*337 the termination date and DTP*349 the last day covered', async () => {
    const w = await ediWorld();
    const { member, spouse, child } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse, child])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20' }));
    // The sweep of the day after the termination date ends the coverage; that night's file carries it.
    await sweep.run('2026-03-21');
    t.clock.set('2026-03-21T15:00:00.000Z');
    const file = await buildFile(w, { group: w.groups.ediGroup.id });

    expect(memberLoops(file)).toEqual([
      ['Y', '18', '024', '08', 'TE'],
      ['N', '01', '024', '08', ''],
      ['N', '19', '024', '08', ''],
    ]);
    expect(segmentsNamed(file, 'DTP').find((dtp) => dtp['1'] === '337')?.['3']).toBe('20260320');
    expect(
      segmentsNamed(file, 'DTP')
        .filter((dtp) => dtp['1'] === '349')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260320', '20260320', '20260320']);
    expectGolden('termination', file.content);
  });

  it('when a termination the carrier was sent is undone before it takes effect, then the next file reinstates everyone (INS03/HD01 025) from their first day', async () => {
    const w = await ediWorld();
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.vision.id)}`, { termination_policy: 'end_of_month' }));
    const { member, spouse } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    await buildFile(w, { group: w.groups.ediGroup.id });
    // Terminated on 2026-03-01 (past: applied at once); covered to the end of that month.
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-03-01' }));
    const ended = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(ended).map((loop) => loop[2])).toEqual(['024', '024']);
    expect(
      segmentsNamed(ended, 'DTP')
        .filter((dtp) => dtp['1'] === '349')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260331', '20260331']);

    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: null }));
    const reinstated = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(reinstated).map((loop) => [loop[2], loop[3]])).toEqual([
      ['025', '41'],
      ['025', '41'],
    ]);
    expect(coverageLoops(reinstated).map(([type]) => type)).toEqual(['025', '025']);
    expect(
      segmentsNamed(reinstated, 'DTP')
        .filter((dtp) => dtp['1'] === '348')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260301', '20260301']);
  });

  it("when the profile sends dependents' SSNs, then a dependent given one carries it (NM108 34), decrypted only for the file; otherwise no dependent does", async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredFamily(w);
    // The member's spouse (one current spouse per member) is given an SSN.
    await ok(w.admin.patch(`/dependents/${spouse.id}`, { ssn: '234567890' }));
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    const withoutSsn = await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full', as_of: '2026-03-01' });
    const dependentNames = (file: BuiltFile) => segmentsNamed(file, 'NM1').slice(1);
    expect(dependentNames(withoutSsn).map((nm1) => [nm1['8'] ?? '', nm1['9'] ?? ''])).toEqual([['', '']]);

    await putProfile(w, w.groups.ediGroup.id, { companion_guide: { subscriber_id_source: 'ssn', send_dependent_ssn: true } });
    const withSsn = await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full', as_of: '2026-03-01' });
    expect(dependentNames(withSsn).map((nm1) => [nm1['8'], nm1['9']])).toEqual([['34', '234567890']]);
  });

  it('when a line is dropped by an election while a later termination date is on record, then its end is 07 (termination of benefits), not 08', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    await buildFile(w, { group: w.groups.ediGroup.id });
    // Notice given: employment ends 2026-06-30. Vision is dropped from 2026-04-01, before that.
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-06-30' }));
    await lifeEventElection(w, member, 'gain_coverage', '2026-04-01', [], { coverage_waivers: [{ line_of_coverage: 'vision', reason: 'covered_by_spouse' }] });

    const dropped = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(dropped)).toEqual([
      ['Y', '18', '024', '07', 'FT'],
      ['N', '01', '024', '07', ''],
    ]);
    expect(segmentsNamed(dropped, 'DTP').filter((dtp) => dtp['1'] === '337')).toEqual([]);
  });

  it('when one line of several with the carrier ends, or a line is added for someone the carrier holds, then the person loop is a change (001) and only the HD says 024 or 021', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredFamily(w);
    const dental = await planIn(w, w.groups.ediGroup.id, { plan_name: 'Dental Essentials', line_of_coverage: 'dental' });
    await newHireElection(w, member, [visionCare(w, [spouse])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    // Dental added for the member and spouse, whom the carrier already covers for vision: 001 + HD 021.
    await lifeEventElection(w, member, 'employment_change', '2026-04-01', [visionCare(w, [spouse]), election(dental, [spouse])]);
    const added = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(added)).toEqual([
      ['Y', '18', '001', 'EC', 'FT'],
      ['N', '01', '001', 'EC', ''],
    ]);
    expect(coverageLoops(added)).toEqual([
      ['021', 'DEN', 'ESP'],
      ['021', 'DEN', 'ESP'],
    ]);

    // Dental dropped again while vision goes on: the carrier must not end the people (001 + HD 024).
    await lifeEventElection(w, member, 'employment_change', '2026-05-01', [visionCare(w, [spouse])], {
      coverage_waivers: [{ line_of_coverage: 'dental', reason: 'covered_by_spouse' }],
    });
    const dropped = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(dropped).map((loop) => loop[2])).toEqual(['001', '001']);
    expect(coverageLoops(dropped).filter(([type]) => type === '024')).toEqual([
      ['024', 'DEN', 'ESP'],
      ['024', 'DEN', 'ESP'],
    ]);
  });

  it("when a child reaches the age limit and the daily sweep ends the child's coverage, then the child's loop is ended (024) on the last day and the subscriber's changed", async () => {
    const w = await ediWorld();
    await ok(w.admin.patch(`/plan_configurations/${await configurationOf(w, w.plans.vision.id)}`, { dependent_age_out_rule: 'date_of_birth' }));
    // Born 2000-05-10, age limit 26: last covered day 2026-05-09.
    const { member, spouse, child } = await hiredFamily(w, { childDob: '2000-05-10' });
    await newHireElection(w, member, [visionCare(w, [spouse, child])]);
    await buildFile(w, { group: w.groups.ediGroup.id });

    expect((await sweep.run('2026-05-09')).dependent_coverage_ended).toBe(1);
    t.clock.set('2026-05-10T15:00:00.000Z');
    const file = await buildFile(w, { group: w.groups.ediGroup.id });

    // The spouse, still covered on the same plan, is not sent. The subscriber made no selection: INS04 XN.
    expect(memberLoops(file)).toEqual([
      ['Y', '18', '001', 'XN', 'FT'],
      ['N', '19', '024', '07', ''],
    ]);
    expect(coverageLoops(file)).toEqual([
      ['001', 'VIS', 'ESP'],
      ['024', 'VIS', 'FAM'],
    ]);
    // DTP*349 on the ended loop only: the subscriber's changed coverage goes on.
    expect(
      segmentsNamed(file, 'DTP')
        .filter((dtp) => dtp['1'] === '349')
        .map((dtp) => dtp['3']),
    ).toEqual(['20260509']);
    expectGolden('age-out', file.content);
  });

  it("when the member's last name or address changes after a file was sent, then the next change file carries a demographics-only loop (INS03 001, INS04 25, no 2300)", async () => {
    const w = await ediWorld();
    const { member, spouse, child } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse, child])]);
    await buildFile(w, { group: w.groups.ediGroup.id });
    await nothingToSend(w, w.groups.ediGroup.id);

    await ok(w.admin.patch(`/members/${member.id}`, { last_name: 'Stone-Park' }));
    const renamed = await buildFile(w, { group: w.groups.ediGroup.id });

    expect(memberLoops(renamed)).toEqual([['Y', '18', '001', '25', 'FT']]);
    expect(segmentsNamed(renamed, 'HD')).toEqual([]);
    // 2100A NM1*74 (corrected insured) with the new name, 2100B NM1*70 with the name last sent; DTP*303 the file's date.
    expect(segmentsNamed(renamed, 'NM1').map((nm1) => [nm1['1'], nm1['3']])).toEqual([
      ['74', 'Stone-Park'],
      ['70', 'Stone'],
    ]);
    expect(segmentsNamed(renamed, 'DTP').find((dtp) => dtp['1'] === '303')?.['3']).toBe('20260302');
    expect(renamed.record.benefit_changes).toEqual([]);
    expectGolden('demographic-change', renamed.content);

    // Sent once: the next build has nothing; an address change is sent the same way.
    await nothingToSend(w, w.groups.ediGroup.id);
    await ok(w.admin.patch(`/members/${member.id}`, { address: { line1: '7 Harbor Road', city: 'Portland', state: 'ME', zip_code: '04101-1234' } }));
    const moved = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(memberLoops(moved)).toEqual([['Y', '18', '001', '25', 'FT']]);
    expect([one(moved.segments, 'N3')['1'], one(moved.segments, 'N4')]).toEqual([
      '7 Harbor Road',
      { name: 'N4', '1': 'Portland', '2': 'ME', '3': '041011234' },
    ]);
  });
});

describe('834 full files', () => {
  it('when a full file is built, then it replaces (BGN08 RX) with everyone covered on as_of, each person and coverage as 030', async () => {
    const w = await ediWorld();
    const dental = await planIn(w, w.groups.ediGroup.id, { plan_name: 'Dental Essentials', line_of_coverage: 'dental' });
    const { member, spouse, child } = await hiredFamily(w);
    await newHireElection(w, member, [visionCare(w, [spouse, child]), election(dental, [spouse])]);

    const file = await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full' });

    expect(file.record).toMatchObject({ kind: 'full', action: 'replace', as_of: '2026-03-02', member_count: 1, benefit_changes: [] });
    expect(memberLoops(file)).toEqual([
      ['Y', '18', '030', '', 'FT'],
      ['N', '01', '030', '', ''],
      ['N', '19', '030', '', ''],
    ]);
    expect(coverageLoops(file)).toEqual([
      ['030', 'DEN', 'ESP'],
      ['030', 'VIS', 'FAM'],
      ['030', 'DEN', 'ESP'],
      ['030', 'VIS', 'FAM'],
      ['030', 'VIS', 'FAM'],
    ]);
    expectGolden('full-file', file.content);
  });

  it('when as_of moves, then the full file holds exactly who is covered that day: not coverage that starts later or has ended', async () => {
    const w = await ediWorld();
    const stays = await hiredFamily(w, { firstName: 'Stays', ssn: '123456789' });
    await newHireElection(w, stays.member, [visionCare(w, [stays.child])]);
    // Covered from 2026-04-01 (open enrollment).
    const joins = await hiredFamily(w, { firstName: 'Joins', ssn: '234567890' });
    await approvedEnrollment(w, { member: joins.member.id, enrolled_plans: [visionCare(w)] });
    // Covered 2026-03-01 to 2026-03-20, the termination date.
    const leaves = await hiredFamily(w, { firstName: 'Leaves', ssn: '345678901' });
    await newHireElection(w, leaves.member, [visionCare(w, [leaves.spouse])]);
    await ok(w.admin.patch(`/members/${leaves.member.id}`, { termination_date: '2026-03-20' }));
    await sweep.run('2026-03-21');

    const subscribersOn = async (as_of: string, action?: 'verify') => {
      const file = await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full', as_of, ...(action ? { action } : {}) });
      const ids = file.segments.filter((segment) => segment.name === 'REF' && segment['1'] === '0F').map((segment) => segment['2']);
      return { file, subscribers: [...new Set(ids)].sort(), people: ids.length };
    };
    const march = await subscribersOn('2026-03-05');
    expect([march.subscribers, march.people, march.file.record.member_count]).toEqual([['123456789', '345678901'], 4, 2]);
    const afterTermination = await subscribersOn('2026-03-21');
    expect([afterTermination.subscribers, afterTermination.people]).toEqual([['123456789'], 2]);
    const april = await subscribersOn('2026-04-15', 'verify');
    expect([april.subscribers, april.people]).toEqual([['123456789', '234567890'], 3]);
    expect(april.file.record.action).toBe('verify');
  });

  it('when a full file spans several pages and digest writes (2,101 families), then each member is in it once, in member order, and the carrier is on record as holding everyone', async () => {
    const w = await ediWorld();
    const family = await hiredFamily(w);
    await newHireElection(w, family.member, [visionCare(w, [family.spouse, family.child])]);
    // More coverage rows than a page of the build holds (2,000), and more people than a digest write (2,000).
    const clones = await cloneCoveredFamily(family.member.id, 2_100);

    const file = await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full' });

    expect(file.record.member_count).toBe(2_101);
    expect(memberLoops(file)).toHaveLength(3 * 2_101);
    // Subscribers' last names in file order: the member first (Stone), then each clone once, in member order.
    const subscribers = file.segments.filter((segment) => segment.name === 'NM1' && segment['1'] === 'IL').map((segment) => segment['3']);
    const expected = ['Stone', ...clones.map((clone) => clone.lastName)];
    expect(subscribers.filter((_name, index) => index % 3 === 0)).toEqual(expected);
    const digests = await t.database.db
      .selectFrom('edi_sent_demographics')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('group_id', '=', w.groups.ediGroup.id)
      .where('edi_file_id', '=', file.record.id)
      .executeTakeFirstOrThrow();
    expect(Number(digests.count)).toBe(3 * 2_101);
  });
});

/**
 * Copies of a member covered through the API, with their dependents and approved coverage (enrollment, enrolled
 * plans and dependents), written straight into the database: thousands of families in a second. Each copy's
 * last name is its own (Clone00001...), and copies' ids sort after the member's, in the order made.
 */
async function cloneCoveredFamily(memberId: string, count: number): Promise<{ id: string; lastName: string }[]> {
  const db = t.database.db;
  const member = await db.selectFrom('members').selectAll().where('id', '=', memberId).executeTakeFirstOrThrow();
  const dependents = await db.selectFrom('dependents').selectAll().where('member_id', '=', memberId).orderBy('id').execute();
  const enrollments = await db.selectFrom('enrollments').selectAll().where('member_id', '=', memberId).execute();
  const plans = await db.selectFrom('enrolled_plans').selectAll().where('member_id', '=', memberId).execute();
  const covered = await findEnrolledDependentsOf(
    db,
    plans.map((plan) => plan.id),
  );
  const rows = {
    members: [] as (typeof member)[],
    dependents: [] as typeof dependents,
    enrollments: [] as typeof enrollments,
    plans: [] as typeof plans,
    covered: [] as typeof covered,
  };
  const clones: { id: string; lastName: string }[] = [];
  for (let i = 1; i <= count; i++) {
    const lastName = `Clone${String(i).padStart(5, '0')}`;
    const id = newId('member');
    clones.push({ id, lastName });
    // Copies share the member's SSN, as members stored before SSNs were held distinct (no digest).
    rows.members.push({ ...member, id, last_name: lastName, ssn_digest: null });
    const dependentIds = new Map(dependents.map((dependent) => [dependent.id, newId('dependent')]));
    rows.dependents.push(...dependents.map((dependent) => ({ ...dependent, id: dependentIds.get(dependent.id)!, member_id: id, last_name: lastName })));
    const enrollmentIds = new Map(enrollments.map((enrollment) => [enrollment.id, newId('enrollment')]));
    rows.enrollments.push(...enrollments.map((enrollment) => ({ ...enrollment, id: enrollmentIds.get(enrollment.id)!, member_id: id })));
    const planIds = new Map(plans.map((plan) => [plan.id, newId('enrolled_plan')]));
    rows.plans.push(...plans.map((plan) => ({ ...plan, id: planIds.get(plan.id)!, enrollment_id: enrollmentIds.get(plan.enrollment_id)!, member_id: id })));
    rows.covered.push(
      ...covered.map((row) => ({
        ...row,
        id: newId('enrolled_dependent'),
        enrolled_plan_id: planIds.get(row.enrolled_plan_id)!,
        dependent_id: dependentIds.get(row.dependent_id)!,
      })),
    );
  }
  await db.transaction().execute(async (trx) => {
    await insertRows(trx, 'members', rows.members);
    await insertRows(trx, 'dependents', rows.dependents);
    await insertRows(trx, 'enrollments', rows.enrollments);
    await insertRows(trx, 'enrolled_plans', rows.plans);
    await insertRows(trx, 'enrolled_dependents', rows.covered);
  });
  return clones;
}

describe('control numbers and what each file carries', () => {
  it('when files are built for two groups of one trading partner and for another partner, then ISA13 and GS06 go up by one per file per partner and are never reused', async () => {
    const w = await ediWorld();
    // A second group with the same carrier and the same interchange ids: one trading partner, one sequence.
    const sameCarrier = await createGroup(w.admin, { employer: w.employer.id, carrier: w.carrier.id, connection_method: 'edi', group_number: 'G-edi-2' });
    await putProfile(w, sameCarrier.id);
    const dental = await planIn(w, sameCarrier.id, { plan_name: 'Dental Essentials', line_of_coverage: 'dental' });
    const otherCarrier = await createCarrier(w.admin, { legal_name: 'Summit Vision Inc' });
    const otherGroup = await createGroup(w.admin, { employer: w.employer.id, carrier: otherCarrier.id, connection_method: 'edi', group_number: 'SV-100' });
    await putProfile(w, otherGroup.id, { interchange_receiver: { qualifier: 'ZZ', id: 'SUMMITVISION' }, application_receiver_code: 'SUMMITVISION' });
    const summitVision = await planIn(w, otherGroup.id, { plan_name: 'Summit Vision', line_of_coverage: 'vision' });

    const first = await hiredFamily(w, { firstName: 'First', ssn: '123456789' });
    await newHireElection(w, first.member, [visionCare(w), election(dental)]);
    const second = await hiredFamily(w, { firstName: 'Second', ssn: '234567890' });
    await newHireElection(w, second.member, [election(summitVision)]);

    const built: BuiltFile[] = [];
    built.push(await buildFile(w, { group: w.groups.ediGroup.id }));
    built.push(await buildFile(w, { group: sameCarrier.id }));
    // A build with nothing to send stores nothing and takes no number.
    await nothingToSend(w, w.groups.ediGroup.id);
    built.push(await buildFile(w, { group: otherGroup.id }));
    built.push(await buildFile(w, { group: w.groups.ediGroup.id, kind: 'full' }));
    await ok(w.admin.patch(`/members/${first.member.id}`, { last_name: 'Stone-Park' }));
    built.push(await buildFile(w, { group: sameCarrier.id }));
    built.push(await buildFile(w, { group: otherGroup.id, kind: 'full' }));

    const numbers = built.map((file) => [one(file.segments, 'ISA')['8'], file.record.interchange_control_number, file.record.group_control_number]);
    expect(numbers).toEqual([
      ['WORLDHEALTH', 1, 1],
      ['WORLDHEALTH', 2, 2],
      ['SUMMITVISION', 1, 1],
      ['WORLDHEALTH', 3, 3],
      ['WORLDHEALTH', 4, 4],
      ['SUMMITVISION', 2, 2],
    ]);
    const listed = (await ok(w.admin.get('/edi_files?page_size=100'))).results as EdiFileRecord[];
    expect(listed).toHaveLength(built.length);
    const perPartner = new Set(numbers.map(([partner, interchange]) => `${partner}|${interchange}`));
    expect(perPartner.size).toBe(built.length);
  });

  it('when a change is in a file, then it is in no later file: the next build has nothing to send, and a change approved later goes in the next file only', async () => {
    const w = await ediWorld();
    const { member, spouse } = await hiredFamily(w);
    const hired = await newHireElection(w, member, [visionCare(w)]);
    const [hire] = await changesOf(w, hired);

    const first = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(first.record.benefit_changes).toEqual([hire!.id]);
    await nothingToSend(w, w.groups.ediGroup.id);

    t.clock.set('2026-03-03T15:00:00.000Z');
    const married = await lifeEventElection(w, member, 'marriage', '2026-04-01', [visionCare(w, [spouse])]);
    const [marriage] = await changesOf(w, married);
    const second = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(second.record.benefit_changes).toEqual([marriage!.id]);
    expect(memberLoops(second).map((loop) => loop[2])).toEqual(['001', '021']);
    await nothingToSend(w, w.groups.ediGroup.id);

    // GET /edi_files/{id} lists what each file carried, for good.
    expect((await ok(w.admin.get(`/edi_files/${first.record.id}`))).benefit_changes).toEqual([hire!.id]);
    expect((await ok(w.admin.get(`/edi_files/${second.record.id}`))).benefit_changes).toEqual([marriage!.id]);
    const listed = (await ok(w.admin.get(`/edi_files?group=${w.groups.ediGroup.id}`))).results as EdiFileRecord[];
    expect(listed.map((file) => [file.id, file.benefit_changes])).toEqual([
      [second.record.id, [marriage!.id]],
      [first.record.id, [hire!.id]],
    ]);
  });

  it('when a line has no HD03 code in the guide (life), then it is not in the file and its change waits (awaiting_file) until the profile maps line_of_coverage_codes.life', async () => {
    const w = await ediWorld();
    const life = await planIn(w, w.groups.ediGroup.id, {
      plan_name: 'Group Life',
      line_of_coverage: 'life',
      premium_type: undefined,
      composite_rates: undefined,
      guaranteed_issue_volume: '50000.00',
    });
    const { member } = await hiredFamily(w);
    const hired = await newHireElection(w, member, [visionCare(w), election(life, [], { requested_volume: '20000.00' })]);
    const changeOf = async (line: string) => (await changesOf(w, hired)).find((change) => change.line_of_coverage === line)!;

    const first = await buildFile(w, { group: w.groups.ediGroup.id });
    expect(coverageLoops(first)).toEqual([['021', 'VIS', 'EMP']]);
    expect(first.record.benefit_changes).toEqual([(await changeOf('vision')).id]);
    await ok(w.admin.post(`/edi_files/${first.record.id}/deliver`));
    expect((await changeOf('vision')).delivery_state).toBe('sent');
    expect((await changeOf('life')).delivery_state).toBe('awaiting_file');
    // Still nothing the guide can carry.
    await nothingToSend(w, w.groups.ediGroup.id);
    expect((await changeOf('life')).delivery_state).toBe('awaiting_file');

    // The carrier's companion guide gives life a code: the change goes in the next file.
    await putProfile(w, w.groups.ediGroup.id, { companion_guide: { subscriber_id_source: 'ssn', line_of_coverage_codes: { life: 'LIF' } } });
    const second = await buildFile(w, { group: w.groups.ediGroup.id }, { companionGuideLineCodes: ['LIF'] });
    expect(coverageLoops(second)).toEqual([['021', 'LIF', 'EMP']]);
    expect(second.record.benefit_changes).toEqual([(await changeOf('life')).id]);
    await ok(w.admin.post(`/edi_files/${second.record.id}/deliver`));
    expect((await changeOf('life')).delivery_state).toBe('sent');
  });
});

/** A member's SSN as stored before the API checked SSNs (straight into the database, without a digest). */
async function storeLegacySsn(memberId: string, ssn: string): Promise<void> {
  await t.database.db
    .updateTable('members')
    .set({ ssn_encrypted: new Encrypter(TEST_ENCRYPTION_KEY).encrypt(ssn), ssn_last_four: ssn.slice(-4), ssn_digest: null })
    .where('id', '=', memberId)
    .execute();
}

/** The group's edi_left_out events, oldest first. */
async function leftOutEvents(w: EnrollmentWorld) {
  const events = (await ok(w.admin.get('/events?type=edi_left_out.*&page_size=100'))).results as {
    event_type: string;
    object_id: string;
    data: Record<string, unknown>;
  }[];
  return events.filter((event) => event.data.group === w.groups.ediGroup.id).reverse();
}

describe('members left out of change files (docs/decisions.md "Carrier EDI", left out)', () => {
  const NOT_ISSUED = 'NM109: is not an SSN the SSA issues';

  it('when a member stored with an SSN the SSA never issues has changes waiting, then one file reports them (left_out, one event), later files do not repeat it, and once corrected they go in the next file and the report is cleared', async () => {
    const w = await ediWorld();
    const group = w.groups.ediGroup.id;
    const good = await hiredFamily(w, { firstName: 'Good', ssn: '123456789' });
    const legacy = await hiredFamily(w, { firstName: 'Legacy', ssn: '234567890' });
    await newHireElection(w, good.member, [visionCare(w)]);
    const legacyHire = await newHireElection(w, legacy.member, [visionCare(w)]);
    await storeLegacySsn(legacy.member.id, '000451234');

    const first = await buildFile(w, { group });
    expect(first.record.left_out).toEqual([{ member: legacy.member.id, reason: NOT_ISSUED }]);
    expect(
      segmentsNamed(first, 'REF')
        .filter((ref) => ref['1'] === '0F')
        .map((ref) => ref['2']),
    ).toEqual(['123456789']);
    expect(first.content).not.toContain('000451234');

    t.clock.set('2026-03-03T15:00:00.000Z');
    await lifeEventElection(w, good.member, 'marriage', '2026-04-01', [visionCare(w, [good.spouse])]);
    const second = await buildFile(w, { group });
    expect(second.record.left_out).toEqual([]);
    expect(
      segmentsNamed(second, 'REF')
        .filter((ref) => ref['1'] === '0F')
        .map((ref) => ref['2']),
    ).toEqual(['123456789', '123456789']);
    const [legacyChange] = await changesOf(w, legacyHire);
    expect(legacyChange!.delivery_state).toBe('awaiting_file');

    const events = await leftOutEvents(w);
    expect(events.map((event) => [event.event_type, event.data])).toEqual([
      ['edi_left_out.created', { employer: w.employer.id, group, member: legacy.member.id, reason: NOT_ISSUED, edi_file: first.record.id }],
    ]);
    const standing = (await ok(w.admin.get(`/edi_left_out?group=${group}`))).results;
    expect(standing).toEqual([
      {
        id: events[0]!.object_id,
        group,
        employer: w.employer.id,
        member: legacy.member.id,
        reason: NOT_ISSUED,
        edi_file: first.record.id,
        created_at: '2026-03-02T15:00:00.000Z',
      },
    ]);
    expect(JSON.stringify([events, standing])).not.toMatch(/000451234|1234/);

    // Corrected through the API: the waiting change goes in the next file, and the report is cleared (with its event).
    await ok(w.admin.patch(`/members/${legacy.member.id}`, { ssn: '234567890' }));
    t.clock.set('2026-03-04T15:00:00.000Z');
    const third = await buildFile(w, { group });
    expect(third.record.left_out).toEqual([]);
    expect(third.record.benefit_changes).toEqual([legacyChange!.id]);
    expect((await ok(w.admin.get(`/edi_left_out?group=${group}`))).results).toEqual([]);
    expect((await leftOutEvents(w)).map((event) => event.event_type)).toEqual(['edi_left_out.created', 'edi_left_out.deleted']);

    // A later problem is a new report: here everyone waiting is left out, so no file is written; the answer is a
    // 409 that counts them by reason (the same words every time) and the report is recorded once.
    await storeLegacySsn(legacy.member.id, '123001234');
    t.clock.set('2026-03-05T15:00:00.000Z');
    await lifeEventElection(w, legacy.member, 'marriage', '2026-04-01', [visionCare(w, [legacy.spouse])]);
    const refused = await w.admin.post('/edi_files', { group, kind: 'change' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.type).toBe('invalid_state');
    expect(refused.body.message).toContain(`every member with changes waiting (1) is left out of the 834 (1 × ${NOT_ISSUED})`);
    expect(refused.text).not.toContain(legacy.member.id);
    expect(refused.text).not.toMatch(/123001234|1234/);
    const again = await w.admin.post('/edi_files', { group, kind: 'change' });
    expect([again.status, again.body.message]).toEqual([409, refused.body.message]);
    const after = await leftOutEvents(w);
    expect(after.map((event) => event.event_type)).toEqual(['edi_left_out.created', 'edi_left_out.deleted', 'edi_left_out.created']);
    expect(after[2]!.data).toMatchObject({ member: legacy.member.id, reason: NOT_ISSUED, edi_file: null });
    expect((await ok(w.admin.get(`/edi_left_out?member=${legacy.member.id}`))).results).toMatchObject([{ member: legacy.member.id, edi_file: null }]);
    expect((await ok(w.admin.get('/edi_files?group=' + group))).results).toHaveLength(3);
    expect(t.logs.join('\n')).not.toMatch(/000451234|123001234/);
  });

  it('when full files leave a member out, then each lists them (the admin confirming it must see who), and the report and its event are made once', async () => {
    const w = await ediWorld();
    const group = w.groups.ediGroup.id;
    const good = await hiredFamily(w, { firstName: 'Good', ssn: '123456789' });
    const legacy = await hiredFamily(w, { firstName: 'Legacy', ssn: '234567890' });
    await newHireElection(w, good.member, [visionCare(w)]);
    await newHireElection(w, legacy.member, [visionCare(w)]);
    await storeLegacySsn(legacy.member.id, '123450000');

    const first = await buildFile(w, { group, kind: 'full' });
    const second = await buildFile(w, { group, kind: 'full' });
    for (const file of [first, second]) {
      expect(file.record.left_out).toEqual([{ member: legacy.member.id, reason: NOT_ISSUED }]);
      expect(file.record.member_count).toBe(1);
    }
    expect((await leftOutEvents(w)).map((event) => [event.event_type, event.data.edi_file])).toEqual([['edi_left_out.created', first.record.id]]);
  });

  it("when the scheduler's build finds everyone waiting left out, then it writes no file, reports them once and counts the day as done", async () => {
    const w = await ediWorld();
    const legacy = await hiredFamily(w, { firstName: 'Legacy', ssn: '234567890' });
    await newHireElection(w, legacy.member, [visionCare(w)]);
    await storeLegacySsn(legacy.member.id, '900451234');
    const files = t.services.ediFiles;
    const scheduled = await t.database.db
      .selectFrom('edi_profiles')
      .select(['group_id', 'provider_id'])
      .where('group_id', '=', w.groups.ediGroup.id)
      .executeTakeFirstOrThrow();

    expect(await files.buildScheduledChangeFile(scheduled, '2026-03-02')).toEqual({ claimed: true, file: undefined });
    expect(await files.buildScheduledChangeFile(scheduled, '2026-03-02')).toEqual({ claimed: false, file: undefined });
    expect(await files.buildScheduledChangeFile(scheduled, '2026-03-03')).toEqual({ claimed: true, file: undefined });

    expect((await leftOutEvents(w)).map((event) => [event.event_type, event.data.member, event.data.edi_file])).toEqual([
      ['edi_left_out.created', legacy.member.id, null],
    ]);
    expect((await ok(w.admin.get(`/edi_files?group=${w.groups.ediGroup.id}`))).results).toEqual([]);
  });

  it("when another employer's key lists left-out members, then it sees none of this employer's", async () => {
    const w = await ediWorld();
    const legacy = await hiredFamily(w, { firstName: 'Legacy', ssn: '234567890' });
    await newHireElection(w, legacy.member, [visionCare(w)]);
    await storeLegacySsn(legacy.member.id, '666451234');
    expect((await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' })).status).toBe(409);
    expect((await ok(w.admin.get(`/edi_left_out?member=${legacy.member.id}`))).results).toHaveLength(1);
    const otherEmployer = await createEmployer(w.admin);
    const other = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', { role: 'read_only', employer: otherEmployer.id }), 201)).key);
    expect((await ok(other.get(`/edi_left_out?member=${legacy.member.id}`))).results).toEqual([]);
  });
});
