import { describe, expect, it } from 'vitest';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// One current spouse or partner per member (src/modules/dependents/spouse-rules.ts): a divorce or dissolution
// date (relationship_end_date) ends one, an ex-spouse is never an eligible dependent after it, and a
// submission naming a second spouse or partner on a plan is a 400 at the dependent's path. The test clock
// stands at 2026-03-02.

const world = enrollmentWorldPerFile();

type Body = Record<string, unknown>;

async function newMember() {
  return createMember(world.w.admin, { employer: world.w.employer.id, dob: '1985-05-05', hire_date: '2025-01-01' });
}

/** Creates and submits a qle enrollment on medical covering the given dependents; the submit response. */
async function submitQle(member: string, dependents: readonly string[], body: Body) {
  const created = await world.w.admin.post('/enrollments', {
    member,
    category: 'qle',
    enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: dependents.map((dependent) => ({ dependent })) }],
    ...body,
  });
  if (created.status !== 201) throw new Error(`POST /enrollments answered ${created.status}: ${created.text}`);
  return world.w.admin.post(`/enrollments/${created.body.id}/save_and_submit`);
}

function inputErrors(response: { status: number; body: { input_errors?: { field_path: string[]; message: string }[] } }) {
  expect(response.status).toBe(400);
  return (response.body.input_errors ?? []).map((error) => ({ path: error.field_path.join('.'), message: error.message }));
}

describe('one current spouse or partner per member (dependent records)', () => {
  it('when a member with a spouse is given a second spouse or partner, then 400 at member_relationship naming the current one and how to end it', async () => {
    const member = await newMember();
    const spouse = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1986-02-02' });
    expect(spouse.relationship_end_date).toBeNull();
    for (const relationship of ['spouse', 'domestic_partner', 'civil_union']) {
      const response = await world.w.admin.post('/dependents', {
        member: member.id,
        first_name: 'Ana',
        last_name: 'Rivera',
        member_relationship: relationship,
        dob: '1990-01-01',
      });
      const [error, ...others] = inputErrors(response);
      expect(others).toEqual([]);
      expect(error!.path).toBe('member_relationship');
      expect(error!.message).toContain(spouse.id);
      expect(error!.message).toContain('relationship_end_date');
    }
    // A child or an ex-spouse is not a second spouse.
    await createDependent(world.w.admin, { member: member.id, member_relationship: 'child' });
    await createDependent(world.w.admin, { member: member.id, member_relationship: 'ex_spouse', dob: '1984-01-01', relationship_end_date: '2020-06-30' });
    // Another member's spouse is theirs.
    await createDependent(world.w.admin, { member_relationship: 'spouse', dob: '1986-02-02' });
  });

  it('when the divorce is recorded on the current spouse, then a new spouse is accepted; turning a child or the ex-spouse back into a second spouse is refused', async () => {
    const member = await newMember();
    const former = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1986-02-02' });
    const divorced = await world.w.admin.patch(`/dependents/${former.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-02-10' });
    expect(divorced.status, divorced.text).toBe(200);
    expect(divorced.body).toMatchObject({ member_relationship: 'ex_spouse', relationship_end_date: '2026-02-10' });
    const next = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Ana', dob: '1990-01-01' });

    const backToSpouse = await world.w.admin.patch(`/dependents/${former.id}`, { member_relationship: 'spouse', relationship_end_date: null });
    expect(inputErrors(backToSpouse).map((error) => error.path)).toEqual(['member_relationship']);
    expect(inputErrors(backToSpouse)[0]!.message).toContain(next.id);

    const child = await createDependent(world.w.admin, { member: member.id, member_relationship: 'child' });
    expect(inputErrors(await world.w.admin.patch(`/dependents/${child.id}`, { member_relationship: 'domestic_partner' })).map((error) => error.path)).toEqual([
      'member_relationship',
    ]);

    // A partnership dissolved but left as domestic_partner: its end date cannot be cleared while another is current.
    const dissolved = await createDependent(world.w.admin, {
      member: member.id,
      member_relationship: 'domestic_partner',
      dob: '1988-01-01',
      relationship_end_date: '2019-05-01',
    });
    expect(inputErrors(await world.w.admin.patch(`/dependents/${dissolved.id}`, { relationship_end_date: null })).map((error) => error.path)).toEqual([
      'relationship_end_date',
    ]);
    expect((await world.w.admin.get(`/dependents/${dissolved.id}`)).body.relationship_end_date).toBe('2019-05-01');
  });

  it.each([
    ['on a child', { member_relationship: 'child', relationship_end_date: '2026-01-01' }],
    ['before the date of birth', { member_relationship: 'ex_spouse', dob: '1990-01-01', relationship_end_date: '1989-12-31' }],
  ])('when relationship_end_date is %s, then 400 at relationship_end_date', async (_case, body) => {
    const member = await newMember();
    const response = await world.w.admin.post('/dependents', { member: member.id, first_name: 'Jo', last_name: 'Rivera', dob: '1986-02-02', ...body });
    expect(inputErrors(response).map((error) => error.path)).toEqual(['relationship_end_date']);
  });

  it('when relationship_end_date is today or later, then it is accepted (the last day of the relationship; a later one ends coverage by the sweep)', async () => {
    const dependent = await createDependent(world.w.admin, { member_relationship: 'civil_union', dob: '1986-02-02', relationship_end_date: '2026-03-02' });
    expect(dependent.relationship_end_date).toBe('2026-03-02');
    const later = await createDependent(world.w.admin, { member_relationship: 'ex_spouse', dob: '1986-02-02', relationship_end_date: '2026-03-03' });
    expect(later.relationship_end_date).toBe('2026-03-03');
  });
});

describe('submission: an ex-spouse is not an eligible dependent after the divorce date, and one spouse or partner per plan', () => {
  it('when a marriage enrollment names the ex-spouse and the new spouse together, then 400 at the ex-spouse; the new spouse alone is accepted as member_spouse', async () => {
    const member = await newMember();
    const former = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1986-02-02' });
    await world.w.admin.patch(`/dependents/${former.id}`, { member_relationship: 'ex_spouse', relationship_end_date: '2026-02-10' });
    const spouse = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Ana', dob: '1990-01-01' });
    const marriage = { reason: 'marriage', change_date: '2026-02-20', effective_start: '2026-03-01' };

    const refused = inputErrors(await submitQle(member.id, [former.id, spouse.id], marriage));
    expect(refused.map((error) => error.path)).toEqual(['enrolled_plans.0.enrolled_dependents.0.dependent']);
    expect(refused[0]!.message).toContain('ended on 2026-02-10');

    const accepted = await submitQle(member.id, [spouse.id], marriage);
    expect(accepted.status, accepted.text).toBe(200);
    // Priced at the world's member_spouse rate (test/helpers/plan-factories.ts compositeRates).
    expect(accepted.body.enrolled_plans[0].premium).toBe('1080.00');
  });

  it('when coverage starts on the divorce date the ex-spouse is covered; from the day after, 400 at the ex-spouse', async () => {
    const member = await newMember();
    const former = await createDependent(world.w.admin, {
      member: member.id,
      member_relationship: 'ex_spouse',
      dob: '1986-02-02',
      relationship_end_date: '2026-02-25',
    });
    const lostCoverage = { reason: 'lost_coverage', change_date: '2026-02-25' };
    const lastDayIn = await submitQle(member.id, [former.id], { ...lostCoverage, effective_start: '2026-02-25' });
    expect(lastDayIn.status, lastDayIn.text).toBe(200);

    const other = await newMember();
    const otherFormer = await createDependent(world.w.admin, {
      member: other.id,
      member_relationship: 'ex_spouse',
      dob: '1986-02-02',
      relationship_end_date: '2026-02-25',
    });
    const firstDayOut = inputErrors(await submitQle(other.id, [otherFormer.id], { ...lostCoverage, effective_start: '2026-02-26' }));
    expect(firstDayOut.map((error) => error.path)).toEqual(['enrolled_plans.0.enrolled_dependents.0.dependent']);
    expect(firstDayOut[0]!.message).toMatch(/ended on 2026-02-25.*coverage starting on 2026-02-26/);
  });

  it('when an ex-spouse has no divorce date on record, then 400 at the ex-spouse asking for relationship_end_date', async () => {
    const member = await newMember();
    const former = await createDependent(world.w.admin, { member: member.id, member_relationship: 'ex_spouse', dob: '1986-02-02' });
    const refused = inputErrors(await submitQle(member.id, [former.id], { reason: 'lost_coverage', change_date: '2026-02-25', effective_start: '2026-03-01' }));
    expect(refused.map((error) => error.path)).toEqual(['enrolled_plans.0.enrolled_dependents.0.dependent']);
    expect(refused[0]!.message).toContain('relationship_end_date');
  });

  it('when coverage starting on the divorce date names the ex-spouse and the new spouse, then 400 at the second one: one spouse or partner per plan', async () => {
    const member = await newMember();
    const former = await createDependent(world.w.admin, {
      member: member.id,
      member_relationship: 'ex_spouse',
      dob: '1986-02-02',
      relationship_end_date: '2026-02-25',
    });
    const spouse = await createDependent(world.w.admin, { member: member.id, member_relationship: 'domestic_partner', dob: '1990-01-01' });
    const refused = inputErrors(
      await submitQle(member.id, [former.id, spouse.id], { reason: 'lost_coverage', change_date: '2026-02-25', effective_start: '2026-02-25' }),
    );
    expect(refused.map((error) => error.path)).toEqual(['enrolled_plans.0.enrolled_dependents.1.dependent']);
    expect(refused[0]!.message).toContain('enrolled_dependents.0');
  });
});
