import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './carrier.repository.ts';
import type { CarrierResponse, CreateCarrierBody, UpdateCarrierBody } from './carrier.schemas.ts';
import type { CarrierRow } from './carrier.table.ts';

export function toCarrierResponse(row: CarrierRow): CarrierResponse {
  return {
    id: row.id,
    legal_name: row.legal_name,
    trade_name: row.trade_name,
    logo_url: row.logo_url,
    created_at: row.created_at,
  };
}

export class CarrierService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createCarrier(scope: Scope, input: CreateCarrierBody): Promise<CarrierResponse> {
    const row: CarrierRow = {
      id: newId('carrier'),
      provider_id: scope.providerId,
      legal_name: input.legal_name,
      trade_name: input.trade_name ?? null,
      logo_url: input.logo_url ?? null,
      created_at: this.#clock.now().toISOString(),
    };
    await this.#db.transaction().execute(async (trx) => {
      await repository.insertCarrier(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('carrier', 'created', row)] });
    });
    return toCarrierResponse(row);
  }

  async getCarrier(scope: Scope, id: string): Promise<CarrierResponse> {
    const row = await repository.findCarrierById(this.#db, scope, id);
    if (!row) throw new NotFound('carrier');
    return toCarrierResponse(row);
  }

  async listCarriers(scope: Scope, page: PageRequest): Promise<Page<CarrierResponse>> {
    return mapPage(await repository.listCarriers(this.#db, scope, page), toCarrierResponse);
  }

  async updateCarrier(scope: Scope, id: string, input: UpdateCarrierBody): Promise<CarrierResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockCarrierById(trx, scope, id);
      if (!current) throw new NotFound('carrier');
      const updated = applyChanges(current, input, ['legal_name', 'trade_name', 'logo_url']);
      await repository.updateCarrier(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('carrier', 'updated', updated)] });
      return toCarrierResponse(updated);
    });
  }
}
