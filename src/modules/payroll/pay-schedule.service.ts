import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { assertReferencesVisible, lockEmployerRow } from '../../db/references.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays, compareDates, daysBetween } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { DEFAULT_SEMIMONTHLY_DAYS, payDateBefore, payDatesBetween, scheduleProblems, type PayScheduleDates } from './pay-schedule-rules.ts';
import * as repository from './pay-schedule.repository.ts';
import type { CreatePayScheduleBody, PayDatesResponse, PayScheduleResponse, UpdatePayScheduleBody } from './pay-schedule.schemas.ts';
import type { PayScheduleRow } from './payroll.table.ts';

export function toPayScheduleResponse(row: PayScheduleRow): PayScheduleResponse {
  return {
    id: row.id,
    employer: row.employer_id,
    name: row.name,
    frequency: row.frequency,
    first_pay_date: row.first_pay_date,
    semimonthly_days:
      row.semimonthly_first_day === null || row.semimonthly_second_day === null ? null : [row.semimonthly_first_day, row.semimonthly_second_day],
    default: Boolean(row.is_default),
    created_at: row.created_at,
  };
}

/** A stored schedule as the pay date rules read it. */
export function scheduleDatesOf(row: PayScheduleRow): PayScheduleDates {
  return {
    frequency: row.frequency,
    firstPayDate: row.first_pay_date,
    semimonthlyDays: row.semimonthly_first_day === null || row.semimonthly_second_day === null ? null : [row.semimonthly_first_day, row.semimonthly_second_day],
  };
}

/** The semimonthly days a body gives (undefined: keep), a semimonthly schedule's default. */
function semimonthlyColumns(frequency: PayScheduleRow['frequency'], days: readonly number[] | null | undefined, current: [number | null, number | null]) {
  const given = days === undefined ? (frequency === 'semimonthly' && current[0] === null ? DEFAULT_SEMIMONTHLY_DAYS : current) : days;
  const [first, second] = given === null ? [null, null] : given;
  return { semimonthly_first_day: first ?? null, semimonthly_second_day: second ?? null };
}

function assertSchedule(row: PayScheduleRow): void {
  const problems = scheduleProblems(scheduleDatesOf(row));
  if (problems.length > 0) throw new ValidationFailed(problems.map((problem) => inputError([problem.field], problem.message)));
}

export const MAX_PAY_DATE_RANGE_DAYS = 366;

export class PayScheduleService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async createPaySchedule(scope: Scope, input: CreatePayScheduleBody): Promise<PayScheduleResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { employer: input.employer });
      // The employer's lock orders two creates (and a default moving) one after the other.
      await lockEmployerRow(trx, scope.providerId, input.employer);
      const existing = await repository.findEmployerPaySchedules(trx, scope.providerId, input.employer);
      const row: PayScheduleRow = {
        id: newId('pay_schedule'),
        provider_id: scope.providerId,
        employer_id: input.employer,
        name: input.name,
        frequency: input.frequency,
        first_pay_date: input.first_pay_date,
        ...semimonthlyColumns(input.frequency, input.semimonthly_days, [null, null]),
        is_default: input.default ?? !existing.some((schedule) => Boolean(schedule.is_default)),
        created_at: this.#clock.now().toISOString(),
      };
      assertSchedule(row);
      if (row.is_default) await repository.clearDefaultPaySchedule(trx, scope.providerId, input.employer, row.id);
      await repository.insertPaySchedule(trx, row);
      return toPayScheduleResponse(row);
    });
  }

  async getPaySchedule(scope: Scope, id: string): Promise<PayScheduleResponse> {
    return toPayScheduleResponse(await this.#getOrFail(scope, id));
  }

  async listPaySchedules(scope: Scope, filter: { employer?: string | undefined }, page: PageRequest): Promise<Page<PayScheduleResponse>> {
    return mapPage(await repository.listPaySchedules(this.#db, scope, { employerId: filter.employer }, page), toPayScheduleResponse);
  }

  async updatePaySchedule(scope: Scope, id: string, input: UpdatePayScheduleBody): Promise<PayScheduleResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const found = await repository.findPayScheduleById(trx, scope, id);
      if (!found) throw new NotFound('pay schedule');
      await lockEmployerRow(trx, scope.providerId, found.employer_id);
      const current = await repository.lockPayScheduleById(trx, scope, id);
      if (!current) throw new NotFound('pay schedule');
      const frequency = input.frequency ?? current.frequency;
      const updated: PayScheduleRow = {
        ...current,
        name: input.name ?? current.name,
        frequency,
        first_pay_date: input.first_pay_date ?? current.first_pay_date,
        ...semimonthlyColumns(frequency, frequency === 'semimonthly' ? input.semimonthly_days : (input.semimonthly_days ?? null), [
          current.semimonthly_first_day,
          current.semimonthly_second_day,
        ]),
        is_default: input.default ?? current.is_default,
      };
      assertSchedule(updated);
      const datesChanged =
        updated.frequency !== current.frequency ||
        updated.first_pay_date !== current.first_pay_date ||
        updated.semimonthly_first_day !== current.semimonthly_first_day ||
        updated.semimonthly_second_day !== current.semimonthly_second_day;
      if (datesChanged && (await repository.hasPayrollRuns(trx, id))) {
        throw new InvalidState('Payroll runs have paid on this schedule: its pay dates are history. Create a new schedule and assign its members to it.');
      }
      if (updated.is_default) await repository.clearDefaultPaySchedule(trx, scope.providerId, current.employer_id, id);
      await repository.updatePaySchedule(trx, updated);
      return toPayScheduleResponse(updated);
    });
  }

  /** The schedule's pay dates from `from` through `to` (pay-schedule-rules.ts), each with its period's first day. */
  async payDates(scope: Scope, id: string, from: string, to: string): Promise<PayDatesResponse> {
    if (compareDates(from, to) > 0) throw new ValidationFailed([inputError(['to'], 'Must be on or after from.')]);
    if (daysBetween(from, to) > MAX_PAY_DATE_RANGE_DAYS)
      throw new ValidationFailed([inputError(['to'], `At most ${MAX_PAY_DATE_RANGE_DAYS} days after from.`)]);
    const schedule = scheduleDatesOf(await this.#getOrFail(scope, id));
    return {
      pay_schedule: id,
      pay_dates: payDatesBetween(schedule, from, to).map((payDate) => ({ pay_date: payDate, period_start: addDays(payDateBefore(schedule, payDate), 1) })),
    };
  }

  async #getOrFail(scope: Scope, id: string): Promise<PayScheduleRow> {
    const row = await repository.findPayScheduleById(this.#db, scope, id);
    if (!row) throw new NotFound('pay schedule');
    return row;
  }
}
