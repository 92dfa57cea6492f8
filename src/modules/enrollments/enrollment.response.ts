/**
 * Enrollments as the API answers them, and the JSON forms of their nested values.
 */
import { newId } from '../../shared/ids.ts';
import { parseMetadata } from '../../shared/metadata.ts';
import { fromCents } from '../../shared/money.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { payPeriodAmounts } from '../payroll/pay-period-rules.ts';
import type { PayScheduleRow } from '../payroll/payroll.table.ts';
import { fromBasisPoints } from '../plans/pricing.ts';
import type { Elections } from './enrollment.repository.ts';
import type { BeneficiaryDesignationInput, EnrollmentResponse, PrimaryCareProvider, PrimaryCareProviderInput } from './enrollment.schemas.ts';
import { DESIGNATION_LINES, type BeneficiaryDesignationRow, type EnrolledDependentRow, type EnrolledPlanRow, type EnrollmentRow } from './enrollment.table.ts';

export const money = (cents: number | null) => (cents === null ? null : fromCents(cents));

/**
 * `schedules`: the pay schedule of the enrollment's member (findPaySchedulesOfMembers), for each priced election's
 * amounts per pay period (payroll/pay-period-rules.ts); absent: null.
 */
export function toEnrollmentResponse(row: EnrollmentRow, elections: Elections, schedules: ReadonlyMap<string, PayScheduleRow>): EnrollmentResponse {
  const schedule = schedules.get(row.member_id);
  const dependentsByPlan = Map.groupBy(elections.dependents, (dependent) => dependent.enrolled_plan_id);
  const plansById = new Map(elections.plans.map((plan) => [plan.id, plan]));
  const designationsByPlan = Map.groupBy(elections.designations, (designation) => designation.enrolled_plan_id);
  return {
    id: row.id,
    member: row.member_id,
    employer: row.employer_id,
    category: row.category,
    status: row.status,
    effective_start: row.effective_start,
    effective_end: row.effective_end,
    reason: row.reason as EnrollmentResponse['reason'],
    change_date: row.change_date,
    qualifying_life_event_documents: JSON.parse(row.qualifying_life_event_documents) as string[],
    enrolled_plans: elections.plans
      .filter((plan) => plan.enrollment_id === row.id)
      .map((plan) => ({
        id: plan.id,
        enrollment: row.id,
        plan: plan.plan_id,
        enrolled_dependents: (dependentsByPlan.get(plan.id) ?? []).map((dependent) => ({
          id: dependent.id,
          plan: plansById.get(dependent.enrolled_plan_id)?.plan_id ?? plan.plan_id,
          dependent: dependent.dependent_id,
          primary_care_provider: parsePrimaryCareProvider(dependent.primary_care_provider),
          ...volumeFields(dependent),
        })),
        primary_care_provider: parsePrimaryCareProvider(plan.primary_care_provider),
        effective_start: plan.effective_start,
        effective_end: plan.effective_end,
        premium: money(plan.premium_cents),
        employer_contribution: money(plan.employer_contribution_cents),
        member_contribution: money(plan.member_contribution_cents),
        payroll_provider_external_id: plan.payroll_provider_external_id,
        pay_period: payPeriodAmounts(schedule, plan.member_contribution_cents, plan.employer_contribution_cents),
        ...volumeFields(plan),
        beneficiary_designations: (designationsByPlan.get(plan.id) ?? []).map((designation) => ({
          id: designation.id,
          beneficiary: designation.beneficiary_id,
          designation: designation.designation,
          percentage: fromBasisPoints(designation.percentage_basis_points),
        })),
        primary_beneficiary_missing:
          takesDesignations(elections.lines.get(plan.id)) &&
          !(designationsByPlan.get(plan.id) ?? []).some((designation) => designation.designation === 'primary'),
      })),
    coverage_waivers: elections.waivers
      .filter((waiver) => waiver.enrollment_id === row.id)
      .map((waiver) => ({
        id: waiver.id,
        line_of_coverage: waiver.line_of_coverage as LineOfCoverage,
        reason: waiver.reason as EnrollmentResponse['coverage_waivers'][number]['reason'],
        member: waiver.member_id,
        dependent: waiver.dependent_id,
      })),
    metadata: parseMetadata(row.metadata),
    submitted_at: row.submitted_at,
    approved_at: row.approved_at,
    open_enrollment_window: row.open_enrollment_window_id,
    cancellation_reason: row.cancellation_reason,
    other_coverage: row.other_coverage,
    medicare_entitled_dependent: row.medicare_entitled_dependent_id,
    rules_override:
      row.rules_override_reason === null
        ? null
        : { reason: row.rules_override_reason, api_key: row.rules_override_api_key_id!, created_at: row.rules_override_at! },
    created_at: row.created_at,
  };
}

function volumeFields(row: EnrolledPlanRow | EnrolledDependentRow) {
  return {
    volume: money(row.volume_cents),
    requested_volume: money(row.requested_volume_cents),
    volume_approved_at: row.volume_approved_at,
    eoi_dismissed_at: row.eoi_dismissed_at,
    eoi_status: row.eoi_status,
  };
}

export function parsePrimaryCareProvider(json: string | null): PrimaryCareProvider | null {
  return json === null ? null : (JSON.parse(json) as PrimaryCareProvider);
}

export function primaryCareProviderJson(input: PrimaryCareProviderInput | null | undefined): string | null {
  if (!input) return null;
  return JSON.stringify({
    id: newId('primary_care_provider'),
    full_name: input.full_name,
    is_existing_patient: input.is_existing_patient ?? false,
    provider_id_number: input.provider_id_number ?? null,
  });
}

export function takesDesignations(line: LineOfCoverage | undefined): boolean {
  return line !== undefined && DESIGNATION_LINES.has(line);
}

/** A plan's stored designations as input again (an election rebuilt keeps who the member named). */
export function designationInputs(designations: readonly BeneficiaryDesignationRow[], enrolledPlanId: string): BeneficiaryDesignationInput[] {
  return designations
    .filter((designation) => designation.enrolled_plan_id === enrolledPlanId)
    .map((designation) => ({
      beneficiary: designation.beneficiary_id,
      designation: designation.designation,
      percentage: fromBasisPoints(designation.percentage_basis_points),
    }));
}

/** A notification about an enrollment (submitted: to the employer; approved: to the member), ids only. */
export function enrollmentNotification(
  enrollment: Pick<EnrollmentRow, 'id' | 'provider_id' | 'employer_id' | 'member_id'>,
  type: 'enrollment_submitted' | 'enrollment_approved',
  owner: 'employer' | 'member',
): NewNotification {
  return {
    providerId: enrollment.provider_id,
    employerId: enrollment.employer_id,
    type,
    relatedObjectType: 'enrollment',
    relatedObjectId: enrollment.id,
    owner,
    payload: { enrollment: enrollment.id, member: enrollment.member_id, employer: enrollment.employer_id },
  };
}
