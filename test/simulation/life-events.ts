import { addDays, ageOn, compareDates, daysBetween } from '../../src/shared/dates.ts';
import type { ApiClient } from '../helpers/test-app-core.ts';
import type { Random } from './random.ts';
import type { Steps } from './steps.ts';
import { dateIn, nextEmployeeId, pad, personName, type Line, type PlannedHire, type SimEmployer, type SimMember } from './world.ts';

// What an HR platform sends through the year: hires and their new-hire elections, life events with the
// elections they allow (docs/decisions.md "Life events"), terminations, rehires and EOI decisions. Each action
// reads the member's coverage in force first and sends only what the rules allow; any refusal is a failure.

export interface CoverageItem {
  line_of_coverage: Line;
  plan: string;
  enrolled_plan: string;
  enrollment: string;
  effective_start: string | null;
  effective_end: string | null;
  dependents: string[];
  volume: string | null;
}

export interface Actions {
  admin: ApiClient;
  steps: Steps;
  random: Random;
}

const HEALTH_LINES: readonly Line[] = ['medical', 'dental', 'vision'];
const TERMINATION_REASONS = ['voluntary', 'involuntary', 'layoff', 'retirement'] as const;

export function firstOfNextMonth(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return month === 12 ? `${year + 1}-01-01` : `${year}-${pad(month + 1)}-01`;
}

export async function coverageOn(a: Actions, member: string, date: string): Promise<CoverageItem[]> {
  const body = await a.steps.expect<{ coverage: CoverageItem[] }>('member coverage', a.admin.get(`/members/${member}/coverage?date=${date}`));
  return body?.coverage ?? [];
}

/** Creates, submits and approves an enrollment; the approved enrollment, or undefined after a failed step. */
export async function enroll(a: Actions, label: string, body: Record<string, unknown>): Promise<any> {
  const created = await a.steps.expect(`${label}: create`, a.admin.post('/enrollments', body), 201);
  if (!created) return undefined;
  const submitted = await a.steps.expect(`${label}: save_and_submit`, a.admin.post(`/enrollments/${created.id}/save_and_submit`));
  if (!submitted) {
    await a.admin.post(`/enrollments/${created.id}/cancel`);
    return undefined;
  }
  return a.steps.expect(`${label}: approve`, a.admin.post(`/enrollments/${created.id}/approve`));
}

async function createDependent(a: Actions, member: SimMember, body: Record<string, unknown>): Promise<string | undefined> {
  const created = await a.steps.expect<{ id: string }>('create a dependent', a.admin.post('/dependents', { member: member.id, ...body }), 201);
  return created?.id;
}

/** A family as drawn: the spouse's and children's records to create. */
export interface FamilyDraw {
  spouse?: Record<string, unknown>;
  children: (Record<string, unknown> & { dob: string })[];
}

/** Draws a family for a member: a spouse (often), children (some near 26, to age out in the plan year). No I/O. */
export function drawFamily(random: Random, options: { lastName: string; agingOut: boolean }): FamilyDraw {
  const family: FamilyDraw = { children: [] };
  if (random.chance(0.55)) {
    family.spouse = { ...personName(random), last_name: options.lastName, member_relationship: 'spouse', dob: dateIn(random, random.int(1965, 1998)) };
  }
  const children = random.int(0, 3);
  for (let index = 0; index < children; index++) {
    // The first child of an ageing-out family turns 26 this year (or, a few, on the next plan year's first days).
    const dob =
      options.agingOut && index === 0 ? (random.chance(0.8) ? dateIn(random, 2000) : `2001-01-0${random.int(1, 3)}`) : dateIn(random, random.int(2004, 2025));
    family.children.push({ ...personName(random), last_name: options.lastName, member_relationship: 'child', dob });
  }
  return family;
}

/** Creates the drawn family of the member. */
export async function createFamily(a: Actions, member: SimMember, family: FamilyDraw): Promise<void> {
  if (family.spouse) member.spouse = await createDependent(a, member, family.spouse);
  for (const child of family.children) {
    const id = await createDependent(a, member, child);
    if (id) member.children.push({ id, dob: child.dob });
  }
}

/** The member's dependents still eligible as children on `date` (under 26) and the spouse. */
export function eligibleDependents(member: SimMember, date: string): string[] {
  return [...(member.spouse ? [member.spouse] : []), ...member.children.filter((child) => ageOn(child.dob, date) < 26).map((child) => child.id)];
}

/** The new hire's record, on the hire date; their family with it. */
export async function hire(a: Actions, planned: PlannedHire): Promise<SimMember | undefined> {
  const name = personName(a.random);
  const employeeId = nextEmployeeId(planned.employer);
  const created = await a.steps.expect<{ id: string }>(
    'hire a member',
    a.admin.post('/members', {
      employer: planned.employer.id,
      payroll_provider_external_id: employeeId,
      ...name,
      dob: dateIn(a.random, a.random.int(1960, 2003)),
      address: { line1: '100 Market Street', city: 'Springfield', state: 'IL', zip_code: '62701' },
      hire_date: planned.hireDate,
      employment_status: 'full_time',
      hours_worked: 40,
      ...(planned.paySchedule ? { pay_schedule: planned.paySchedule } : {}),
    }),
    201,
  );
  if (!created) return undefined;
  const member: SimMember = {
    id: created.id,
    employeeId,
    employer: planned.employer,
    hireDate: planned.hireDate,
    state: 'active',
    children: [],
    ...(planned.paySchedule ? { paySchedule: planned.paySchedule } : {}),
  };
  await createFamily(a, member, drawFamily(a.random, { lastName: name.last_name, agingOut: false }));
  a.steps.count('hire');
  return member;
}

/** The plans a member of `world` elects, with their family on each health line (dental and vision sometimes). */
export function drawElections(a: Actions, world: SimEmployer, member: SimMember, date: string, life: 'none' | 'within' | 'eoi'): Record<string, unknown>[] {
  const dependents = eligibleDependents(member, date).map((dependent) => ({ dependent }));
  const plans: Record<string, unknown>[] = [{ plan: (a.random.chance(0.6) ? world.plans.gold : world.plans.silver)!.id, enrolled_dependents: dependents }];
  if (a.random.chance(0.75)) plans.push({ plan: world.plans.dental!.id, enrolled_dependents: dependents });
  if (a.random.chance(0.5)) plans.push({ plan: world.plans.vision!.id, enrolled_dependents: dependents });
  if (life !== 'none') plans.push({ plan: world.plans.life!.id, requested_volume: life === 'eoi' ? '150000.00' : '30000.00' });
  return plans;
}

/** A new hire's first election (coverage from the configuration's rule: the API's default start), or a waiver of medical. */
export async function newHireEnrollment(a: Actions, member: SimMember, planned: PlannedHire): Promise<void> {
  const base = { member: member.id, category: 'qle', reason: 'new_hire', change_date: member.hireDate };
  if (planned.waive) {
    // A waiver names the day it takes effect: the day coverage would have started (first of the month after the waiting period).
    const eligible = addDays(member.hireDate, member.employer.waitingPeriodDays);
    const waived = await enroll(a, 'new hire waiver', {
      ...base,
      effective_start: eligible.endsWith('-01') ? eligible : firstOfNextMonth(eligible),
      coverage_waivers: [{ line_of_coverage: 'medical', reason: 'other_employer_coverage', member: member.id }],
    });
    if (waived) a.steps.count('new_hire_waiver');
    return;
  }
  const approved = await enroll(a, 'new hire enrollment', {
    ...base,
    enrolled_plans: drawElections(a, member.employer, member, member.hireDate, planned.life ?? 'none'),
  });
  if (!approved) return;
  a.steps.count('new_hire_enrollment');
  const life = (approved.enrolled_plans as { id: string; plan: string; eoi_status: string }[]).find((plan) => plan.plan === member.employer.plans.life!.id);
  if (life?.eoi_status === 'pending') {
    member.eoi = { enrollment: approved.id, enrolledPlan: life.id, decideOn: addDays(a.steps.day, a.random.int(7, 30)) };
    a.steps.count('eoi_requested');
  }
}

/** The carrier's underwriting decision on a voluntary life volume over guaranteed issue, recorded by HR. */
export async function eoiDecision(a: Actions, member: SimMember): Promise<void> {
  const eoi = member.eoi!;
  member.eoi = undefined;
  const decision = a.random.chance(0.7) ? 'approved' : 'denied';
  const decided = await a.steps.expect(
    'EOI decision',
    a.admin.patch(`/enrollments/${eoi.enrollment}`, { enrolled_plans: [{ id: eoi.enrolledPlan, eoi_status: decision }] }),
  );
  if (decided) a.steps.count(`eoi_${decision}`);
}

/**
 * The health lines covered on `date`, each elected again as it is with `adding` added (a special enrollment).
 * Children 26 or older on `date` are left out: coverage read ahead still lists them until the sweep of their
 * age-out day ends it, and an HR platform does not send them.
 */
function withAdded(coverage: readonly CoverageItem[], member: SimMember, adding: string, date: string): Record<string, unknown>[] {
  const leaving = new Set(member.children.filter((child) => compareDates(child.dob, date) <= 0 && ageOn(child.dob, date) >= 26).map((child) => child.id));
  for (const former of member.formerSpouses ?? []) if (compareDates(former.ended, date) < 0) leaving.add(former.id);
  return coverage
    .filter((item) => HEALTH_LINES.includes(item.line_of_coverage))
    .map((item) => ({
      plan: item.plan,
      enrolled_dependents: [...item.dependents.filter((id) => id !== adding && !leaving.has(id)), adding].map((dependent) => ({ dependent })),
    }));
}

/** A marriage: the spouse is added to every health line from the first of the next month (or the wedding day in December). */
export async function marriage(a: Actions, member: SimMember): Promise<void> {
  const day = a.steps.day;
  const drawn = addDays(day, -a.random.int(0, 7));
  // Never back before the end of the member's last marriage: the former spouse is covered until then.
  const changeDate = member.divorcedOn !== undefined && compareDates(drawn, member.divorcedOn) <= 0 ? addDays(member.divorcedOn, 1) : drawn;
  const next = firstOfNextMonth(day);
  const start = next < '2027-01-01' ? next : changeDate;
  const coverage = await coverageOn(a, member.id, start);
  if (!coverage.some((item) => item.line_of_coverage === 'medical')) return;
  const spouse = await createDependent(a, member, { ...personName(a.random), member_relationship: 'spouse', dob: dateIn(a.random, a.random.int(1965, 2000)) });
  if (!spouse) return;
  member.spouse = spouse;
  member.spouseSince = day;
  const approved = await enroll(a, 'marriage', {
    member: member.id,
    category: 'qle',
    reason: 'marriage',
    change_date: changeDate,
    effective_start: start,
    enrolled_plans: withAdded(coverage, member, spouse, start),
  });
  if (approved) a.steps.count('marriage');
}

/** A birth, entered within days, or weeks later (retroactive): the child is covered from the date of birth. */
export async function birth(a: Actions, member: SimMember, afterOpenEnrollment: boolean): Promise<void> {
  const day = a.steps.day;
  const retroactive = a.random.chance(0.3);
  const dob = addDays(day, -(retroactive ? a.random.int(10, 25) : a.random.int(0, 3)));
  if (compareDates(dob, member.hireDate) < 0 || dob < '2026-01-01') return;
  const coverage = await coverageOn(a, member.id, dob);
  if (!coverage.some((item) => item.line_of_coverage === 'medical')) return;
  const child = await createDependent(a, member, { ...personName(a.random), member_relationship: 'child', dob });
  if (!child) return;
  member.children.push({ id: child, dob });
  const approved = await enroll(a, 'birth', {
    member: member.id,
    category: 'qle',
    reason: 'new_child',
    change_date: dob,
    effective_start: dob,
    enrolled_plans: withAdded(coverage, member, child, dob),
  });
  if (!approved) return;
  a.steps.count('birth');
  if (retroactive) a.steps.count('birth_retroactive');
  if (afterOpenEnrollment) a.steps.count('birth_after_open_enrollment');
}

/** A divorce: the spouse's relationship ends (their coverage ends the next day, at once or by the sweep). */
export async function divorce(a: Actions, member: SimMember): Promise<void> {
  const spouse = member.spouse!;
  const ended = addDays(a.steps.day, -a.random.int(0, 5));
  member.spouse = undefined;
  member.divorcedOn = ended;
  member.formerSpouses = [...(member.formerSpouses ?? []), { id: spouse, ended }];
  const updated = await a.steps.expect('divorce', a.admin.patch(`/dependents/${spouse}`, { relationship_end_date: ended }));
  if (updated) a.steps.count('divorce');
}

/** The member's death (reported within days): employment and coverage end, the family's COBRA follows. */
export async function death(a: Actions, member: SimMember): Promise<void> {
  const died = addDays(a.steps.day, -a.random.int(0, 3));
  member.state = 'dead';
  const updated = await a.steps.expect(
    'death',
    a.admin.patch(`/members/${member.id}`, { date_of_death: compareDates(died, member.hireDate) < 0 ? member.hireDate : died }),
  );
  if (updated) a.steps.count('death');
}

/** A termination, today or up to two weeks ahead; some come back (rehire) after 10 to 45 days. */
export async function termination(a: Actions, member: SimMember): Promise<string | undefined> {
  const date = addDays(a.steps.day, a.random.int(0, 14));
  member.state = 'leaving';
  member.terminationDate = date;
  const updated = await a.steps.expect(
    'termination',
    a.admin.patch(`/members/${member.id}`, { termination_date: date, termination_reason: a.random.pick(TERMINATION_REASONS) }),
  );
  if (!updated) return undefined;
  a.steps.count('termination');
  return a.random.chance(0.35) ? addDays(date, a.random.int(10, 45)) : undefined;
}

/** A rehire: within 30 days the prior elections are reinstated; later the member elects anew (reason rehire). */
export async function rehire(a: Actions, member: SimMember): Promise<void> {
  const day = a.steps.day;
  const away = daysBetween(member.terminationDate!, day);
  const anew = away > 30;
  const rehired = await a.steps.expect(
    'rehire',
    a.admin.post(`/members/${member.id}/rehire`, { rehire_date: day, ...(anew ? { elections: 'elect_anew' } : {}) }),
  );
  if (!rehired) return;
  member.state = 'active';
  member.hireDate = day;
  member.terminationDate = undefined;
  if (!anew) {
    a.steps.count('rehire_reinstated');
    return;
  }
  const approved = await enroll(a, 'rehire enrollment', {
    member: member.id,
    category: 'qle',
    reason: 'rehire',
    change_date: day,
    enrolled_plans: drawElections(a, member.employer, member, day, 'none'),
  });
  if (approved) a.steps.count('rehire_elected_anew');
}
