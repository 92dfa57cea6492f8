import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { parseAddress } from '../../http/schemas.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { STABILITY_PERIOD_MONTHS, isMonthDay } from '../coverage/eligibility-loss-rules.ts';
import * as repository from './employer.repository.ts';
import type { CreateEmployerBody, EmployerResponse, UpdateEmployerBody } from './employer.schemas.ts';
import type { EmployerRow } from './employer.table.ts';

export function toEmployerResponse(row: EmployerRow): EmployerResponse {
  return {
    id: row.id,
    legal_name: row.legal_name,
    trade_name: row.trade_name,
    federal_ein: row.federal_ein,
    email: row.email,
    phone_number: row.phone_number,
    address: parseAddress(row.address),
    external_id: row.external_id,
    metadata: parseMetadata(row.metadata),
    hours_measurement_method: row.hours_measurement_method,
    stability_period_start: row.stability_period_start,
    stability_period_months: row.stability_period_months,
    created_at: row.created_at,
  };
}

/**
 * The employer's hours measurement must be one the loss-of-eligibility rules can apply (docs/decisions.md
 * "Loss of eligibility"): look_back needs its stability periods, a real month-day every year has and a length
 * that divides the year.
 */
function assertHoursMeasurement(row: EmployerRow): void {
  const errors: InputError[] = [];
  const { stability_period_start: start, stability_period_months: months } = row;
  if (start !== null && !isMonthDay(start))
    errors.push(inputError(['stability_period_start'], 'Must be a month and day every year has, MM-DD (02-29 is not).'));
  if (months !== null && !(STABILITY_PERIOD_MONTHS as readonly number[]).includes(months)) {
    errors.push(inputError(['stability_period_months'], 'Must be 6 or 12: stability periods follow one another from stability_period_start each year.'));
  }
  if (row.hours_measurement_method === 'look_back') {
    if (start === null) errors.push(inputError(['stability_period_start'], 'Required when hours_measurement_method is look_back.'));
    if (months === null) errors.push(inputError(['stability_period_months'], 'Required when hours_measurement_method is look_back.'));
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
}

export class EmployerService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createEmployer(scope: Scope, input: CreateEmployerBody): Promise<EmployerResponse> {
    const row: EmployerRow = {
      id: newId('employer'),
      provider_id: scope.providerId,
      legal_name: input.legal_name,
      trade_name: input.trade_name ?? null,
      federal_ein: input.federal_ein ?? null,
      email: input.email ?? null,
      phone_number: input.phone_number ?? null,
      address: JSON.stringify(input.address),
      external_id: input.external_id ?? null,
      metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
      hours_measurement_method: input.hours_measurement_method ?? 'monthly',
      stability_period_start: input.stability_period_start ?? null,
      stability_period_months: input.stability_period_months ?? null,
      created_at: this.#clock.now().toISOString(),
    };
    assertHoursMeasurement(row);
    await this.#db.transaction().execute(async (trx) => {
      await repository.insertEmployer(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('employer', 'created', row)] });
    });
    return toEmployerResponse(row);
  }

  async getEmployer(scope: Scope, id: string): Promise<EmployerResponse> {
    const row = await repository.findEmployerById(this.#db, scope, id);
    if (!row) throw new NotFound('employer');
    return toEmployerResponse(row);
  }

  async listEmployers(scope: Scope, filter: { external_id?: string | undefined }, page: PageRequest): Promise<Page<EmployerResponse>> {
    return mapPage(await repository.listEmployers(this.#db, scope, { externalId: filter.external_id }, page), toEmployerResponse);
  }

  async updateEmployer(scope: Scope, id: string, input: UpdateEmployerBody): Promise<EmployerResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockEmployerById(trx, scope, id);
      if (!current) throw new NotFound('employer');
      const updated: EmployerRow = {
        ...applyChanges(current, input, [
          'legal_name',
          'trade_name',
          'federal_ein',
          'email',
          'phone_number',
          'external_id',
          'hours_measurement_method',
          'stability_period_start',
          'stability_period_months',
        ]),
        address: input.address ? JSON.stringify(input.address) : current.address,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      assertHoursMeasurement(updated);
      await repository.updateEmployer(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('employer', 'updated', updated)] });
      return toEmployerResponse(updated);
    });
  }
}
