/**
 * Payroll's side of a premium bill (docs/decisions.md "Premium bills", What payroll deducted): for each member and
 * month compared, what the runs took and what our coverage owes payroll, per deduction code, and whether every pay
 * date of the month was paid. Read in bulk: the group's codes once, the employer's schedules and their paid dates
 * once, what runs took in one query per batch of members, and the payroll feed's facts per batch of members (the
 * same `owedOn` the feed and the runs compute with, so a run that took what the feed showed reconciles exactly).
 */
import type { Executor } from '../../db/database.ts';
import { addMonths, endOfMonth } from '../../shared/dates.ts';
import { batches } from '../../shared/batches.ts';
import { findPayrollMembers } from '../coverage/payroll-coverage.repository.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { deductionCodeOf, type Amounts } from '../payroll/deduction-rules.ts';
import { payDatesBetween, type PayScheduleDates } from '../payroll/pay-schedule-rules.ts';
import { findEmployerPaySchedules } from '../payroll/pay-schedule.repository.ts';
import { scheduleDatesOf } from '../payroll/pay-schedule.service.ts';
import { loadDeductionFacts } from '../payroll/payroll-deduction-facts.ts';
import { owedOn, PlanYearIndex } from '../payroll/payroll-owed.ts';
import { findDeductedInMonths, findPaidPayDates } from '../payroll/payroll-run.repository.ts';
import { payrollKey, type PayrollFacts, type PayrollMonth } from './premium-bill-rules.ts';
import { findGroupDeductionCodes } from './premium-bill.repository.ts';

/** Members whose coverage facts are read at once (the feed's page size). */
const MEMBER_BATCH = 500;

const memberShare = (amounts: Amounts) => amounts.memberPreTax + amounts.memberPostTax;

/**
 * The group's deduction codes: each configuration's code, else (a configuration without one, or a plan without a
 * configuration) the plan's line of coverage, the feed's default. A code several lines share counts under the
 * first of them in name order (a bill by line then shows it on that line only).
 */
export function codeLinesOf(rows: readonly { line_of_coverage: LineOfCoverage; deduction_code: string | null }[]): Map<string, LineOfCoverage> {
  const codeLines = new Map<string, LineOfCoverage>();
  for (const row of rows) {
    const code = deductionCodeOf(row.deduction_code, row.line_of_coverage);
    const held = codeLines.get(code);
    if (held === undefined || row.line_of_coverage < held) codeLines.set(code, row.line_of_coverage);
  }
  return codeLines;
}

/** The months from `first` through `last` (YYYY-MM), ascending. */
export function monthsFrom(first: string, last: string): string[] {
  const months: string[] = [];
  for (let month = first; month <= last; month = addMonths(`${month}-01`, 1).slice(0, 7)) months.push(month);
  return months;
}

interface ScheduleMonths {
  dates: PayScheduleDates;
  index: PlanYearIndex;
  payDates: string[];
  paid: Set<string>;
}

export async function loadBillPayroll(
  db: Executor,
  input: { providerId: string; employerId: string; groupId: string; memberIds: readonly string[]; firstMonth: string; lastMonth: string },
): Promise<PayrollFacts> {
  const codeLines = codeLinesOf(await findGroupDeductionCodes(db, input.groupId));
  const months = new Map<string, PayrollMonth>();
  const scheduleRows = await findEmployerPaySchedules(db, input.providerId, input.employerId);
  // Runs are a schedule's: an employer without one has no run, and no member of it a pay date.
  if (scheduleRows.length === 0 || input.memberIds.length === 0 || codeLines.size === 0) return { codeLines, months };
  const from = `${input.firstMonth}-01`;
  const to = endOfMonth(`${input.lastMonth}-01`);
  const schedules = new Map<string, ScheduleMonths>();
  for (const row of scheduleRows) {
    const dates = scheduleDatesOf(row);
    schedules.set(row.id, {
      dates,
      index: new PlanYearIndex(dates),
      payDates: payDatesBetween(dates, from, to),
      paid: new Set(await findPaidPayDates(db, row.id, from, to)),
    });
  }
  const defaultId = scheduleRows.find((row) => Boolean(row.is_default))?.id;
  const monthList = monthsFrom(input.firstMonth, input.lastMonth);
  const deducted = await findDeductedInMonths(db, input.providerId, input.memberIds, input.firstMonth, input.lastMonth);
  for (const batch of batches(input.memberIds, MEMBER_BATCH)) {
    const rows = await findPayrollMembers(db, batch);
    const facts = await loadDeductionFacts(db, rows, from, to);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const memberId of batch) {
      const member = byId.get(memberId);
      const schedule = member === undefined ? undefined : schedules.get(member.pay_schedule_id ?? defaultId ?? '');
      const tookByMonth = deducted.get(memberId);
      for (const month of monthList) {
        const payDates = schedule?.payDates.filter((payDate) => payDate.startsWith(month)) ?? [];
        const owed = new Map<string, number>();
        for (const payDate of payDates) {
          for (const [code, amounts] of owedOn(facts, memberId, schedule!.dates, schedule!.index, payDate))
            owed.set(code, (owed.get(code) ?? 0) + memberShare(amounts));
        }
        const took = new Map([...(tookByMonth?.get(month) ?? [])].map(([code, amounts]) => [code, memberShare(amounts)]));
        months.set(payrollKey(memberId, month), {
          paid: payDates.length > 0 && payDates.every((payDate) => schedule!.paid.has(payDate)),
          deducted: took,
          owed,
        });
      }
    }
  }
  return { codeLines, months };
}
