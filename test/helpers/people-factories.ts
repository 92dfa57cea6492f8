import { newId } from '../../src/shared/ids.ts';
import type { EnrollmentStatus } from '../../src/modules/enrollments/enrollment.table.ts';
import type { ApiClient, TestContext } from './test-app.ts';
import { createMember } from './factories.ts';
import { insertEnrollment, insertPlanWithConfiguration } from './rows.ts';

/** Dependents, beneficiaries and pay rates created through the API; the member is created when not given. */
async function created(client: ApiClient, path: string, body: Record<string, unknown>) {
  const response = await client.post(path, body);
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${response.text}`);
  return response.body;
}

export async function createDependent(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const member = overrides.member ?? (await createMember(client)).id;
  return created(client, '/dependents', {
    first_name: 'Sam',
    last_name: 'Rivera',
    member_relationship: 'child',
    dob: '2015-06-01',
    ...overrides,
    member,
  });
}

export async function createBeneficiary(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const member = overrides.member ?? (await createMember(client)).id;
  return created(client, '/beneficiaries', { full_name: 'Alex Rivera', member_relationship: 'spouse', ...overrides, member });
}

export async function createPayRate(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const member = overrides.member ?? (await createMember(client)).id;
  return created(client, '/pay_rates', { amount: '72000.00', effective_start: '2026-01-01', ...overrides, member });
}

/**
 * An enrollment of the member in `status` whose one enrolled plan covers the given dependents, inserted
 * straight into the database (enrollments have no API yet). The member and dependents must be of the
 * default provider.
 */
export async function insertDependentCoverage(
  t: TestContext,
  options: { member: string; employer: string; dependents: readonly string[]; status: EnrollmentStatus; planId?: string },
): Promise<{ enrollmentId: string; enrolledPlanId: string; enrolledDependentIds: string[] }> {
  const planId = options.planId ?? (await insertPlanWithConfiguration(t, { employer: options.employer })).planId;
  const { enrollmentId, enrolledPlanId } = await insertEnrollment(t, { member: options.member, employer: options.employer, planId, status: options.status });
  const now = t.clock.now().toISOString();
  const enrolledDependentIds = options.dependents.map(() => newId('enrolled_dependent'));
  if (options.dependents.length > 0) {
    await t.database.db
      .insertInto('enrolled_dependents')
      .values(
        options.dependents.map((dependentId, position) => ({
          id: enrolledDependentIds[position]!,
          provider_id: t.providerId,
          enrolled_plan_id: enrolledPlanId,
          dependent_id: dependentId,
          position,
          volume_cents: null,
          requested_volume_cents: null,
          volume_approved_at: null,
          eoi_dismissed_at: null,
          eoi_status: 'not_required' as const,
          primary_care_provider: null,
          member_id_card_id: null,
          created_at: now,
        })),
      )
      .execute();
  }
  return { enrollmentId, enrolledPlanId, enrolledDependentIds };
}

/** A coverage waiver of the dependent in an existing enrollment (e.g. dental waived: covered by a spouse's plan). */
export async function insertDependentWaiver(t: TestContext, options: { enrollmentId: string; member: string; dependent: string }): Promise<string> {
  const id = newId('coverage_waiver');
  await t.database.db
    .insertInto('coverage_waivers')
    .values({
      id,
      enrollment_id: options.enrollmentId,
      position: 0,
      line_of_coverage: 'dental',
      reason: 'covered_by_spouse',
      member_id: options.member,
      dependent_id: options.dependent,
    })
    .execute();
  return id;
}
