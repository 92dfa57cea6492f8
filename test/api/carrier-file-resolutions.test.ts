/**
 * Resolving a carrier file's discrepancies (docs/decisions.md "Carrier files", Resolving discrepancies): resend
 * (a benefit change that reaches the carrier like any other: manual completion, the next 834 change file; or the
 * demographics in the next 834) or accept the carrier's demographics, once per discrepancy, audited and announced.
 * Through the API on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld, giveEdiProfile } from '../helpers/enrollment-world.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { CENSUS_HEADER, census, heldMember } from '../helpers/carrier-file-world.ts';
import { ApiClient, createTestApp, ok, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant, type EdiFileRecord } from '../helpers/x12.ts';

// Clock: 2026-03-02 (the test app's). The world's medical and life plans are on its manual group (no EDI
// profile: subscriber ids are member ids); vision is on its edi group, given a profile sending member ids.
let t: TestContext;
let w: EnrollmentWorld;
beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
  await giveEdiProfile(w, 'member_id');
});
afterAll(async () => {
  await t.close();
});

interface Discrepancy {
  index: number;
  kind: string;
  member: string | null;
  dependent: string | null;
  line_of_coverage: string | null;
  fields: string[];
  carrier: Record<string, unknown> | null;
  resolution: null | { action: string; resolved_at: string; resolved_by: string; note: string | null; benefit_changes: string[]; fields_changed: string[] };
}

async function compare(group: { id: string }, rows: string[][], asOf = '2026-03-02') {
  return ok(w.admin.post(`/groups/${group.id}/carrier_files`, { format: 'csv', content: census(rows), as_of: asOf }), 201);
}

function discrepancyOf(file: { discrepancies: Discrepancy[] }, kind: string, member: string | null): Discrepancy {
  const found = file.discrepancies.find((d) => d.kind === kind && d.member === member);
  if (!found) throw new Error(`No ${kind} discrepancy of ${member}: ${JSON.stringify(file.discrepancies)}`);
  return found;
}

function resolve(client: ApiClient, fileId: string, body: Record<string, unknown>) {
  return client.post(`/carrier_files/${fileId}/resolutions`, body);
}

/** Resolves and returns the discrepancy as the answer shows it. */
async function resolved(fileId: string, index: number, action: string, note?: string): Promise<Discrepancy> {
  const file = await ok(resolve(w.admin, fileId, { discrepancy: index, action, ...(note === undefined ? {} : { note }) }), 201);
  return (file.discrepancies as Discrepancy[])[index]!;
}

async function benefitChange(id: string) {
  return ok(w.admin.get(`/benefit_changes/${id}`));
}

const row = (member: string, overrides: Partial<Record<(typeof CENSUS_HEADER)[number], string>> = {}) => {
  const values: Record<string, string> = {
    subscriber_id: member,
    relationship: 'employee',
    line_of_coverage: 'medical',
    plan: 'Gold PPO',
    first_name: '',
    last_name: '',
    dob: '',
    coverage_level: '',
    coverage_start: '',
    coverage_end: '',
    ...overrides,
  };
  return CENSUS_HEADER.map((name) => values[name]!);
};

describe('resend: a benefit change of our truth, handed to the group like any other (manual completion here)', () => {
  it('when a member we cover is missing from the file and an admin resends, then a `new` change of our coverage waits for manual completion, the resolution is audited and announced, and the enrollment stays synced', async () => {
    const { member, enrollment } = await heldMember(w, 'Ana');
    const file = await compare(w.groups.manualGroup, []);
    const missing = discrepancyOf(file, 'missing', member.id);
    expect(missing.carrier).toEqual({ plan: null, coverage_start: null, coverage_end: null, coverage_level: null, dependents: [] });
    expect(missing.resolution).toBeNull();

    const after = await resolved(file.id, missing.index, 'resend', 'Carrier portal shows no coverage');
    expect(after.resolution).toMatchObject({
      action: 'resend',
      resolved_at: '2026-03-02T15:00:00.000Z',
      note: 'Carrier portal shows no coverage',
      fields_changed: [],
    });
    expect(after.resolution!.resolved_by).toMatch(/^key_/);
    const [changeId] = after.resolution!.benefit_changes;
    expect(after.resolution!.benefit_changes).toHaveLength(1);
    const change = await benefitChange(changeId!);
    expect(change).toMatchObject({
      enrollment: enrollment.id,
      line_of_coverage: 'medical',
      status: 'new',
      previous_enrollment_plan: null,
      next_enrollment_plan: enrollment.enrolled_plans[0].id,
      coverage_start: '2026-01-01',
      connection_method: 'manual',
      delivery_state: 'manual',
      needs_manual_completion: true,
    });
    // The enrollment the coverage belongs to does not move (synced has no way back to approved).
    expect((await ok(w.admin.get(`/enrollments/${enrollment.id}`))).status).toBe('synced');
    // It reaches the carrier by hand, like any manual change.
    expect(await ok(w.admin.patch(`/benefit_changes/${changeId}`, { completed_at: '2026-03-02T15:00:00Z' }))).toMatchObject({ delivery_state: 'completed' });
    expect((await ok(w.admin.get(`/enrollments/${enrollment.id}`))).status).toBe('synced');

    expect((await ok(w.admin.get(`/carrier_files/${file.id}`))).discrepancies[missing.index]).toEqual(after);
    const events = await ok(w.admin.get(`/events?type=carrier_file.discrepancy_resolved&object_id=${file.id}`));
    expect(events.results).toHaveLength(1);
    expect(events.results[0]).toMatchObject({
      object_type: 'carrier_file',
      object_id: file.id,
      employer: w.employer.id,
      data: { employer: w.employer.id, group: w.groups.manualGroup.id, discrepancy: missing.index, action: 'resend', member: member.id },
    });
    // The comparison itself was announced when it was made.
    expect((await ok(w.admin.get(`/events?type=carrier_file.created&object_id=${file.id}`))).results).toHaveLength(1);
    const createdEvents = await ok(w.admin.get(`/events?type=benefit_change.created&object_id=${changeId}`));
    expect(createdEvents.results).toHaveLength(1);
  });

  it.each([
    ['plan', { plan: 'Silver HMO' }, ['plan_change'], { plan: 'Silver HMO' }],
    ['dates', { coverage_start: '2026-02-01', coverage_end: '2026-06-30' }, ['date_change'], { coverage_start: '2026-02-01', coverage_end: '2026-06-30' }],
  ])(
    'when the file has another %s and an admin resends, then a `change` of our coverage from what was told names it',
    async (kind, overrides, changes, carrier) => {
      const { member, enrollment } = await heldMember(w, `Plan${kind}`);
      const file = await compare(w.groups.manualGroup, [row(member.id, overrides)]);
      const discrepancy = discrepancyOf(file, kind, member.id);
      expect(discrepancy.carrier).toMatchObject({ ...carrier, dependents: [] });
      const after = await resolved(file.id, discrepancy.index, 'resend');
      const change = await benefitChange(after.resolution!.benefit_changes[0]!);
      expect(change).toMatchObject({
        enrollment: enrollment.id,
        status: 'change',
        changes,
        previous_enrollment_plan: enrollment.enrolled_plans[0].id,
        next_enrollment_plan: enrollment.enrolled_plans[0].id,
        delivery_state: 'manual',
      });
    },
  );

  it('when the file lacks a child and gives another tier, then resending either records a `change` naming the dependents (who is covered decides the tier)', async () => {
    const { member, people, enrollment } = await heldMember(w, 'Cleo', [{ relationship: 'child', first_name: 'Kim', dob: '2015-06-01' }]);
    const file = await compare(w.groups.manualGroup, [row(member.id, { coverage_level: 'member' })]);
    const dependents = discrepancyOf(file, 'dependents', member.id);
    const tier = discrepancyOf(file, 'tier', member.id);
    expect(tier.carrier).toMatchObject({ coverage_level: ['member'] });
    for (const discrepancy of [dependents, tier]) {
      const after = await resolved(file.id, discrepancy.index, 'resend');
      expect(await benefitChange(after.resolution!.benefit_changes[0]!)).toMatchObject({
        enrollment: enrollment.id,
        status: 'change',
        changes: ['dependent_change'],
      });
    }
    expect(people).toHaveLength(1);
    // Told again after the enrollment's own changes, in the order resolved.
    const listed = (await ok(w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`))) as { status: string }[];
    expect(listed.map((c) => c.status).slice(-2)).toEqual(['change', 'change']);
  });

  it('when the carrier still holds coverage a termination ended and an admin resends, then the removal is told again with its last day; extra coverage never told is a 409', async () => {
    const { member, enrollment } = await heldMember(w, 'Dale');
    await ok(w.admin.patch(`/members/${member.id}`, { termination_date: '2026-02-10', termination_reason: 'voluntary' }));
    // The termination's removal (of its own enrollment), as the ledger told it.
    const removal = await t.database.db
      .selectFrom('benefit_changes')
      .select(['coverage_end'])
      .where('member_id', '=', member.id)
      .where('status', '=', 'removed')
      .executeTakeFirstOrThrow();
    const file = await compare(w.groups.manualGroup, [row(member.id), row(member.id, { line_of_coverage: 'life', plan: 'Basic Life' })]);
    const extras = file.discrepancies.filter((d: Discrepancy) => d.kind === 'extra' && d.member === member.id) as Discrepancy[];
    expect(extras.map((d) => d.line_of_coverage)).toEqual(['life', 'medical']);
    const [life, medical] = extras;

    const after = await resolved(file.id, medical!.index, 'resend');
    const change = await benefitChange(after.resolution!.benefit_changes[0]!);
    expect(change).toMatchObject({
      status: 'removed',
      previous_enrollment_plan: enrollment.enrolled_plans[0].id,
      next_enrollment_plan: null,
      coverage_start: '2026-01-01',
      delivery_state: 'manual',
    });
    expect(change.coverage_end < '2026-03-02').toBe(true);
    expect(change.coverage_end).toBe(removal.coverage_end);

    const never = await resolve(w.admin, file.id, { discrepancy: life!.index, action: 'resend' });
    expect(never.status).toBe(409);
    expect(never.body).toMatchObject({ type: 'resolution_not_applicable' });
    expect(never.body.message).toContain('nothing to resend');
    expect((await ok(w.admin.get(`/carrier_files/${file.id}`))).discrepancies[life!.index].resolution).toBeNull();
  });

  it('when the file holds a subscriber id of nobody, then resending it is a 409: nothing of ours describes that coverage', async () => {
    const file = await compare(w.groups.manualGroup, [row('mem_nobody', { first_name: 'Zed', dob: '1970-01-01' })]);
    const unknown = discrepancyOf(file, 'extra', null);
    expect(unknown.carrier).toEqual({ plan: 'Gold PPO', coverage_start: null, coverage_end: null, coverage_level: null, dependents: [] });
    const response = await resolve(w.admin, file.id, { discrepancy: unknown.index, action: 'resend' });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('resolution_not_applicable');
    expect(response.text).not.toContain('mem_nobody');
  });
});

describe('resend on an edi group: the next 834 change file carries it', () => {
  type Built = { record: EdiFileRecord; content: string };
  async function buildFile(): Promise<Built> {
    const record = (await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' }), 201)) as EdiFileRecord;
    const download = await w.admin.get(`/edi_files/${record.id}/content`);
    expect(download.status, download.text).toBe(200);
    await expectGuideConformant(record, download.text);
    return { record, content: download.text };
  }

  it('when a member sent in an 834 is missing from the carrier file, or the carrier holds another name, then resending puts the add in the next change file, and the demographics in the one after (INS04 25)', async () => {
    const member = await createMember(w.admin, {
      employer: w.employer.id,
      first_name: 'Avery',
      last_name: 'Stone',
      dob: '1990-07-14',
      hire_date: '2026-03-01',
    });
    await approvedEnrollment(w, {
      member: member.id,
      category: 'qle',
      reason: 'new_hire',
      change_date: '2026-03-01',
      effective_start: '2026-03-01',
      enrolled_plans: [{ plan: w.plans.vision.id }],
    });
    const first = await buildFile();
    expect(first.content).toContain(`REF*0F*${member.id}~`);
    expect((await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' })).status).toBe(409);

    const missingFile = await compare(w.groups.ediGroup, []);
    const missing = discrepancyOf(missingFile, 'missing', member.id);
    const resent = await resolved(missingFile.id, missing.index, 'resend');
    const [changeId] = resent.resolution!.benefit_changes;
    expect(await benefitChange(changeId!)).toMatchObject({ status: 'new', connection_method: 'edi', delivery_state: 'awaiting_file' });
    const second = await buildFile();
    expect(second.record.benefit_changes).toEqual([changeId]);
    expect(second.content).toContain(`REF*0F*${member.id}~`);
    expect(second.content).toMatch(/HD\*021\*\*VIS/);

    const renamed = await compare(w.groups.ediGroup, [
      row(member.id, { line_of_coverage: 'vision', plan: 'Vision Care', first_name: 'Avery', last_name: 'Stoner' }),
    ]);
    const demographics = discrepancyOf(renamed, 'demographics', member.id);
    expect(demographics.carrier).toEqual({ first_name: 'Avery', last_name: 'Stoner', dob: null });
    const marked = await resolved(renamed.id, demographics.index, 'resend');
    expect(marked.resolution).toMatchObject({ action: 'resend', benefit_changes: [], fields_changed: [] });
    const third = await buildFile();
    expect(third.record.benefit_changes).toEqual([]);
    // A loop of its own: INS03 001, INS04 25 (change in identifying data), our name in 2100A.
    expect(third.content).toMatch(/INS\*Y\*18\*001\*25/);
    expect(third.content).toContain('NM1*IL*1*Stone*Avery');
    // Sent once.
    expect((await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' })).status).toBe(409);
  });

  it("when the carrier holds another name of a dependent sent in an 834, then resending puts the dependent's correction in the next change file", async () => {
    const member = await createMember(w.admin, { employer: w.employer.id, first_name: 'Rowan', last_name: 'Park', dob: '1988-02-02', hire_date: '2026-03-01' });
    const spouse = await createDependent(w.admin, {
      member: member.id,
      member_relationship: 'spouse',
      first_name: 'Sky',
      last_name: 'Park',
      dob: '1989-11-03',
    });
    await approvedEnrollment(w, {
      member: member.id,
      category: 'qle',
      reason: 'new_hire',
      change_date: '2026-03-01',
      effective_start: '2026-03-01',
      enrolled_plans: [{ plan: w.plans.vision.id, enrolled_dependents: [{ dependent: spouse.id }] }],
    });
    await buildFile();
    const renamed = await compare(w.groups.ediGroup, [
      row(member.id, { line_of_coverage: 'vision', plan: 'Vision Care' }),
      row(member.id, { relationship: 'spouse', line_of_coverage: 'vision', plan: 'Vision Care', first_name: 'Sky', last_name: 'Parks', dob: '1989-11-03' }),
    ]);
    const demographics = renamed.discrepancies.find((d: Discrepancy) => d.kind === 'demographics' && d.dependent === spouse.id) as Discrepancy;
    await resolved(renamed.id, demographics.index, 'resend');
    const next = await buildFile();
    expect(next.content).toMatch(/INS\*Y\*18\*001\*XN/);
    expect(next.content).toMatch(/INS\*N\*01\*001\*25/);
    expect(next.content).toContain('NM1*IL*1*Park*Sky');
  });

  it('when the group is not edi, then resending demographics is a 409 that says why', async () => {
    const { member } = await heldMember(w, 'Eve');
    const file = await compare(w.groups.manualGroup, [row(member.id, { last_name: 'Stoner' })]);
    const response = await resolve(w.admin, file.id, { discrepancy: discrepancyOf(file, 'demographics', member.id).index, action: 'resend' });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('resolution_not_applicable');
    expect(response.body.message).toContain('demographics reach a carrier only in an 834');
  });
});

describe("accept_carrier_value: the carrier's demographics become ours, through the member and dependent updates", () => {
  it("when the carrier holds another last name of the member and another of a dependent, then accepting writes each with its updated event, in the resolution's transaction", async () => {
    const { member, people } = await heldMember(w, 'Gus', [{ relationship: 'child', first_name: 'Hal', dob: '2016-01-01' }]);
    const file = await compare(w.groups.manualGroup, [
      row(member.id, { first_name: 'Gus', last_name: 'Stoner', dob: '1980-01-02' }),
      row(member.id, { relationship: 'child', first_name: 'Hal', last_name: 'Rivers', dob: '2016-01-01' }),
    ]);
    const ofMember = file.discrepancies.find((d: Discrepancy) => d.kind === 'demographics' && d.dependent === null) as Discrepancy;
    const ofChild = file.discrepancies.find((d: Discrepancy) => d.kind === 'demographics' && d.dependent === people[0]!.id) as Discrepancy;
    expect(ofMember.fields).toEqual(['last_name', 'dob']);

    const memberAfter = await resolved(file.id, ofMember.index, 'accept_carrier_value');
    expect(memberAfter.resolution).toMatchObject({ action: 'accept_carrier_value', benefit_changes: [], fields_changed: ['last_name', 'dob'] });
    expect(await ok(w.admin.get(`/members/${member.id}`))).toMatchObject({ first_name: 'Gus', last_name: 'Stoner', dob: '1980-01-02' });
    const childAfter = await resolved(file.id, ofChild.index, 'accept_carrier_value');
    expect(childAfter.resolution).toMatchObject({ fields_changed: ['last_name'] });
    expect(await ok(w.admin.get(`/dependents/${people[0]!.id}`))).toMatchObject({ first_name: 'Hal', last_name: 'Rivers', dob: '2016-01-01' });

    expect((await ok(w.admin.get(`/events?type=member.updated&object_id=${member.id}`))).results).toHaveLength(1);
    expect((await ok(w.admin.get(`/events?type=dependent.updated&object_id=${people[0]!.id}`))).results).toHaveLength(1);
    expect((await ok(w.admin.get(`/events?type=carrier_file.discrepancy_resolved&object_id=${file.id}`))).results).toHaveLength(2);
  });

  it('when the discrepancy is about coverage, then accepting is a 409 resolution_not_applicable: coverage changes only through an enrollment', async () => {
    const { member } = await heldMember(w, 'Ivy');
    const file = await compare(w.groups.manualGroup, [row(member.id, { plan: 'Silver HMO' })]);
    const response = await resolve(w.admin, file.id, { discrepancy: discrepancyOf(file, 'plan', member.id).index, action: 'accept_carrier_value' });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('resolution_not_applicable');
    expect(response.body.message).toContain('only through an enrollment');
  });

  it('when the comparison was stored before the carrier values were kept, then accepting is a 409 that says so, and the member is unchanged', async () => {
    const { member } = await heldMember(w, 'Jo');
    const file = await compare(w.groups.manualGroup, [row(member.id, { last_name: 'Stoner' })]);
    const stored = JSON.parse(
      (await t.database.db.selectFrom('carrier_files').select('discrepancies').where('id', '=', file.id).executeTakeFirstOrThrow()).discrepancies,
    ) as Record<string, unknown>[];
    await t.database.db
      .updateTable('carrier_files')
      .set({ discrepancies: JSON.stringify(stored.map(({ carrier: _carrier, ...rest }) => rest)) })
      .where('id', '=', file.id)
      .execute();
    const old = await ok(w.admin.get(`/carrier_files/${file.id}`));
    expect(old.discrepancies[0].carrier).toBeNull();
    const response = await resolve(w.admin, file.id, { discrepancy: discrepancyOf(old, 'demographics', member.id).index, action: 'accept_carrier_value' });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe('resolution_not_applicable');
    expect(response.body.message).toContain('stored before');
    expect((await ok(w.admin.get(`/members/${member.id}`))).last_name).toBe('Stone');
  });
});

describe('refusals and races', () => {
  it('when a discrepancy is resolved twice, or twice at once, then exactly one resolution wins and the other is a 409 with nothing of it kept', async () => {
    const { member, enrollment } = await heldMember(w, 'Kai');
    const file = await compare(w.groups.manualGroup, []);
    const missing = discrepancyOf(file, 'missing', member.id);
    const answers = await Promise.all([0, 1].map(() => resolve(w.admin, file.id, { discrepancy: missing.index, action: 'resend' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const lost = answers.find((answer) => answer.status === 409)!;
    expect(lost.body.type).toBe('invalid_state');
    const again = await resolve(w.admin, file.id, { discrepancy: missing.index, action: 'accept_carrier_value' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('resolved already');
    const changes = (await ok(w.admin.get(`/enrollments/${enrollment.id}/benefit_changes`))) as { status: string }[];
    expect(changes.filter((change) => change.status === 'new')).toHaveLength(1);
    expect((await ok(w.admin.get(`/events?type=carrier_file.discrepancy_resolved&object_id=${file.id}`))).results).toHaveLength(1);
    // The backstop when two get past the check: the database refuses a second row for the discrepancy.
    const [stored] = await t.database.db.selectFrom('carrier_file_resolutions').selectAll().where('carrier_file_id', '=', file.id).execute();
    await expect(
      t.database.db
        .insertInto('carrier_file_resolutions')
        .values({ ...stored!, id: 'cfr_second' })
        .execute(),
    ).rejects.toThrow();
  });

  it('when the index is unknown or the body is not a resolution, then 400 at its field; another provider gets 404; non-admin keys 403 (even with a bad body)', async () => {
    const { member } = await heldMember(w, 'Lou');
    const file = await compare(w.groups.manualGroup, []);
    const index = discrepancyOf(file, 'missing', member.id).index;
    const unknown = await resolve(w.admin, file.id, { discrepancy: file.discrepancies.length, action: 'resend' });
    expect(unknown.status).toBe(400);
    expect(errorFields(unknown)).toEqual(['discrepancy']);
    for (const [body, field] of [
      [{ discrepancy: -1, action: 'resend' }, 'discrepancy'],
      [{ discrepancy: index, action: 'ignore' }, 'action'],
      [{ discrepancy: index, action: 'resend', note: 'x'.repeat(1001) }, 'note'],
    ] as const) {
      const response = await resolve(w.admin, file.id, body);
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual([field]);
    }
    const other = await newProviderAdmin(t, 'resolutions-other');
    expect((await resolve(other, file.id, { discrepancy: index, action: 'resend' })).status).toBe(404);
    expect((await resolve(w.admin, 'cf_000000000000000000000000', { discrepancy: 0, action: 'resend' })).status).toBe(404);
    for (const body of [{ role: 'employer', employer: w.employer.id }, { role: 'read_only' }]) {
      const client = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', body), 201)).key);
      expect((await resolve(client, file.id, { discrepancy: index, action: 'resend' })).status).toBe(403);
      expect((await resolve(client, file.id, { nonsense: true })).status).toBe(403);
    }
    expect((await ok(w.admin.get(`/carrier_files/${file.id}`))).discrepancies[index].resolution).toBeNull();
  });
});
