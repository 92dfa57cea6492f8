/**
 * What a page of the deduction feed needs, read once per page (docs/decisions.md "Pay schedules and payroll
 * deductions"): the members' coverage over the periods asked, the plan configurations that name the codes and
 * tax treatments, and, for health coverage of a domestic partner, what prices it again without them. A fixed number
 * of statements per page, whatever its size; the members' full rows and plans only for the few with a partner.
 */
import type { Executor } from '../../db/database.ts';
import { findCoveredDependentsOf, findPayrollCoverage, type PayrollCoverageRow, type PayrollMemberRow } from '../coverage/payroll-coverage.repository.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import type { PlanRow } from '../plans/plan.table.ts';
import { isNonDependentPartner, PARTNER_IMPUTED_LINES } from './deduction-rules.ts';

export interface DeductionFacts {
  coverage: Map<string, PayrollCoverageRow[]>;
  /** Each member's date of birth (§79's age), from the page's rows. */
  dobs: Map<string, string>;
  /** The full rows of the members whose health coverage covers a non-dependent partner (what prices it again). */
  members: Map<string, MemberRow>;
  subclassIds: Map<string, string[]>;
  configurations: Map<string, PlanConfigurationRow[]>;
  plans: Map<string, PlanRow>;
  /** Covered dependents of the health elections that cover a non-dependent partner (by enrolled plan id). */
  partnerCoverage: Map<string, DependentRow[]>;
}

export async function loadDeductionFacts(db: Executor, page: readonly PayrollMemberRow[], from: string, to: string): Promise<DeductionFacts> {
  const memberIds = page.map((member) => member.id);
  const rows = await findPayrollCoverage(db, memberIds, from, to);
  const coverage = Map.groupBy(rows, (row) => row.member_id);
  const planIds = [...new Set(rows.map((row) => row.plan_id))];
  const subclasses =
    memberIds.length === 0
      ? []
      : await db.selectFrom('member_subclasses').select(['member_id', 'subclass_id']).where('member_id', 'in', memberIds).orderBy('position').execute();
  const configurations =
    planIds.length === 0 ? [] : await db.selectFrom('plan_configurations').selectAll().where('plan_id', 'in', planIds).orderBy('created_at').execute();
  const healthIds = rows.filter((row) => PARTNER_IMPUTED_LINES.has(row.line_of_coverage)).map((row) => row.id);
  const covered = await findCoveredDependentsOf(db, healthIds);
  const partnerCoverage = new Map(
    [...covered].filter(([, dependents]) => dependents.some((dependent) => isNonDependentPartner(dependent.member_relationship))),
  );
  const partnerRows = rows.filter((row) => partnerCoverage.has(row.id));
  const partnerPlanIds = [...new Set(partnerRows.map((row) => row.plan_id))];
  const partnerMemberIds = [...new Set(partnerRows.map((row) => row.member_id))];
  const plans = partnerPlanIds.length === 0 ? [] : await db.selectFrom('plans').selectAll().where('id', 'in', partnerPlanIds).execute();
  const members = partnerMemberIds.length === 0 ? [] : await db.selectFrom('members').selectAll().where('id', 'in', partnerMemberIds).execute();
  return {
    coverage,
    dobs: new Map(page.map((member) => [member.id, member.dob])),
    members: new Map(members.map((member) => [member.id, member])),
    subclassIds: new Map([...Map.groupBy(subclasses, (row) => row.member_id)].map(([memberId, list]) => [memberId, list.map((row) => row.subclass_id)])),
    configurations: Map.groupBy(configurations, (row) => row.plan_id),
    plans: new Map(plans.map((plan) => [plan.id, plan])),
    partnerCoverage,
  };
}
