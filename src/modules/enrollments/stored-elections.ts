/**
 * Elections as stored, read again: their volume columns, the row of one person, the inputs that elect them
 * again (a continuation, a repricing) and what such a re-election keeps. Pure functions over rows.
 */
import { compareDates } from '../../shared/dates.ts';
import type { Elections } from './enrollment.repository.ts';
import { designationInputs, money, parsePrimaryCareProvider } from './enrollment.response.ts';
import type { VolumeDecision } from './volume-decisions.ts';
import type { EnrolledPlanInput } from './enrollment.schemas.ts';
import type { EnrolledDependentRow, EnrolledPlanRow } from './enrollment.table.ts';

/** The volume and EOI columns of an enrolled plan or dependent. */
export type VolumeColumns = Pick<EnrolledPlanRow, 'volume_cents' | 'requested_volume_cents' | 'volume_approved_at' | 'eoi_dismissed_at' | 'eoi_status'>;

/**
 * The volumes a re-election carries on instead of deciding them anew (an age-out, a repricing, an EOI decision
 * after approval): the member's, and each covered dependent's by dependent id.
 */
export interface KeptVolumes {
  member: VolumeColumns;
  dependents: ReadonlyMap<string, VolumeColumns>;
}

/** The columns of a volume decided for a new election. */
export function volumeColumns(decision: VolumeDecision): VolumeColumns {
  return {
    volume_cents: decision.volumeCents,
    requested_volume_cents: decision.requestedVolumeCents,
    volume_approved_at: null,
    eoi_dismissed_at: null,
    eoi_status: decision.eoiStatus,
  };
}

/** The volume and EOI columns of a stored row. */
export function volumeColumnsOf(row: VolumeColumns): VolumeColumns {
  return {
    volume_cents: row.volume_cents,
    requested_volume_cents: row.requested_volume_cents,
    volume_approved_at: row.volume_approved_at,
    eoi_dismissed_at: row.eoi_dismissed_at,
    eoi_status: row.eoi_status,
  };
}

/** The stored row of a person on an enrolled plan: the plan itself for the member (null), else the dependent's. */
export function rowOfPerson(stored: Pick<Elections, 'dependents'>, plan: EnrolledPlanRow, dependentId: string | null): EnrolledPlanRow | EnrolledDependentRow {
  return dependentId === null ? plan : stored.dependents.find((d) => d.enrolled_plan_id === plan.id && d.dependent_id === dependentId)!;
}

/** The volumes of an enrolled plan and its dependents as stored: a re-election that changes no volume. */
export function storedVolumes(stored: Pick<Elections, 'dependents'>, plan: EnrolledPlanRow): KeptVolumes {
  const dependents = stored.dependents.filter((dependent) => dependent.enrolled_plan_id === plan.id);
  return { member: volumeColumnsOf(plan), dependents: new Map(dependents.map((dependent) => [dependent.dependent_id, volumeColumnsOf(dependent)])) };
}

/** The stored elections as the input that elects them again (persons, designations, providers, requested volumes). */
export function storedPlanInputs(stored: Pick<Elections, 'plans' | 'dependents' | 'designations'>): EnrolledPlanInput[] {
  return stored.plans.map((plan) => ({
    plan: plan.plan_id,
    beneficiary_designations: designationInputs(stored.designations, plan.id),
    enrolled_dependents: stored.dependents
      .filter((dependent) => dependent.enrolled_plan_id === plan.id)
      .map((dependent) => ({
        dependent: dependent.dependent_id,
        primary_care_provider: parsePrimaryCareProvider(dependent.primary_care_provider),
        requested_volume: money(dependent.requested_volume_cents),
      })),
    primary_care_provider: parsePrimaryCareProvider(plan.primary_care_provider),
    payroll_provider_external_id: plan.payroll_provider_external_id,
    requested_volume: money(plan.requested_volume_cents),
  }));
}

/**
 * A re-election of stored coverage (`before`, by position) keeps its member id cards, and for plans without
 * rates the figures the client gave.
 */
export function keepCardsAndClientPrices(elections: Elections, before: readonly EnrolledPlanRow[], beforeDependents: readonly EnrolledDependentRow[]): void {
  elections.plans.forEach((plan, index) => {
    const previous = before[index]!;
    plan.member_id_card_id = previous.member_id_card_id;
    if (plan.premium_cents === null) {
      Object.assign(plan, {
        premium_cents: previous.premium_cents,
        employer_contribution_cents: previous.employer_contribution_cents,
        member_contribution_cents: previous.member_contribution_cents,
      });
    }
  });
  for (const dependent of elections.dependents) {
    const plan = elections.plans.find((p) => p.id === dependent.enrolled_plan_id)!;
    const previous = beforeDependents.find((d) => d.enrolled_plan_id === before[plan.position]!.id && d.dependent_id === dependent.dependent_id);
    if (previous) dependent.member_id_card_id = previous.member_id_card_id;
  }
}

/** One enrolled plan per plan: the latest starting (rows come in any order). */
export function latestPerPlan(rows: readonly EnrolledPlanRow[]): EnrolledPlanRow[] {
  const latest = new Map<string, EnrolledPlanRow>();
  for (const row of rows) {
    const kept = latest.get(row.plan_id);
    if (!kept || compareDates(row.effective_start ?? '0001-01-01', kept.effective_start ?? '0001-01-01') > 0) latest.set(row.plan_id, row);
  }
  return [...latest.values()];
}

/** Whether an enrolled plan's coverage is in force on `day` or later (not ended before it, not cancelled). */
export function runsOn(plan: Pick<EnrolledPlanRow, 'effective_start' | 'effective_end'>, day: string): boolean {
  if (plan.effective_end === null) return true;
  if (plan.effective_start !== null && compareDates(plan.effective_end, plan.effective_start) < 0) return false;
  return compareDates(plan.effective_end, day) >= 0;
}
