import { afterAll, beforeAll } from 'vitest';
import { createTestApp, ok, type ApiClient, type TestContext } from './test-app.ts';
import { createCarrier, createEmployer, createGroup, createMember } from './factories.ts';
import { createDependent } from './people-factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from './plan-factories.ts';
import { newProviderAdmin } from './more-factories.ts';

/**
 * An employer ready for enrollment, in a provider of its own: groups on each connection method, priced plans
 * on several lines, plan configurations with contribution strategies, and a member with a family.
 * Plan year 2026; the test clock stands at 2026-03-02.
 */
export async function createEnrollmentWorld(t: TestContext, options: { waitingPeriodDays?: number } = {}) {
  const admin: ApiClient = await newProviderAdmin(t, 'enrollment-world');
  const employer = await createEmployer(admin, { legal_name: 'World Widgets Inc' });
  const carrier = await createCarrier(admin, { legal_name: 'World Health Co' });
  const groupFor = (connection_method: string, metadata: Record<string, string> = {}) =>
    createGroup(admin, { employer: employer.id, carrier: carrier.id, connection_method, group_number: `G-${connection_method}`, metadata });
  const manualGroup = await groupFor('manual');
  const apiGroup = await groupFor('api');
  const ediGroup = await groupFor('edi');
  const rejectingGroup = await groupFor('api', { sandbox_reject: 'Member not found in carrier roster' });

  const plan = async (overrides: Record<string, unknown>, strategy = true) => {
    const created = await createPlan(admin, overrides);
    const configuration = await createPlanConfiguration(admin, { plan: created.id, waiting_period_days: options.waitingPeriodDays ?? 0 });
    if (strategy) {
      const response = await admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy());
      if (response.status !== 200) throw new Error(`contribution strategy: ${response.status} ${response.text}`);
    }
    return created;
  };
  const medical = await plan({
    group: manualGroup.id,
    plan_name: 'Gold PPO',
    line_of_coverage: 'medical',
    premium_type: 'composite',
    composite_rates: compositeRates(),
  });
  const medicalSilver = await plan({
    group: manualGroup.id,
    plan_name: 'Silver HMO',
    line_of_coverage: 'medical',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '400.00', member_family: '1300.00' }),
    requires_primary_care_provider: true,
  });
  const dental = await plan({
    group: apiGroup.id,
    plan_name: 'Dental Plus',
    line_of_coverage: 'dental',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '40.00', member_family: '120.00' }),
  });
  const dentalRejected = await plan({
    group: rejectingGroup.id,
    plan_name: 'Dental Basic',
    line_of_coverage: 'dental',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '30.00' }),
  });
  const vision = await plan({ group: ediGroup.id, plan_name: 'Vision Care', line_of_coverage: 'vision' }, false);
  const life = await plan({ group: manualGroup.id, plan_name: 'Basic Life', line_of_coverage: 'life', guaranteed_issue_volume: '50000.00' }, false);

  // open_enrollment enrollments are submitted in an active window of their employer: one runs through March.
  const window = await activeWindow(admin, { employer: employer.id, plans: [medical, medicalSilver, dental, dentalRejected, vision, life].map((p) => p.id) });
  const member = await createMember(admin, { employer: employer.id, dob: '1985-05-05', hire_date: '2025-01-01' });
  const spouse = await createDependent(admin, { member: member.id, member_relationship: 'spouse', first_name: 'Jo', dob: '1986-02-02' });
  const child = await createDependent(admin, { member: member.id, member_relationship: 'child', first_name: 'Kim', dob: '2015-06-01' });
  const secondChild = await createDependent(admin, { member: member.id, member_relationship: 'child', first_name: 'Lee', dob: '2018-09-09' });
  const grownChild = await createDependent(admin, { member: member.id, member_relationship: 'child', first_name: 'Max', dob: '1998-01-01' });
  return {
    admin,
    employer,
    carrier,
    window,
    groups: { manualGroup, apiGroup, ediGroup, rejectingGroup },
    plans: { medical, medicalSilver, dental, dentalRejected, vision, life },
    member,
    family: { spouse, child, secondChild, grownChild },
  };
}

/** An open enrollment window through the API (2026-03-01 to 2026-03-31, renewing 2026-04-01), activated. */
export async function activeWindow(admin: ApiClient, body: Record<string, unknown>) {
  const created = await admin.post('/open_enrollment_windows', { start_date: '2026-03-01', end_date: '2026-03-31', renewal_date: '2026-04-01', ...body });
  if (created.status !== 201) throw new Error(`POST /open_enrollment_windows answered ${created.status}: ${created.text}`);
  const activated = await admin.post(`/open_enrollment_windows/${created.body.id}/activate`);
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}: ${activated.text}`);
  return activated.body;
}

export type EnrollmentWorld = Awaited<ReturnType<typeof createEnrollmentWorld>>;

/** Gives the world's edi group an EDI profile (the world's trading partners), delivered by download, its REF*0F from `subscriberIdSource`. */
export async function giveEdiProfile(world: EnrollmentWorld, subscriberIdSource: 'ssn' | 'member_id' = 'ssn'): Promise<void> {
  await ok(
    world.admin.request('PUT', `/groups/${world.groups.ediGroup.id}/edi_profile`, {
      body: {
        interchange_sender: { qualifier: 'ZZ', id: 'WORLDWIDGETS' },
        interchange_receiver: { qualifier: 'ZZ', id: 'WORLDHEALTH' },
        application_sender_code: 'WORLDWIDGETS',
        application_receiver_code: 'WORLDHEALTH',
        sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
        payer: { name: 'World Health Co', id: '987654321' },
        companion_guide: { subscriber_id_source: subscriberIdSource },
        delivery: { method: 'download' },
      },
    }),
  );
}

/** Creates an enrollment through the API and checks it was created. */
export async function createEnrollment(world: EnrollmentWorld, body: Record<string, unknown>) {
  const response = await world.admin.post('/enrollments', {
    member: world.member.id,
    category: 'open_enrollment',
    reason: 'open_enrollment',
    effective_start: '2026-04-01',
    ...body,
  });
  if (response.status !== 201) throw new Error(`POST /enrollments answered ${response.status}: ${response.text}`);
  return response.body;
}

/** Creates, submits and approves an enrollment; returns the approved record. */
export async function approvedEnrollment(world: EnrollmentWorld, body: Record<string, unknown>) {
  const enrollment = await createEnrollment(world, body);
  const submitted = await world.admin.post(`/enrollments/${enrollment.id}/save_and_submit`);
  if (submitted.status !== 200) throw new Error(`save_and_submit answered ${submitted.status}: ${submitted.text}`);
  const approved = await world.admin.post(`/enrollments/${enrollment.id}/approve`);
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${approved.text}`);
  return approved.body;
}

/**
 * One test app and one enrollment world for a whole test file: made before its first test, closed after its
 * last. Read `t` and `w` inside tests (they exist only once beforeAll has run).
 */
export function enrollmentWorldPerFile(): { readonly t: TestContext; readonly w: EnrollmentWorld } {
  const context = {} as { t: TestContext; w: EnrollmentWorld };
  beforeAll(async () => {
    context.t = await createTestApp();
    context.w = await createEnrollmentWorld(context.t);
  });
  afterAll(async () => {
    await context.t.close();
  });
  return context;
}
