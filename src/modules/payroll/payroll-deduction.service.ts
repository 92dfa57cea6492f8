/**
 * GET /payroll_deductions (docs/decisions.md "Pay schedules and payroll deductions"): per member and deduction code
 * the amounts of the pay period containing a date, what changed since the previous pay date, and the retroactive
 * adjustments owed for periods already paid (what is owed now less what the runs took: STYLE habit 17).
 */
import type { Kysely } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { isVisibleReference } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import { addDays, addYears, compareDates, FIRST_DATE, LAST_DATE } from '../../shared/dates.ts';
import { NotFound, ValidationFailed, inputError } from '../../shared/errors.ts';
import { fromCents } from '../../shared/money.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { pagePayrollMembers, type PayrollMemberRow } from '../coverage/payroll-coverage.repository.ts';
import { adjustmentOf, changeOf, NO_AMOUNTS, type Adjustment, type Amounts, type Change } from './deduction-rules.ts';
import { payDateBefore, payPeriodContaining, type PayPeriod, type PayScheduleDates } from './pay-schedule-rules.ts';
import { findEmployerPaySchedules } from './pay-schedule.repository.ts';
import { scheduleDatesOf } from './pay-schedule.service.ts';
import { loadDeductionFacts } from './payroll-deduction-facts.ts';
import type { MemberDeductions } from './payroll-deduction.schemas.ts';
import { owedOn, PlanYearIndex } from './payroll-owed.ts';
import { findPaidPayDates, findTaken } from './payroll-run.repository.ts';

/** How far back retroactive adjustments reach: paid periods within a year before the pay date. */
export const RETRO_YEARS = 1;

/** The first day retroactive adjustments reach back to from a pay date (never before the calendar's first date). */
function retroFloor(payDate: string): string {
  const floor = addYears(payDate, -RETRO_YEARS);
  return floor < FIRST_DATE ? FIRST_DATE : floor;
}

/** One schedule's periods for the date asked. */
export interface SchedulePeriods {
  id: string;
  dates: PayScheduleDates;
  period: PayPeriod;
  /** The pay date before, when the schedule had started by then. */
  previousPayDate: string | null;
  /** Paid pay dates before the period's, within RETRO_YEARS: what adjustments are measured on. */
  paidPayDates: string[];
  index: PlanYearIndex;
}

export interface FeedContext {
  providerId: string;
  employerId: string;
  schedules: Map<string, SchedulePeriods>;
  defaultScheduleId: string | undefined;
}

/** One member's computed feed, with each adjustment's periods (what a run stores). */
export interface MemberFeed {
  member: PayrollMemberRow;
  schedule: SchedulePeriods;
  current: Map<string, Amounts>;
  lines: { code: string; kind: 'deduction' | 'adjustment'; change: Change | null; amounts: Amounts; adjustment?: Adjustment }[];
}

export function toMoneyFields(amounts: Amounts) {
  return {
    member_pre_tax: fromCents(amounts.memberPreTax),
    member_post_tax: fromCents(amounts.memberPostTax),
    employer: fromCents(amounts.employer),
    imputed_income: fromCents(amounts.imputedIncome),
  };
}

export function toMemberDeductions(feed: MemberFeed): MemberDeductions {
  return {
    id: feed.member.id,
    member: feed.member.id,
    payroll_provider_external_id: feed.member.payroll_provider_external_id,
    pay_schedule: feed.schedule.id,
    pay_date: feed.schedule.period.payDate,
    period_start: feed.schedule.period.start,
    previous_pay_date: feed.schedule.previousPayDate,
    lines: feed.lines.map((line) => ({
      deduction_code: line.code,
      kind: line.kind,
      change: line.change,
      ...toMoneyFields(line.amounts),
      adjusted_periods: line.adjustment?.periods.map((period) => period.payDate) ?? [],
    })),
    created_at: feed.member.created_at,
  };
}

/** The feed's computation, on any executor (the GET reads, a payroll run computes in its transaction). */
export async function feedContext(db: Executor, scope: Scope, employerId: string, date: string, payScheduleId: string | undefined): Promise<FeedContext> {
  if (!(await isVisibleReference(db, scope, 'employer', employerId))) throw new NotFound('employer');
  const rows = await findEmployerPaySchedules(db, scope.providerId, employerId);
  if (payScheduleId !== undefined && !rows.some((row) => row.id === payScheduleId)) {
    throw new ValidationFailed([inputError(['pay_schedule'], 'No such pay schedule of the employer.')]);
  }
  const schedules = new Map<string, SchedulePeriods>();
  for (const row of rows) {
    if (payScheduleId !== undefined && row.id !== payScheduleId) continue;
    const dates = scheduleDatesOf(row);
    const period = payPeriodContaining(dates, date);
    // A schedule whose first period comes after the date pays no one for it.
    if (period === undefined) continue;
    const previous = payDateBefore(dates, period.payDate);
    const since = retroFloor(period.payDate);
    schedules.set(row.id, {
      id: row.id,
      dates,
      period,
      previousPayDate: compareDates(previous, dates.firstPayDate) >= 0 ? previous : null,
      paidPayDates: await findPaidPayDates(db, row.id, since, addDays(period.payDate, -1)),
      index: new PlanYearIndex(dates),
    });
  }
  return { providerId: scope.providerId, employerId, schedules, defaultScheduleId: rows.find((row) => Boolean(row.is_default))?.id };
}

export function pageMembers(db: Executor, context: FeedContext, page: PageRequest): Promise<Page<PayrollMemberRow>> {
  const earliest = [...context.schedules.values()].map((schedule) => retroFloor(schedule.period.payDate)).sort()[0] ?? LAST_DATE;
  return pagePayrollMembers(
    db,
    {
      providerId: context.providerId,
      employerId: context.employerId,
      scheduleIds: [...context.schedules.keys()],
      includeUnassigned: context.defaultScheduleId !== undefined && context.schedules.has(context.defaultScheduleId),
      since: earliest,
    },
    page,
  );
}

/** The feed of a page of members: each member's periods computed from facts read once for the page. */
export async function computeFeeds(db: Executor, context: FeedContext, members: readonly PayrollMemberRow[]): Promise<MemberFeed[]> {
  const placed = members.flatMap((member) => {
    const schedule = context.schedules.get(member.pay_schedule_id ?? context.defaultScheduleId ?? '');
    return schedule === undefined ? [] : [{ member, schedule }];
  });
  if (placed.length === 0) return [];
  const dates = placed.flatMap(({ schedule }) => [
    schedule.period.payDate,
    ...(schedule.previousPayDate ? [schedule.previousPayDate] : []),
    ...schedule.paidPayDates,
  ]);
  const sorted = [...new Set(dates)].sort();
  const memberIds = placed.map(({ member }) => member.id);
  const facts = await loadDeductionFacts(
    db,
    placed.map(({ member }) => member),
    sorted[0]!,
    sorted.at(-1)!,
  );
  const taken = await findTaken(db, memberIds, sorted);
  return placed.map(({ member, schedule }) =>
    feedOf(member, schedule, (payDate) => owedOn(facts, member.id, schedule.dates, schedule.index, payDate), taken.get(member.id)),
  );
}

function feedOf(
  member: PayrollMemberRow,
  schedule: SchedulePeriods,
  owedOnDate: (payDate: string) => Map<string, Amounts>,
  taken: Map<string, Map<string, Amounts>> | undefined,
): MemberFeed {
  const current = owedOnDate(schedule.period.payDate);
  const previousDate = schedule.previousPayDate;
  const previousPaid = previousDate !== null && schedule.paidPayDates.includes(previousDate);
  const previousOwed = previousDate === null || previousPaid ? new Map<string, Amounts>() : owedOnDate(previousDate);
  const owedByPeriod = new Map(schedule.paidPayDates.map((payDate) => [payDate, owedOnDate(payDate)]));
  const codes = new Set([
    ...current.keys(),
    ...previousOwed.keys(),
    ...(taken?.keys() ?? []),
    ...[...owedByPeriod.values()].flatMap((owed) => [...owed.keys()]),
  ]);
  const lines: MemberFeed['lines'] = [];
  for (const code of [...codes].sort()) {
    const takenOfCode = taken?.get(code) ?? new Map<string, Amounts>();
    const previous = previousDate === null ? undefined : previousPaid ? takenOfCode.get(previousDate) : previousOwed.get(code);
    const change = changeOf(current.get(code), previous);
    if (change !== undefined) lines.push({ code, kind: 'deduction', change, amounts: current.get(code) ?? NO_AMOUNTS });
    const owedOfCode = new Map([...owedByPeriod].map(([payDate, owed]) => [payDate, owed.get(code) ?? NO_AMOUNTS]));
    const adjustment = adjustmentOf(schedule.paidPayDates, owedOfCode, takenOfCode);
    if (adjustment !== undefined) lines.push({ code, kind: 'adjustment', change: null, amounts: adjustment.amounts, adjustment });
  }
  return { member, schedule, current, lines };
}

export class PayrollDeductionService {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** A page of members with deductions (members whose lines are all empty are left out of the page). */
  async page(
    scope: Scope,
    query: { employer: string; pay_date: string; pay_schedule?: string | undefined },
    page: PageRequest,
  ): Promise<Page<MemberDeductions>> {
    const context = await feedContext(this.#db, scope, query.employer, query.pay_date, query.pay_schedule);
    const members = await pageMembers(this.#db, context, page);
    const feeds = await computeFeeds(this.#db, context, members.results);
    return { ...members, results: feeds.filter((feed) => feed.lines.length > 0).map(toMemberDeductions) };
  }

  /** Every row (member, code, kind) as the CSV writes it, a page of members at a time. */
  async *csvRows(scope: Scope, query: { employer: string; pay_date: string; pay_schedule?: string | undefined }): AsyncGenerator<Record<string, string>> {
    const context = await feedContext(this.#db, scope, query.employer, query.pay_date, query.pay_schedule);
    let after: PageRequest['after'];
    for (;;) {
      const members = await pageMembers(this.#db, context, { pageSize: 500, ...(after ? { after } : {}) });
      for (const feed of await computeFeeds(this.#db, context, members.results)) {
        const deductions = toMemberDeductions(feed);
        for (const line of deductions.lines) {
          yield {
            member: deductions.member,
            payroll_provider_external_id: deductions.payroll_provider_external_id ?? '',
            pay_schedule: deductions.pay_schedule,
            pay_date: deductions.pay_date,
            period_start: deductions.period_start,
            deduction_code: line.deduction_code,
            kind: line.kind,
            change: line.change ?? '',
            member_pre_tax: line.member_pre_tax,
            member_post_tax: line.member_post_tax,
            employer: line.employer,
            imputed_income: line.imputed_income,
            adjusted_periods: line.adjusted_periods.join(' '),
          };
        }
      }
      const last = members.results.at(-1);
      if (!members.hasNext || last === undefined) return;
      after = { created_at: last.created_at, id: last.id };
    }
  }
}
