import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';
import { createInvariantChecker, type Violation } from './invariants.ts';

// Each world is a provider of its own (enrollment-world.ts, plan year 2026) with one short story: coverage the
// carriers hold since January, open enrollment from April (the vision line's 834 built, delivered and accepted
// by a 999), then the member's termination on April 10 recorded on April 15 (coverage ends at once, a COBRA
// event, a second 834 accepted). The story breaks no invariant; each test below breaks one on purpose.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const MEMBER_SSN = '521443817';
const US = { qualifier: 'ZZ', id: 'BENEFITSCO' };
const CARRIER = { qualifier: 'ZZ', id: 'WORLDHEALTH' };

/** The carrier's 999 accepting a file (its ISA as the sender, AK1 naming the file's GS06). */
function accepting999(groupControlNumber: number): string {
  const padded = (id: string) => id.padEnd(15, ' ');
  const isa = ['ISA', '00', ' '.repeat(10), '00', ' '.repeat(10), CARRIER.qualifier, padded(CARRIER.id), US.qualifier, padded(US.id)];
  const body = ['ST*999*0001*005010X231A1', `AK1*BE*${groupControlNumber}*005010X220A1`, 'AK2*834*0001*005010X220A1', 'IK5*A', 'AK9*A*1*1*1'];
  return [
    `${[...isa, '260302', '1500', '^', '00501', '000000701', '0', 'T', ':'].join('*')}~`,
    'GS*FA*WORLDHEALTH*BENEFITSCO*20260302*1500*701*X*005010X231A1~',
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    'GE*1*701~',
    'IEA*1*000000701~',
  ].join('\n');
}

/** Builds the edi group's change file, delivers it and has the carrier accept it; returns it with its content. */
async function acceptedFile(w: EnrollmentWorld) {
  const file = await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' }), 201);
  const content = (await w.admin.get(`/edi_files/${file.id}/content`)).text;
  await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
  await ok(w.admin.post(`/edi_files/${file.id}/acknowledgements`, { content: accepting999(file.group_control_number) }));
  return { id: file.id as string, content };
}

interface Story {
  w: EnrollmentWorld;
  providerId: string;
  files: { id: string; content: string }[];
  /** The open enrollment's vision enrolled plan and its benefit change (in the first file). */
  openEnrollmentVision: { enrolledPlanId: string; changeId: string };
  /** The termination's vision benefit change (in the second file). */
  terminationVisionChangeId: string;
}

/** The world and its story up to April 15 (see the top of the file); `between` runs after open enrollment. */
async function story(
  between: (w: EnrollmentWorld, providerId: string, files: { id: string; content: string }[]) => Promise<void> = async () => {},
): Promise<Story> {
  t.clock.set('2026-03-02T15:00:00.000Z');
  const w = await createEnrollmentWorld(t);
  const providerId = (await t.database.db.selectFrom('employers').select('provider_id').where('id', '=', w.employer.id).executeTakeFirstOrThrow()).provider_id;
  await ok(w.admin.patch(`/members/${w.member.id}`, { ssn: MEMBER_SSN }));
  await ok(
    w.admin.request('PUT', `/groups/${w.groups.ediGroup.id}/edi_profile`, {
      body: {
        interchange_sender: US,
        interchange_receiver: CARRIER,
        application_sender_code: 'BENEFITSCO',
        application_receiver_code: 'WORLDHEALTH',
        sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
        payer: { name: 'World Health Co', id: '987654321' },
        delivery: { method: 'download' },
      },
    }),
  );
  const { spouse, child } = w.family;
  const covering = (...ids: string[]) => ids.map((dependent) => ({ dependent }));
  await ok(
    w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [
        { plan: w.plans.medical.id, enrolled_dependents: covering(spouse.id, child.id) },
        { plan: w.plans.dental.id, enrolled_dependents: covering(spouse.id) },
        { plan: w.plans.vision.id, enrolled_dependents: covering(spouse.id) },
      ],
    }),
    201,
  );
  // Open enrollment from April 1: the child joins vision (the edi group's 834).
  const openEnrollment = await approvedEnrollment(w, {
    enrolled_plans: [
      { plan: w.plans.medical.id, enrolled_dependents: covering(spouse.id, child.id) },
      { plan: w.plans.dental.id, enrolled_dependents: covering(spouse.id) },
      { plan: w.plans.vision.id, enrolled_dependents: covering(spouse.id, child.id) },
    ],
  });
  const files = [await acceptedFile(w)];
  await between(w, providerId, files);

  // April 15: the termination of April 10 is recorded after it, so coverage ends at once.
  t.clock.set('2026-04-15T15:00:00.000Z');
  await ok(w.admin.patch(`/members/${w.member.id}`, { termination_date: '2026-04-10', termination_reason: 'voluntary' }));
  files.push(await acceptedFile(w));

  const visionChanges = await t.database.db
    .selectFrom('benefit_changes')
    .select(['id', 'enrollment_id', 'next_enrollment_plan_id'])
    .where('member_id', '=', w.member.id)
    .where('line_of_coverage', '=', 'vision')
    .orderBy('id')
    .execute();
  const opened = visionChanges.find((change) => change.enrollment_id === openEnrollment.id)!;
  const ended = visionChanges.find((change) => change.enrollment_id !== openEnrollment.id)!;
  return {
    w,
    providerId,
    files,
    openEnrollmentVision: { enrolledPlanId: opened.next_enrollment_plan_id!, changeId: opened.id },
    terminationVisionChangeId: ended.id,
  };
}

function checkerOf(s: Story, options: { full?: boolean } = { full: true }) {
  return createInvariantChecker({ db: t.database.db, api: s.w.admin, providerId: s.providerId, ...options });
}

/** The invariants the violations name, each once, sorted; and no violation carries the SSN. */
function invariantsOf(violations: readonly Violation[]): string[] {
  expect(JSON.stringify(violations)).not.toContain(MEMBER_SSN);
  return [...new Set(violations.map((violation) => violation.invariant))].sort();
}

describe('the plan-year invariants on a clean world', () => {
  it('when coverage, elections, a termination with its COBRA event and accepted 834s all agree, then no invariant reports anything, full or incremental, day after day', async () => {
    let firstDay: Violation[] = [];
    let checker: ReturnType<typeof checkerOf> | undefined;
    const s = await story(async (w, providerId, files) => {
      checker = createInvariantChecker({ db: t.database.db, api: w.admin, providerId });
      firstDay = await checker.checkDay('2026-03-02', files);
    });
    expect(firstDay).toEqual([]);
    // Incremental: what changed since March 2 (the termination, its COBRA event, the second file).
    expect(await checker!.checkDay('2026-04-15', [s.files[1]!])).toEqual([]);
    expect(await checker!.checkDay('2026-04-16', [])).toEqual([]);
    expect(await checkerOf(s).checkDay('2026-04-16', s.files)).toEqual([]);

    const events = await t.database.db
      .selectFrom('cobra_events')
      .select(['event_type', 'maximum_coverage_months'])
      .where('member_id', '=', s.w.member.id)
      .execute();
    expect(events).toEqual([{ event_type: 'termination', maximum_coverage_months: 18 }]);
  });
});

describe('incremental checks', () => {
  it('when a member changed since the last check, then a broken invariant of theirs is found without a full check; an untouched one waits for the next full check (fullEvery)', async () => {
    let checker: ReturnType<typeof createInvariantChecker> | undefined;
    const s = await story(async (w, providerId, files) => {
      checker = createInvariantChecker({ db: t.database.db, api: w.admin, providerId, fullEvery: 3 });
      expect(await checker.checkDay('2026-03-02', files)).toEqual([]);
    });
    const db = t.database.db;
    const event = await db.selectFrom('cobra_events').select('id').where('member_id', '=', s.w.member.id).executeTakeFirstOrThrow();
    await db.updateTable('cobra_events').set({ maximum_coverage_months: 36 }).where('id', '=', event.id).execute();
    // The termination touched the member since March 2: seen on the next (incremental) day.
    expect(invariantsOf(await checker!.checkDay('2026-04-15', []))).toEqual(['cobra_event_per_loss']);
    // Nothing new on April 16: the member is not read again; April 17 is the third day, a full check.
    expect(await checker!.checkDay('2026-04-16', [])).toEqual([]);
    expect(invariantsOf(await checker!.checkDay('2026-04-17', []))).toEqual(['cobra_event_per_loss']);
  });
});

describe('each invariant fails when the world is broken on purpose, and only that one', () => {
  it('single_coverage: when a second enrolled plan covers the member on medical over the same days, then it is reported', async () => {
    const s = await story();
    const medical = await t.database.db
      .selectFrom('enrolled_plans')
      .selectAll()
      .where('member_id', '=', s.w.member.id)
      .where('plan_id', '=', s.w.plans.medical.id)
      .where('effective_start', '=', '2026-04-01')
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('enrolled_plans')
      .values({ ...medical, id: newId('enrolled_plan'), position: medical.position + 10 })
      .execute();

    const violations = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(violations)).toEqual(['single_coverage']);
    expect(violations).toEqual([expect.objectContaining({ day: '2026-04-15', detail: expect.stringContaining(`person ${s.w.member.id}`) })]);
  });

  it('no_unexplained_gap: when the open enrollment vision coverage starts four days late, then the days without it are reported', async () => {
    const s = await story();
    await t.database.db.updateTable('enrolled_plans').set({ effective_start: '2026-04-05' }).where('id', '=', s.openEnrollmentVision.enrolledPlanId).execute();

    const violations = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(violations)).toEqual(['no_unexplained_gap']);
    // The member and the spouse had vision through March 31; the child's starts late, with no gap.
    expect(violations.map((violation) => violation.detail.split(' ')[1]).sort()).toEqual([s.w.member.id, s.w.family.spouse.id].sort());
  });

  it("ledger_matches_truth: when the carrier ledger loses the row of the termination the vision carrier accepted, then reconciliation's difference with nothing pending is reported", async () => {
    const s = await story();
    await t.database.db.deleteFrom('carrier_ledger').where('benefit_change_id', '=', s.terminationVisionChangeId).execute();

    const violations = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(violations)).toEqual(['ledger_matches_truth']);
    expect(violations).toEqual([
      expect.objectContaining({
        detail: `group ${s.w.groups.ediGroup.id}, member ${s.w.member.id}, vision: the carrier's ledger differs from our coverage (extra) with no change pending`,
      }),
    ]);
  });

  it('told_once_in_order: when the termination change is also in the first accepted file, then it is reported as told twice', async () => {
    const s = await story();
    await t.database.db
      .insertInto('edi_file_changes')
      .values({ benefit_change_id: s.terminationVisionChangeId, edi_file_id: s.files[0]!.id, position: 99, returned_at: '2026-04-15T15:00:00.000Z' })
      .execute();

    const violations = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(violations)).toEqual(['told_once_in_order']);
    expect(violations[0]!.detail).toBe(
      `benefit change ${s.terminationVisionChangeId} was told in 2 accepted files: ${[s.files[0]!.id, s.files[1]!.id].sort().join(', ')}`,
    );
  });

  it('told_once_in_order: when the termination change was told in an earlier file than the open enrollment change recorded before it, then the order is reported', async () => {
    const s = await story();
    // Swap the two changes' files: the later change now reached the carrier first.
    const db = t.database.db;
    await db.deleteFrom('edi_file_changes').where('benefit_change_id', 'in', [s.openEnrollmentVision.changeId, s.terminationVisionChangeId]).execute();
    await db
      .insertInto('edi_file_changes')
      .values([
        { benefit_change_id: s.terminationVisionChangeId, edi_file_id: s.files[0]!.id, position: 0, returned_at: null },
        { benefit_change_id: s.openEnrollmentVision.changeId, edi_file_id: s.files[1]!.id, position: 0, returned_at: null },
      ])
      .execute();

    const violations = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(violations)).toEqual(['told_once_in_order']);
    expect(violations[0]!.detail).toContain(
      `benefit change ${s.terminationVisionChangeId} was told in file ${s.files[0]!.id}, before ${s.openEnrollmentVision.changeId}`,
    );
  });

  it('cobra_event_per_loss: when the COBRA event is given 36 months, records a loss that never happened, or is deleted, then each is reported', async () => {
    const s = await story();
    const db = t.database.db;
    const event = await db.selectFrom('cobra_events').select('id').where('member_id', '=', s.w.member.id).executeTakeFirstOrThrow();
    await db.updateTable('cobra_events').set({ maximum_coverage_months: 36, coverage_period_end: '2029-04-10' }).where('id', '=', event.id).execute();
    const longer = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(longer)).toEqual(['cobra_event_per_loss']);
    expect(longer.map((violation) => violation.detail)).toEqual([
      `COBRA event ${event.id} (termination of 2026-04-10) lasts 36 months to 2029-04-10; expected 18 to 2027-10-10`,
    ]);

    await db.updateTable('cobra_events').set({ maximum_coverage_months: 18, coverage_period_end: '2027-10-10' }).where('id', '=', event.id).execute();
    // A loss the event records that never happened: the child was never on dental.
    await db
      .insertInto('cobra_event_losses')
      .values({
        cobra_event_id: event.id,
        member_id: s.w.member.id,
        event_type: 'termination',
        event_date: '2026-04-10',
        coverage_lost_date: '2026-04-11',
        line_of_coverage: 'dental',
        person_id: s.w.family.child.id,
        position: 99,
      })
      .execute();
    const invented = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(invented)).toEqual(['cobra_event_per_loss']);
    expect(invented.map((violation) => violation.detail)).toEqual([
      `COBRA event ${event.id} (termination) records a loss of dental by ${s.w.family.child.id} from 2026-04-11, but that coverage does not stop then (never began, or goes on)`,
    ]);

    await db.deleteFrom('cobra_event_losses').where('cobra_event_id', '=', event.id).execute();
    await db.deleteFrom('cobra_events').where('id', '=', event.id).execute();
    const missing = await checkerOf(s).checkDay('2026-04-15', []);
    expect(invariantsOf(missing)).toEqual(['cobra_event_per_loss']);
    // Medical: member, spouse, child; dental: member, spouse; vision: member, spouse, child.
    expect(missing).toHaveLength(8);
    expect(missing[0]!.detail).toMatch(/lost (medical|dental|vision) from 2026-04-11 \(termination\): 0 COBRA events record it/);
  });

  it('x12_valid: when a day’s 834 has a segment corrupted, then the third-party check reports it', async () => {
    const s = await story();
    const [first] = s.files;
    const corrupted = { id: first!.id, content: first!.content.replace(/~HD\*021\*\*VIS\*/, '~HD*021**XYZ*') };
    expect(corrupted.content).not.toBe(first!.content);

    const violations = await checkerOf(s).checkDay('2026-04-15', [corrupted]);
    expect(invariantsOf(violations)).toEqual(['x12_valid']);
    expect(violations.map((violation) => violation.detail)).toEqual([`file ${first!.id}: HD03: "XYZ" is not a code of the guide's list`]);
  });
});
