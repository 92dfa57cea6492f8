/**
 * POST /payroll_runs: a pay date of a schedule marked paid, with what it took per member, deduction code and
 * period stored (payroll_run_lines: the period's own amounts and each adjustment's per paid period), so that the
 * next feed measures against it and an adjustment is taken exactly once (docs/decisions.md "Pay schedules and
 * payroll deductions", Payroll runs).
 */
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/database.ts';
import type { Page, PageRequest, Position } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { isZero, NO_AMOUNTS, addAmounts, type Amounts } from './deduction-rules.ts';
import { isPayDate } from './pay-schedule-rules.ts';
import { lockPayScheduleById } from './pay-schedule.repository.ts';
import { scheduleDatesOf } from './pay-schedule.service.ts';
import { computeFeeds, feedContext, pageMembers, toMoneyFields } from './payroll-deduction.service.ts';
import type { CreatePayrollRunBody, PayrollRunResponse } from './payroll-deduction.schemas.ts';
import * as repository from './payroll-run.repository.ts';
import type { PayrollRunLineRow, PayrollRunRow } from './payroll.table.ts';

const RUN_PAGE_SIZE = 500;

function lineRow(run: PayrollRunRow, memberId: string, code: string, periodPayDate: string, amounts: Amounts): PayrollRunLineRow {
  return {
    id: newId('payroll_run_line'),
    provider_id: run.provider_id,
    payroll_run_id: run.id,
    member_id: memberId,
    deduction_code: code,
    period_pay_date: periodPayDate,
    member_pre_tax_cents: amounts.memberPreTax,
    member_post_tax_cents: amounts.memberPostTax,
    employer_cents: amounts.employer,
    imputed_income_cents: amounts.imputedIncome,
    created_at: run.created_at,
  };
}

export class PayrollRunService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async createRun(scope: Scope, input: CreatePayrollRunBody): Promise<PayrollRunResponse> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        // The schedule's lock orders two runs of it one after the other; the unique index has the last word.
        const schedule = await lockPayScheduleById(trx, scope, input.pay_schedule);
        if (!schedule) throw new ValidationFailed([inputError(['pay_schedule'], 'No such pay schedule.')]);
        if (!isPayDate(scheduleDatesOf(schedule), input.pay_date)) throw new ValidationFailed([inputError(['pay_date'], 'Not a pay date of the schedule.')]);
        const latest = await repository.findLatestPaidPayDate(trx, schedule.id);
        if (latest !== undefined && compareDates(input.pay_date, latest) <= 0) {
          throw new InvalidState(
            `The schedule's latest run paid ${latest}: a run pays a later pay date (an earlier period is corrected by the next run's adjustments).`,
          );
        }
        const context = await feedContext(trx, scope, schedule.employer_id, input.pay_date, schedule.id);
        const periods = context.schedules.get(schedule.id)!;
        const run: PayrollRunRow = {
          id: newId('payroll_run'),
          provider_id: scope.providerId,
          employer_id: schedule.employer_id,
          pay_schedule_id: schedule.id,
          pay_date: input.pay_date,
          period_start: periods.period.start,
          created_at: this.#clock.now().toISOString(),
        };
        await repository.insertPayrollRun(trx, run);
        let after: Position | undefined;
        for (;;) {
          const members = await pageMembers(trx, context, { pageSize: RUN_PAGE_SIZE, ...(after ? { after } : {}) });
          const lines: PayrollRunLineRow[] = [];
          for (const feed of await computeFeeds(trx, context, members.results)) {
            for (const [code, amounts] of feed.current) if (!isZero(amounts)) lines.push(lineRow(run, feed.member.id, code, run.pay_date, amounts));
            for (const line of feed.lines) {
              for (const period of line.adjustment?.periods ?? []) lines.push(lineRow(run, feed.member.id, line.code, period.payDate, period.amounts));
            }
          }
          await repository.insertPayrollRunLines(trx, lines);
          const last = members.results.at(-1);
          if (!members.hasNext || last === undefined) break;
          after = { created_at: last.created_at, id: last.id };
        }
        return this.#toResponse(trx, run);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new InvalidState('A run of this schedule for this pay date exists.');
      throw error;
    }
  }

  async getRun(scope: Scope, id: string): Promise<PayrollRunResponse> {
    const run = await repository.findPayrollRunById(this.#db, scope, id);
    if (!run) throw new NotFound('payroll run');
    return this.#toResponse(this.#db, run);
  }

  async listRuns(
    scope: Scope,
    filter: { employer?: string | undefined; pay_schedule?: string | undefined },
    page: PageRequest,
  ): Promise<Page<PayrollRunResponse>> {
    const runs = await repository.listPayrollRuns(this.#db, scope, { employerId: filter.employer, payScheduleId: filter.pay_schedule }, page);
    const responses = await Promise.all(runs.results.map((run) => this.#toResponse(this.#db, run)));
    return { ...runs, results: responses };
  }

  async #toResponse(db: Kysely<Database>, run: PayrollRunRow): Promise<PayrollRunResponse> {
    const totals = await repository.findRunTotals(db, run.id, run.pay_date);
    const of = (kind: string): Amounts => {
      const row = totals.rows.find((candidate) => candidate.kind === kind);
      if (row === undefined) return NO_AMOUNTS;
      return addAmounts(NO_AMOUNTS, {
        memberPreTax: Number(row.member_pre_tax),
        memberPostTax: Number(row.member_post_tax),
        employer: Number(row.employer),
        imputedIncome: Number(row.imputed_income),
      });
    };
    return {
      id: run.id,
      employer: run.employer_id,
      pay_schedule: run.pay_schedule_id,
      pay_date: run.pay_date,
      period_start: run.period_start,
      members: totals.members,
      deductions: toMoneyFields(of('current')),
      adjustments: toMoneyFields(of('adjustment')),
      created_at: run.created_at,
    };
  }
}
