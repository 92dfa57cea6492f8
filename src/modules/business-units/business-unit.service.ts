import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible, lockEmployerRow } from '../../db/references.ts';
import { parseAddress, type Address } from '../../http/schemas.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './business-unit.repository.ts';
import type { BusinessUnitResponse, CreateBusinessUnitBody, UpdateBusinessUnitBody } from './business-unit.schemas.ts';
import type { BusinessUnitRow } from './business-unit.table.ts';

export function toBusinessUnitResponse(row: BusinessUnitRow): BusinessUnitResponse {
  return {
    id: row.id,
    public_id: row.id,
    employer: row.employer_id,
    legal_name: row.legal_name,
    trade_name: row.trade_name,
    federal_ein: row.federal_ein,
    is_primary: Boolean(row.is_primary),
    address: row.address === null ? null : parseAddress(row.address),
    phone_number: row.phone_number,
    email: row.email,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

function addressJson(address: Address | null | undefined): string | null {
  return address ? JSON.stringify(address) : null;
}

export class BusinessUnitService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createBusinessUnit(scope: Scope, input: CreateBusinessUnitBody): Promise<BusinessUnitResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { employer: input.employer });
      const row: BusinessUnitRow = {
        id: newId('business_unit'),
        provider_id: scope.providerId,
        employer_id: input.employer,
        legal_name: input.legal_name,
        trade_name: input.trade_name ?? null,
        federal_ein: input.federal_ein ?? null,
        is_primary: input.is_primary ?? false,
        address: addressJson(input.address),
        phone_number: input.phone_number ?? null,
        email: input.email ?? null,
        metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
        created_at: this.#clock.now().toISOString(),
      };
      let unset: BusinessUnitRow[] = [];
      if (row.is_primary) {
        await lockEmployerRow(trx, scope.providerId, row.employer_id);
        unset = await repository.unsetOtherPrimaryBusinessUnits(trx, row);
      }
      await repository.insertBusinessUnit(trx, row);
      await this.#changes.commit(trx, {
        events: [eventOf('business_unit', 'created', row), ...unset.map((other) => eventOf('business_unit', 'updated', other))],
      });
      return toBusinessUnitResponse(row);
    });
  }

  async getBusinessUnit(scope: Scope, id: string): Promise<BusinessUnitResponse> {
    const row = await repository.findBusinessUnitById(this.#db, scope, id);
    if (!row) throw new NotFound('business unit');
    return toBusinessUnitResponse(row);
  }

  async listBusinessUnits(scope: Scope, filter: { employer?: string | undefined }, page: PageRequest): Promise<Page<BusinessUnitResponse>> {
    const rows = await repository.listBusinessUnits(this.#db, scope, { employerId: filter.employer }, page);
    return mapPage(rows, toBusinessUnitResponse);
  }

  async updateBusinessUnit(scope: Scope, id: string, input: UpdateBusinessUnitBody): Promise<BusinessUnitResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const becomesPrimary = input.is_primary === true;
      if (becomesPrimary) await this.#lockEmployerOf(trx, scope, id);
      const current = await repository.lockBusinessUnitById(trx, scope, id);
      if (!current) throw new NotFound('business unit');
      const updated: BusinessUnitRow = {
        ...applyChanges(current, input, ['legal_name', 'trade_name', 'federal_ein', 'is_primary', 'phone_number', 'email']),
        address: input.address !== undefined ? addressJson(input.address) : current.address,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      const unset = becomesPrimary ? await repository.unsetOtherPrimaryBusinessUnits(trx, updated) : [];
      await repository.updateBusinessUnit(trx, updated);
      await this.#changes.commit(trx, {
        events: [eventOf('business_unit', 'updated', updated), ...unset.map((other) => eventOf('business_unit', 'updated', other))],
      });
      return toBusinessUnitResponse(updated);
    });
  }

  /**
   * Changes of the primary unit lock the employer before the unit itself; taking the two locks in this one
   * order is what keeps concurrent changes from deadlocking.
   */
  async #lockEmployerOf(trx: Transaction<Database>, scope: Scope, id: string): Promise<void> {
    const unit = await repository.findBusinessUnitById(trx, scope, id);
    if (unit) await lockEmployerRow(trx, scope.providerId, unit.employer_id);
  }
}
