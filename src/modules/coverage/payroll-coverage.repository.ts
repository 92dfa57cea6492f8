/**
 * The coverage the payroll deduction feed reads (payroll/payroll-deduction.service.ts): a page of an employer's
 * members who have coverage or deductions, and their coverage over a span of dates, with what prices it.
 */
import type { Executor } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { isCoverage } from './coverage-in-force.ts';

export interface PayrollMemberFilter {
  providerId: string;
  employerId: string;
  /** Members assigned to one of these schedules... */
  scheduleIds: readonly string[];
  /** ...and, when true, members assigned to none (the employer's default schedule is among scheduleIds). */
  includeUnassigned: boolean;
  /** Only members with coverage running on or after this day, or with a payroll run line. */
  since: string;
}

export interface PayrollMemberRow {
  id: string;
  created_at: string;
  dob: string;
  pay_schedule_id: string | null;
  payroll_provider_external_id: string | null;
}

/** The members with these ids, as the feed reads them (a premium bill's members). */
export function findPayrollMembers(db: Executor, memberIds: readonly string[]): Promise<PayrollMemberRow[]> {
  if (memberIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('members')
    .select(['members.id', 'members.created_at', 'members.dob', 'members.pay_schedule_id', 'members.payroll_provider_external_id'])
    .where('members.id', 'in', memberIds)
    .execute();
}

/** A page (keyset on created_at, id) of the members the feed lists. */
export function pagePayrollMembers(db: Executor, filter: PayrollMemberFilter, page: PageRequest): Promise<Page<PayrollMemberRow>> {
  const query = db
    .selectFrom('members')
    .select(['members.id', 'members.created_at', 'members.dob', 'members.pay_schedule_id', 'members.payroll_provider_external_id'])
    .where('members.provider_id', '=', filter.providerId)
    .where('members.employer_id', '=', filter.employerId)
    .where((eb) => {
      const assigned = filter.scheduleIds.length > 0 ? [eb('members.pay_schedule_id', 'in', filter.scheduleIds)] : [];
      const unassigned = filter.includeUnassigned ? [eb('members.pay_schedule_id', 'is', null)] : [];
      const either = [...assigned, ...unassigned];
      return either.length === 0 ? eb.val(false) : eb.or(either);
    })
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('enrolled_plans')
            .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
            .select('enrolled_plans.id')
            .whereRef('enrolled_plans.member_id', '=', 'members.id')
            .where((inner) => inner.or([inner('enrolled_plans.effective_end', 'is', null), inner('enrolled_plans.effective_end', '>=', filter.since)]))
            .where(isCoverage()),
        ),
        eb.exists(eb.selectFrom('payroll_run_lines').select('payroll_run_lines.id').whereRef('payroll_run_lines.member_id', '=', 'members.id')),
      ]),
    );
  return paginate(query, page, 'members');
}

export interface PayrollCoverageRow {
  id: string;
  member_id: string;
  plan_id: string;
  line_of_coverage: LineOfCoverage;
  plan_start: string;
  plan_end: string;
  effective_start: string;
  effective_end: string | null;
  member_contribution_cents: number | null;
  employer_contribution_cents: number | null;
  volume_cents: number | null;
  created_at: string;
}

/** The members' coverage (isCoverage) running at some point from `from` through `to`. */
export async function findPayrollCoverage(db: Executor, memberIds: readonly string[], from: string, to: string): Promise<PayrollCoverageRow[]> {
  if (memberIds.length === 0) return [];
  const rows = await db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'enrolled_plans.id',
      'enrolled_plans.member_id',
      'enrolled_plans.plan_id',
      'plans.line_of_coverage',
      'plans.effective_start as plan_start',
      'plans.effective_end as plan_end',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'enrolled_plans.member_contribution_cents',
      'enrolled_plans.employer_contribution_cents',
      'enrolled_plans.volume_cents',
      'enrolled_plans.created_at',
    ])
    .where('enrolled_plans.member_id', 'in', memberIds)
    .where('enrolled_plans.effective_start', 'is not', null)
    .where('enrolled_plans.effective_start', '<=', to)
    .where((eb) => eb.or([eb('enrolled_plans.effective_end', 'is', null), eb('enrolled_plans.effective_end', '>=', from)]))
    .where(isCoverage())
    .execute();
  return rows.map((row) => ({
    ...row,
    effective_start: row.effective_start!,
    member_contribution_cents: row.member_contribution_cents === null ? null : Number(row.member_contribution_cents),
    employer_contribution_cents: row.employer_contribution_cents === null ? null : Number(row.employer_contribution_cents),
    volume_cents: row.volume_cents === null ? null : Number(row.volume_cents),
  }));
}

/** The dependents each of these enrolled plans covers (by enrolled plan id). */
export async function findCoveredDependentsOf(db: Executor, enrolledPlanIds: readonly string[]): Promise<Map<string, DependentRow[]>> {
  if (enrolledPlanIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('enrolled_dependents')
    .innerJoin('dependents', 'dependents.id', 'enrolled_dependents.dependent_id')
    .selectAll('dependents')
    .select('enrolled_dependents.enrolled_plan_id')
    .where('enrolled_dependents.enrolled_plan_id', 'in', enrolledPlanIds)
    .orderBy('enrolled_dependents.enrolled_plan_id')
    .orderBy('enrolled_dependents.position')
    .execute();
  const byPlan = new Map<string, DependentRow[]>();
  for (const { enrolled_plan_id: enrolledPlanId, ...dependent } of rows) {
    const list = byPlan.get(enrolledPlanId) ?? [];
    list.push(dependent);
    byPlan.set(enrolledPlanId, list);
  }
  return byPlan;
}
