import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor } from '../../db/database.ts';
import { findByIdInScope, inScope } from '../../db/scope.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { batches } from '../../shared/batches.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { addAmounts, NO_AMOUNTS, type Amounts } from './deduction-rules.ts';
import type { PayrollRunLineRow, PayrollRunRow } from './payroll.table.ts';

function payrollRuns(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('payroll_runs').selectAll(), scope, 'payroll_runs', 'employer_id');
}

export const findPayrollRunById: (db: Executor, scope: Scope, id: string) => Promise<PayrollRunRow | undefined> = findByIdInScope(payrollRuns);

export function listPayrollRuns(
  db: Executor,
  scope: Scope,
  filter: { employerId?: string | undefined; payScheduleId?: string | undefined },
  page: PageRequest,
): Promise<Page<PayrollRunRow>> {
  let query = payrollRuns(db, scope);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  if (filter.payScheduleId !== undefined) query = query.where('pay_schedule_id', '=', filter.payScheduleId);
  return paginate(query, page);
}

/** The pay dates of a schedule's runs from `from` through `to`, oldest first. */
export async function findPaidPayDates(db: Executor, payScheduleId: string, from: string, to: string): Promise<string[]> {
  const rows = await db
    .selectFrom('payroll_runs')
    .select('pay_date')
    .where('pay_schedule_id', '=', payScheduleId)
    .where('pay_date', '>=', from)
    .where('pay_date', '<=', to)
    .orderBy('pay_date')
    .execute();
  return rows.map((row) => row.pay_date);
}

/** The latest pay date a schedule's runs paid; undefined before the first run. */
export async function findLatestPaidPayDate(db: Executor, payScheduleId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('payroll_runs')
    .select('pay_date')
    .where('pay_schedule_id', '=', payScheduleId)
    .orderBy('pay_date', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.pay_date;
}

/** What runs took per member, deduction code and period, for these members and periods: member -> code -> pay date -> amounts. */
export async function findTaken(
  db: Executor,
  memberIds: readonly string[],
  periods: readonly string[],
): Promise<Map<string, Map<string, Map<string, Amounts>>>> {
  const taken = new Map<string, Map<string, Map<string, Amounts>>>();
  if (memberIds.length === 0 || periods.length === 0) return taken;
  const rows = await db
    .selectFrom('payroll_run_lines')
    .select(['member_id', 'deduction_code', 'period_pay_date'])
    .select((eb) => [
      eb.fn.sum<string | number>('member_pre_tax_cents').as('member_pre_tax'),
      eb.fn.sum<string | number>('member_post_tax_cents').as('member_post_tax'),
      eb.fn.sum<string | number>('employer_cents').as('employer'),
      eb.fn.sum<string | number>('imputed_income_cents').as('imputed_income'),
    ])
    .where('member_id', 'in', memberIds)
    .where('period_pay_date', 'in', periods)
    .groupBy(['member_id', 'deduction_code', 'period_pay_date'])
    .execute();
  for (const row of rows) {
    const byCode = taken.get(row.member_id) ?? new Map<string, Map<string, Amounts>>();
    taken.set(row.member_id, byCode);
    const byPeriod = byCode.get(row.deduction_code) ?? new Map<string, Amounts>();
    byCode.set(row.deduction_code, byPeriod);
    byPeriod.set(row.period_pay_date, {
      memberPreTax: Number(row.member_pre_tax),
      memberPostTax: Number(row.member_post_tax),
      employer: Number(row.employer),
      imputedIncome: Number(row.imputed_income),
    });
  }
  return taken;
}

export async function insertPayrollRun(db: Executor, row: PayrollRunRow): Promise<void> {
  await db.insertInto('payroll_runs').values(row).execute();
}

export async function insertPayrollRunLines(db: Executor, rows: readonly PayrollRunLineRow[]): Promise<void> {
  if (rows.length > 0) await insertRows(db, 'payroll_run_lines', rows);
}

/** A run's totals over its lines: its own period and the adjustments it took. */
export async function findRunTotals(db: Executor, runId: string, payDate: string) {
  const rows = await db
    .selectFrom('payroll_run_lines')
    .select((eb) => [
      eb.case().when('period_pay_date', '=', payDate).then('current').else('adjustment').end().as('kind'),
      eb.fn.count<string | number>('id').as('lines'),
      eb.fn.sum<string | number>('member_pre_tax_cents').as('member_pre_tax'),
      eb.fn.sum<string | number>('member_post_tax_cents').as('member_post_tax'),
      eb.fn.sum<string | number>('employer_cents').as('employer'),
      eb.fn.sum<string | number>('imputed_income_cents').as('imputed_income'),
    ])
    .where('payroll_run_id', '=', runId)
    .groupBy('kind')
    .execute();
  const members = await db
    .selectFrom('payroll_run_lines')
    .select((eb) => eb.fn.count<string | number>('member_id').distinct().as('members'))
    .where('payroll_run_id', '=', runId)
    .executeTakeFirst();
  return { rows, members: Number(members?.members ?? 0) };
}

/** Members per query of findDeductedInMonths (under both databases' parameter limits). */
const DEDUCTED_BATCH = 500;

/**
 * What payroll deducted, for many members and months at once: member -> month (YYYY-MM) -> deduction code -> what the
 * runs recorded for the pay periods whose pay date falls in that month (adjustments taken later included), for the
 * months from `fromMonth` through `toMonth`. One query per DEDUCTED_BATCH members.
 */
export async function findDeductedInMonths(
  db: Executor,
  providerId: string,
  memberIds: readonly string[],
  fromMonth: string,
  toMonth: string,
): Promise<Map<string, Map<string, Map<string, Amounts>>>> {
  const deducted = new Map<string, Map<string, Map<string, Amounts>>>();
  for (const batch of batches(memberIds, DEDUCTED_BATCH)) {
    const rows = await db
      .selectFrom('payroll_run_lines')
      .select(['member_id', 'deduction_code', 'period_pay_date'])
      .select((eb) => [
        eb.fn.sum<string | number>('member_pre_tax_cents').as('member_pre_tax'),
        eb.fn.sum<string | number>('member_post_tax_cents').as('member_post_tax'),
        eb.fn.sum<string | number>('employer_cents').as('employer'),
        eb.fn.sum<string | number>('imputed_income_cents').as('imputed_income'),
      ])
      .where('provider_id', '=', providerId)
      .where('member_id', 'in', batch)
      .where('period_pay_date', '>=', `${fromMonth}-01`)
      .where('period_pay_date', '<=', `${toMonth}-31`)
      .groupBy(['member_id', 'deduction_code', 'period_pay_date'])
      .execute();
    for (const row of rows) {
      const byMonth = deducted.get(row.member_id) ?? new Map<string, Map<string, Amounts>>();
      deducted.set(row.member_id, byMonth);
      const month = row.period_pay_date.slice(0, 7);
      const byCode = byMonth.get(month) ?? new Map<string, Amounts>();
      byMonth.set(month, byCode);
      byCode.set(
        row.deduction_code,
        addAmounts(byCode.get(row.deduction_code) ?? NO_AMOUNTS, {
          memberPreTax: Number(row.member_pre_tax),
          memberPostTax: Number(row.member_post_tax),
          employer: Number(row.employer),
          imputedIncome: Number(row.imputed_income),
        }),
      );
    }
  }
  return deducted;
}
