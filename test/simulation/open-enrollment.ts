import { ageOn } from '../../src/shared/dates.ts';
import { compositeRates } from '../helpers/plan-factories.ts';
import { coverageOn, enroll, type Actions } from './life-events.ts';
import { createSimPlan, type PlanKey, type SimEmployer, type SimMember } from './world.ts';

// The autumn: plans renewed for the next plan year (and a second medical carrier offered), a passive open
// enrollment window in November where some members choose (the same plans renewed, a switch of medical
// carrier, or a dental waiver) and the rest are carried over when the window completes.

export const NEXT_PLAN_YEAR = { start: '2027-01-01', end: '2027-12-31' };
export const OPEN_ENROLLMENT = { renew: '2026-10-01', create: '2026-10-15', start: '2026-11-01', end: '2026-11-15', complete: '2026-11-20' };

const RENEWED: readonly PlanKey[] = ['gold', 'silver', 'dental', 'vision', 'life'];

/** Each plan renewed for next year at new rates (configurations copied), and carrier B's medical plan created. */
export async function renewPlans(a: Actions, world: SimEmployer): Promise<void> {
  for (const key of RENEWED) {
    const plan = world.plans[key]!;
    const priced = key !== 'life';
    const renewed = await a.steps.expect<{ id: string }>(
      `renew ${key}`,
      a.admin.post(`/plans/${plan.id}/renew`, {
        effective_end: NEXT_PLAN_YEAR.end,
        ...(priced
          ? { composite_rates: compositeRates({ member: key === 'gold' ? '540.00' : key === 'silver' ? '420.00' : key === 'dental' ? '42.00' : '9.00' }) }
          : {}),
      }),
      201,
    );
    if (!renewed) continue;
    world.next[key] = { ...plan, id: renewed.id };
    a.steps.count('plan_renewed');
  }
  world.next.bronze = await createSimPlan(a.admin, world, 'bronze', {
    plan_name: 'Bronze EPO',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '380.00', member_family: '1200.00' }),
    effective_start: NEXT_PLAN_YEAR.start,
    effective_end: NEXT_PLAN_YEAR.end,
  });
}

export async function createWindow(a: Actions, world: SimEmployer): Promise<void> {
  const window = await a.steps.expect<{ id: string }>(
    'create the open enrollment window',
    a.admin.post('/open_enrollment_windows', {
      employer: world.id,
      start_date: OPEN_ENROLLMENT.start,
      end_date: OPEN_ENROLLMENT.end,
      renewal_date: NEXT_PLAN_YEAR.start,
      plans: Object.values(world.next).map((plan) => plan.id),
      enrollment_type: 'passive',
    }),
    201,
  );
  world.windowId = window?.id;
}

/** Opens the window; each member still employed is given the day they will choose, if they do. */
export async function activateWindow(a: Actions, world: SimEmployer, members: readonly SimMember[]): Promise<void> {
  if (!world.windowId) return;
  const activated = await a.steps.expect('activate the open enrollment window', a.admin.post(`/open_enrollment_windows/${world.windowId}/activate`));
  if (!activated) return;
  for (const member of members) {
    if (member.employer !== world || member.state !== 'active') continue;
    const draw = a.random.next();
    if (draw < 0.55) continue;
    const choice = draw < 0.75 ? 'same' : draw < 0.88 ? 'switch_carrier' : 'waive_dental';
    member.openEnrollment = { day: `2026-11-${String(a.random.int(2, 14)).padStart(2, '0')}`, choice };
  }
}

/** The member's choice for next year, from the coverage they will have on the plan year's last day. */
export async function openEnrollmentElection(a: Actions, member: SimMember): Promise<void> {
  const world = member.employer;
  const choice = member.openEnrollment!.choice;
  const coverage = await coverageOn(a, member.id, '2026-12-31');
  if (!coverage.some((item) => item.line_of_coverage === 'medical')) return;
  const byId = new Map(Object.values(world.plans).map((plan) => [plan.id, plan.key]));
  const enrolledPlans: Record<string, unknown>[] = [];
  const waivers: Record<string, unknown>[] = [];
  for (const item of coverage) {
    const key = byId.get(item.plan);
    if (!key) continue;
    // Children who are 26 on the first day of next year are no longer eligible dependents.
    const dependents = item.dependents
      .filter((id) => {
        const child = member.children.find((candidate) => candidate.id === id);
        return !child || ageOn(child.dob, '2027-01-01') < 26;
      })
      .map((dependent) => ({ dependent }));
    if (item.line_of_coverage === 'dental' && choice === 'waive_dental') {
      waivers.push({ line_of_coverage: 'dental', reason: 'covered_by_spouse', member: member.id });
      continue;
    }
    const next = item.line_of_coverage === 'medical' && choice === 'switch_carrier' ? world.next.bronze : world.next[key];
    if (!next) continue;
    if (item.line_of_coverage === 'life') {
      const volume = Math.min(Number(item.volume ?? '0'), 50000);
      if (volume > 0) enrolledPlans.push({ plan: next.id, requested_volume: volume.toFixed(2) });
      continue;
    }
    enrolledPlans.push({ plan: next.id, enrolled_dependents: dependents });
  }
  const approved = await enroll(a, `open enrollment (${choice})`, {
    member: member.id,
    category: 'open_enrollment',
    reason: 'open_enrollment',
    effective_start: NEXT_PLAN_YEAR.start,
    enrolled_plans: enrolledPlans,
    ...(waivers.length > 0 ? { coverage_waivers: waivers } : {}),
  });
  if (approved) a.steps.count(`open_enrollment_${choice}`);
}

/** Completes the window the sweep closed: the passive carry-over elects for everyone who did nothing. */
export async function completeWindow(a: Actions, world: SimEmployer): Promise<void> {
  if (!world.windowId) return;
  const completed = await a.steps.expect<{ completed_member_count: number; incomplete_member_count: number }>(
    'complete the open enrollment window',
    a.admin.post(`/open_enrollment_windows/${world.windowId}/complete`),
  );
  if (!completed) return;
  a.steps.count('open_enrollment_window_completed');
  a.steps.count('open_enrollment_passive_members', completed.incomplete_member_count);
}
