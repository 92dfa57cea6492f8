import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { parseAddress } from '../../http/schemas.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
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
    created_at: row.created_at,
  };
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
      created_at: this.#clock.now().toISOString(),
    };
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

  async listEmployers(scope: Scope, page: PageRequest): Promise<Page<EmployerResponse>> {
    return mapPage(await repository.listEmployers(this.#db, scope, page), toEmployerResponse);
  }

  async updateEmployer(scope: Scope, id: string, input: UpdateEmployerBody): Promise<EmployerResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockEmployerById(trx, scope, id);
      if (!current) throw new NotFound('employer');
      const updated: EmployerRow = {
        ...applyChanges(current, input, ['legal_name', 'trade_name', 'federal_ein', 'email', 'phone_number', 'external_id']),
        address: input.address ? JSON.stringify(input.address) : current.address,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      await repository.updateEmployer(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('employer', 'updated', updated)] });
      return toEmployerResponse(updated);
    });
  }
}
