import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lifeEventTableRows } from '../helpers/life-event-table.ts';
import type { ApiClient } from '../helpers/test-app.ts';
import { createMember } from '../helpers/factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { createEmployerWithKey } from '../helpers/more-factories.ts';
import { approvedEnrollment, enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';
import { LIFE_EVENT_RULES, windowDaysOf, type LifeEventReason } from '../../src/modules/enrollments/life-events.ts';
import { addDays } from '../../src/shared/dates.ts';

// The life event table (src/modules/enrollments/life-events.ts) through the API, each row at its boundaries:
// the last day in and the first day out of its window, then who it lets add or drop, plan changes and when
// coverage starts. The test clock stands at 2026-03-02; the world's open enrollment coverage starts 2026-04-01.

const TODAY = '2026-03-02';
const NEXT_MONTH = '2026-04-01';

const world = enrollmentWorldPerFile();

type Body = Record<string, unknown>;

/** A member of the world (with a spouse and a child) covered on medical from 2026-04-01 by open enrollment. */
async function coveredMember(overrides: Body = {}) {
  const member = await createMember(world.w.admin, { employer: world.w.employer.id, dob: '1985-05-05', hire_date: '2025-01-01', ...overrides });
  const spouse = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1986-02-02' });
  const child = await createDependent(world.w.admin, { member: member.id, member_relationship: 'child', first_name: 'Kim', dob: '2015-06-01' });
  await approvedEnrollment(world.w, {
    member: member.id,
    enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: [{ dependent: spouse.id }] }],
  });
  return { member, spouse, child };
}

/** Creates and submits a qle enrollment; the submit response. */
async function submitQle(client: ApiClient, member: string, body: Body) {
  const created = await client.post('/enrollments', { member, category: 'qle', ...body });
  if (created.status !== 201) throw new Error(`POST /enrollments answered ${created.status}: ${created.text}`);
  return client.post(`/enrollments/${created.body.id}/save_and_submit`);
}

/** The rule parts (reason/part) named by the 400's input errors. */
function refusedBy(response: { status: number; body: { input_errors?: { message: string; field_path: (string | number)[] }[] } }): string[] {
  expect(response.status).toBe(400);
  return (response.body.input_errors ?? []).map(
    (error) => `${error.field_path.join('.')}: ${/Life event rule ([a-z_]+\/[a-z_]+)/.exec(error.message)?.[1] ?? error.message}`,
  );
}

/**
 * An election that keeps a member's coverage as it is (medical with the spouse), dated as the row's coverage
 * start rule wants; for births and adoptions, the child added from the event date.
 */
function unchangedElection(reason: LifeEventReason, people: Awaited<ReturnType<typeof coveredMember>>, changeDate: string): Body {
  const rule = LIFE_EVENT_RULES[reason];
  if (rule.coverageStart === 'event_date') {
    return {
      effective_start: changeDate,
      enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: [{ dependent: people.spouse.id }, { dependent: people.child.id }] }],
    };
  }
  return { effective_start: NEXT_MONTH, enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: [{ dependent: people.spouse.id }] }] };
}

const reasons = Object.keys(LIFE_EVENT_RULES) as LifeEventReason[];

describe("each life event's window, at its boundaries", () => {
  it.each(reasons.filter((reason) => LIFE_EVENT_RULES[reason].windowFrom === 'change_date'))(
    'when a %s enrollment is submitted on the last day of its window it is accepted, and on the first day after it is refused',
    async (reason) => {
      const days = windowDaysOf(LIFE_EVENT_RULES[reason], null);
      const lastDayIn = addDays(TODAY, -days);
      const inside = await coveredMember();
      const accepted = await submitQle(world.w.admin, inside.member.id, { reason, change_date: lastDayIn, ...unchangedElection(reason, inside, lastDayIn) });
      expect(accepted.status, accepted.text).toBe(200);

      const outside = await coveredMember();
      const firstDayOut = addDays(lastDayIn, -1);
      const refused = await submitQle(world.w.admin, outside.member.id, {
        reason,
        change_date: firstDayOut,
        ...unchangedElection(reason, outside, firstDayOut),
      });
      expect(refusedBy(refused)).toEqual([`change_date: ${reason}/window`]);
    },
  );

  it.each(reasons.filter((reason) => LIFE_EVENT_RULES[reason].windowFrom === 'hire_date'))(
    'when a %s enrollment comes 30 days after the hire date on record it is accepted, 31 days after it is refused, whatever change_date says',
    async (reason) => {
      // No effective_start: a new hire's coverage starts as the plan configuration's coverage_start_rule says.
      const election = (people: Awaited<ReturnType<typeof coveredMember>>) => ({ enrolled_plans: [medical(people.spouse.id)] });
      const inside = await coveredMember({ hire_date: addDays(TODAY, -30) });
      const accepted = await submitQle(world.w.admin, inside.member.id, { reason, change_date: TODAY, ...election(inside) });
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.body.effective_start).toBe(addDays(TODAY, -30));

      const outside = await coveredMember({ hire_date: addDays(TODAY, -31) });
      const refused = await submitQle(world.w.admin, outside.member.id, { reason, change_date: TODAY, ...election(outside) });
      expect(refusedBy(refused)).toEqual([`reason: ${reason}/window`]);
    },
  );

  it.each([
    ['lost_coverage', 'medicaid'],
    ['dependent_lost_coverage', 'chip'],
    ['gain_coverage', 'medicaid_chip_premium_assistance'],
    ['dependent_gained_coverage', 'medicaid'],
  ] as const)(
    'when %s is about %s, then its window is 60 days (29 U.S.C. 1181(f)(3)): day 60 in, day 61 out; other coverage keeps 30',
    async (reason, otherCoverage) => {
      const inside = await coveredMember();
      const day60 = addDays(TODAY, -60);
      const accepted = await submitQle(world.w.admin, inside.member.id, {
        reason,
        change_date: day60,
        other_coverage: otherCoverage,
        ...unchangedElection(reason, inside, day60),
      });
      expect(accepted.status, accepted.text).toBe(200);

      const outside = await coveredMember();
      const day61 = addDays(TODAY, -61);
      expect(
        refusedBy(
          await submitQle(world.w.admin, outside.member.id, {
            reason,
            change_date: day61,
            other_coverage: otherCoverage,
            ...unchangedElection(reason, outside, day61),
          }),
        ),
      ).toEqual([`change_date: ${reason}/window`]);

      const employerPlan = await coveredMember();
      const day31 = addDays(TODAY, -31);
      expect(
        refusedBy(
          await submitQle(world.w.admin, employerPlan.member.id, {
            reason,
            change_date: day31,
            other_coverage: 'group_health_plan',
            ...unchangedElection(reason, employerPlan, day31),
          }),
        ),
      ).toEqual([`change_date: ${reason}/window`]);
    },
  );
});

describe('event dates in the future', () => {
  it('when a marriage is dated today it is accepted; dated tomorrow it is refused (no row allows a future event but a tax-advantaged contribution change)', async () => {
    const today = await coveredMember();
    expect(
      (await submitQle(world.w.admin, today.member.id, { reason: 'marriage', change_date: TODAY, ...unchangedElection('marriage', today, TODAY) })).status,
    ).toBe(200);
    const tomorrow = await coveredMember();
    const refused = await submitQle(world.w.admin, tomorrow.member.id, {
      reason: 'marriage',
      change_date: addDays(TODAY, 1),
      ...unchangedElection('marriage', tomorrow, TODAY),
    });
    expect(refusedBy(refused)).toContain('change_date: marriage/future');
  });

  it('when a tax-advantaged contribution change is dated 30 days ahead it is accepted; 31 days ahead it is refused', async () => {
    const inside = await coveredMember();
    expect(
      (
        await submitQle(world.w.admin, inside.member.id, {
          reason: 'tax_advantaged_contribution_change',
          change_date: addDays(TODAY, 30),
          ...unchangedElection('marriage', inside, TODAY),
        })
      ).status,
    ).toBe(200);
    const outside = await coveredMember();
    const refused = await submitQle(world.w.admin, outside.member.id, {
      reason: 'tax_advantaged_contribution_change',
      change_date: addDays(TODAY, 31),
      ...unchangedElection('marriage', outside, TODAY),
    });
    expect(refusedBy(refused)).toEqual(['change_date: tax_advantaged_contribution_change/future']);
  });
});

describe('who an event may add or drop, and plan changes', () => {
  const silver = (...dependents: string[]) => ({
    plan: world.w.plans.medicalSilver.id,
    primary_care_provider: { full_name: 'Dr. B' },
    enrolled_dependents: dependents.map((dependent) => ({ dependent })),
  });
  const marriage = { reason: 'marriage', change_date: '2026-02-20', effective_start: NEXT_MONTH };

  it("when a marriage adds the spouse's child it is accepted; when it drops a child, switches plan without adding anyone and drops dental, each is refused by name", async () => {
    const people = await coveredMember();
    expect((await submitQle(world.w.admin, people.member.id, { ...marriage, enrolled_plans: [medical(people.spouse.id, people.child.id)] })).status).toBe(200);

    const family = await coveredMember();
    await approvedEnrollment(world.w, {
      member: family.member.id,
      effective_start: NEXT_MONTH,
      enrolled_plans: [medical(family.spouse.id, family.child.id), { plan: world.w.plans.dental.id }],
    });
    const refused = await submitQle(world.w.admin, family.member.id, {
      ...marriage,
      enrolled_plans: [silver(family.spouse.id)],
      coverage_waivers: [{ line_of_coverage: 'dental', reason: 'other' }],
    });
    expect(refusedBy(refused)).toEqual(['enrolled_plans.0: marriage/drop', 'enrolled_plans.0: marriage/change_plan', 'coverage_waivers.0: marriage/drop']);
  });

  it('when a child ages out before the coverage starts and the sweep has not ended their coverage yet, then a marriage leaving them out is accepted (not a drop); keeping them is refused', async () => {
    // Covered since 2026-01-01; the child turns 26 on 2026-03-20, after today and before the marriage's coverage starts.
    const member = await createMember(world.w.admin, { employer: world.w.employer.id, dob: '1975-05-05', hire_date: '2020-01-01' });
    const child = await createDependent(world.w.admin, { member: member.id, member_relationship: 'child', dob: '2000-03-20' });
    const created = await world.w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: [{ dependent: child.id }] }],
    });
    expect(created.status, created.text).toBe(201);
    const spouse = await createDependent(world.w.admin, { member: member.id, member_relationship: 'spouse', dob: '1980-01-01' });

    const keeping = await submitQle(world.w.admin, member.id, { ...marriage, enrolled_plans: [medical(spouse.id, child.id)] });
    expect(keeping.status).toBe(400);
    expect(keeping.body.input_errors.map((error: { message: string }) => error.message)).toEqual([
      expect.stringContaining('aged out of this plan on 2026-03-19'),
    ]);
    const leaving = await submitQle(world.w.admin, member.id, { ...marriage, enrolled_plans: [medical(spouse.id)] });
    expect(leaving.status, leaving.text).toBe(200);
  });

  it('when a marriage enrolls someone, then the line may move to another plan (29 CFR 2590.701-6(d)(2))', async () => {
    const people = await coveredMember();
    expect((await submitQle(world.w.admin, people.member.id, { ...marriage, enrolled_plans: [silver(people.spouse.id, people.child.id)] })).status).toBe(200);
  });

  it('when a divorce drops the spouse it is accepted; when it adds a child it is refused', async () => {
    const divorce = { reason: 'divorce', change_date: '2026-02-20', effective_start: NEXT_MONTH };
    const people = await coveredMember();
    expect((await submitQle(world.w.admin, people.member.id, { ...divorce, enrolled_plans: [medical()] })).status).toBe(200);
    const other = await coveredMember();
    expect(refusedBy(await submitQle(world.w.admin, other.member.id, { ...divorce, enrolled_plans: [medical(other.child.id)] }))).toEqual([
      'enrolled_plans.0: divorce/add',
    ]);
  });

  it("when a gained coverage drops the family it is accepted; a dependent's gained coverage may not drop the member", async () => {
    const gained = {
      change_date: '2026-02-20',
      effective_start: NEXT_MONTH,
      coverage_waivers: [{ line_of_coverage: 'medical', reason: 'other_employer_coverage' }],
    };
    const people = await coveredMember();
    expect((await submitQle(world.w.admin, people.member.id, { reason: 'gain_coverage', ...gained })).status).toBe(200);
    const other = await coveredMember();
    expect(refusedBy(await submitQle(world.w.admin, other.member.id, { reason: 'dependent_gained_coverage', ...gained }))).toEqual([
      'coverage_waivers.0: dependent_gained_coverage/drop',
    ]);
  });

  it('when a birth adds the child from the date of birth it is accepted; a day later, or without a child, it is refused', async () => {
    const birth = { reason: 'new_child', change_date: '2026-02-20' };
    const people = await coveredMember();
    const baby = await createDependent(world.w.admin, { member: people.member.id, member_relationship: 'child', first_name: 'Ava', dob: '2026-02-20' });
    expect(
      (await submitQle(world.w.admin, people.member.id, { ...birth, effective_start: '2026-02-20', enrolled_plans: [medical(people.spouse.id, baby.id)] }))
        .status,
    ).toBe(200);

    const late = await coveredMember();
    const lateBaby = await createDependent(world.w.admin, { member: late.member.id, member_relationship: 'child', first_name: 'Bo', dob: '2026-02-20' });
    expect(
      refusedBy(
        await submitQle(world.w.admin, late.member.id, { ...birth, effective_start: '2026-02-21', enrolled_plans: [medical(late.spouse.id, lateBaby.id)] }),
      ),
    ).toEqual(['effective_start: new_child/coverage_start']);

    const childless = await coveredMember();
    expect(
      refusedBy(
        await submitQle(world.w.admin, childless.member.id, { ...birth, effective_start: '2026-02-20', enrolled_plans: [medical(childless.spouse.id)] }),
      ),
    ).toEqual(['enrolled_plans: new_child/must_add']);
  });

  it("when a marriage's coverage starts on the first of the month after the request it is accepted; a day later, or before the wedding, it is refused", async () => {
    const people = await coveredMember();
    expect(
      (await submitQle(world.w.admin, people.member.id, { ...marriage, effective_start: NEXT_MONTH, enrolled_plans: [medical(people.spouse.id)] })).status,
    ).toBe(200);
    const late = await coveredMember();
    expect(
      refusedBy(await submitQle(world.w.admin, late.member.id, { ...marriage, effective_start: '2026-04-02', enrolled_plans: [medical(late.spouse.id)] })),
    ).toEqual(['effective_start: marriage/coverage_start']);
    const early = await coveredMember();
    const beforeWedding = await submitQle(world.w.admin, early.member.id, {
      ...marriage,
      effective_start: '2026-02-19',
      enrolled_plans: [medical(early.spouse.id)],
    });
    expect(refusedBy(beforeWedding)).toContain('effective_start: marriage/coverage_start');
  });

  it('when no election is allowed (citizenship_change), then any change is refused, and keeping coverage as it is is accepted', async () => {
    const people = await coveredMember();
    const event = { reason: 'citizenship_change', change_date: '2026-02-20', effective_start: NEXT_MONTH };
    expect(refusedBy(await submitQle(world.w.admin, people.member.id, { ...event, enrolled_plans: [medical(people.spouse.id, people.child.id)] }))).toEqual([
      'enrolled_plans.0: citizenship_change/add',
    ]);
    expect((await submitQle(world.w.admin, people.member.id, { ...event, enrolled_plans: [medical(people.spouse.id)] })).status).toBe(200);
  });
});

describe('rules_override', () => {
  it('when an admin key overrides the rules, then the enrollment is submitted past them and the override is on the record and in the event log; other keys get a 403', async () => {
    const people = await coveredMember();
    const late = {
      reason: 'marriage',
      change_date: '2025-12-01',
      effective_start: NEXT_MONTH,
      enrolled_plans: [{ plan: world.w.plans.medical.id, enrolled_dependents: [{ dependent: people.spouse.id }, { dependent: people.child.id }] }],
    };
    const override = { reason: 'HR lost the paper form filed on time.' };

    const { client: employerKey } = await createEmployerWithKey(world.t);
    const forbidden = await employerKey.post('/enrollments', { member: people.member.id, category: 'qle', ...late, rules_override: override });
    expect(forbidden.status).toBe(403);

    const created = await world.w.admin.post('/enrollments', { member: people.member.id, category: 'qle', ...late });
    expect(refusedBy(await world.w.admin.post(`/enrollments/${created.body.id}/save_and_submit`))).toEqual(['change_date: marriage/window']);
    const patched = await world.w.admin.patch(`/enrollments/${created.body.id}`, { rules_override: override });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.rules_override).toEqual({ reason: override.reason, api_key: expect.stringMatching(/^key_/), created_at: expect.any(String) });
    const submitted = await world.w.admin.post(`/enrollments/${created.body.id}/save_and_submit`);
    expect(submitted.status, submitted.text).toBe(200);
    expect(submitted.body.rules_override.reason).toBe(override.reason);

    const events = (await world.w.admin.get(`/events?object_id=${created.body.id}&page_size=100`)).body.results as {
      event_type: string;
      data: { rules_overridden: boolean };
    }[];
    expect(events.map((event) => [event.event_type, event.data.rules_overridden])).toEqual([
      ['enrollment.submitted', true],
      ['enrollment.updated', true],
      ['enrollment.created', false],
    ]);
    expect(JSON.stringify(events)).not.toContain(override.reason);
  });
});

describe('dates every category keeps', () => {
  it("when open enrollment elections start on the window's renewal_date they are accepted; a day later they are refused", async () => {
    const member = await createMember(world.w.admin, { employer: world.w.employer.id, dob: '1985-05-05', hire_date: '2025-01-01' });
    const refused = await world.w.admin.post('/enrollments', {
      member: member.id,
      category: 'open_enrollment',
      effective_start: '2026-04-02',
      enrolled_plans: [{ plan: world.w.plans.medical.id }],
    });
    expect(refusedBy(await world.w.admin.post(`/enrollments/${refused.body.id}/save_and_submit`))).toEqual([
      "effective_start: Open enrollment elections start on the window's renewal_date: expected 2026-04-01.",
    ]);
    await approvedEnrollment(world.w, { member: member.id, effective_start: NEXT_MONTH, enrolled_plans: [{ plan: world.w.plans.medical.id }] });
  });

  it('when coverage would end after the plan year it is refused; ending on its last day is accepted', async () => {
    const people = await coveredMember();
    const event = { reason: 'divorce', change_date: '2026-02-20', effective_start: NEXT_MONTH };
    const plan = (await world.w.admin.get(`/plans/${world.w.plans.medical.id}`)).body as { effective_end: string };
    expect(
      (await submitQle(world.w.admin, people.member.id, { ...event, effective_end: plan.effective_end, enrolled_plans: [medical(people.spouse.id)] })).status,
    ).toBe(200);
    const other = await coveredMember();
    expect(
      refusedBy(
        await submitQle(world.w.admin, other.member.id, {
          ...event,
          effective_end: addDays(plan.effective_end, 1),
          enrolled_plans: [medical(other.spouse.id)],
        }),
      ),
    ).toEqual([`enrolled_plans.0.effective_end: Coverage cannot end after the plan year, which ends on ${plan.effective_end}.`]);
  });
});

function medical(...dependents: string[]) {
  return { plan: world.w.plans.medical.id, enrolled_dependents: dependents.map((dependent) => ({ dependent })) };
}

describe('docs/decisions.md', () => {
  it('shows the life event table exactly as the code has it', () => {
    const docs = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
    expect(docs).toContain(lifeEventTableRows(LIFE_EVENT_RULES).join('\n'));
  });
});
