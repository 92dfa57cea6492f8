import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible, lockEmployerRow } from '../../db/references.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './subclass.repository.ts';
import type { CreateSubclassBody, SubclassResponse, UpdateSubclassBody } from './subclass.schemas.ts';
import type { SubclassRow } from './subclass.table.ts';

export function toSubclassResponse(row: SubclassRow): SubclassResponse {
  return {
    id: row.id,
    category: row.category,
    name: row.name,
    employer: row.employer_id,
    is_default: Boolean(row.is_default),
    created_at: row.created_at,
  };
}

export class SubclassService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createSubclass(scope: Scope, input: CreateSubclassBody): Promise<SubclassResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { employer: input.employer });
      const row: SubclassRow = {
        id: newId('subclass'),
        provider_id: scope.providerId,
        employer_id: input.employer,
        category: input.category,
        name: input.name,
        is_default: input.is_default ?? false,
        created_at: this.#clock.now().toISOString(),
      };
      let unset: SubclassRow[] = [];
      if (row.is_default) {
        await lockEmployerRow(trx, scope.providerId, row.employer_id);
        unset = await repository.unsetOtherDefaultSubclasses(trx, row);
      }
      await repository.insertSubclass(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('subclass', 'created', row), ...unset.map((other) => eventOf('subclass', 'updated', other))] });
      return toSubclassResponse(row);
    });
  }

  async getSubclass(scope: Scope, id: string): Promise<SubclassResponse> {
    const row = await repository.findSubclassById(this.#db, scope, id);
    if (!row) throw new NotFound('subclass');
    return toSubclassResponse(row);
  }

  async listSubclasses(scope: Scope, filter: { employer?: string | undefined }, page: PageRequest): Promise<Page<SubclassResponse>> {
    return mapPage(await repository.listSubclasses(this.#db, scope, { employerId: filter.employer }, page), toSubclassResponse);
  }

  async updateSubclass(scope: Scope, id: string, input: UpdateSubclassBody): Promise<SubclassResponse> {
    return this.#db.transaction().execute(async (trx) => {
      // A default subclass moved to another category becomes that category's default.
      const mayBecomeDefault = input.is_default === true || input.category !== undefined;
      if (mayBecomeDefault) await this.#lockEmployerOf(trx, scope, id);
      const current = await repository.lockSubclassById(trx, scope, id);
      if (!current) throw new NotFound('subclass');
      const updated = applyChanges(current, input, ['category', 'name', 'is_default']);
      const unset = mayBecomeDefault && updated.is_default ? await repository.unsetOtherDefaultSubclasses(trx, updated) : [];
      await repository.updateSubclass(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('subclass', 'updated', updated), ...unset.map((other) => eventOf('subclass', 'updated', other))] });
      return toSubclassResponse(updated);
    });
  }

  /**
   * Changes of a default lock the employer before the subclass itself; taking the two locks in this one
   * order is what keeps concurrent changes from deadlocking.
   */
  async #lockEmployerOf(trx: Transaction<Database>, scope: Scope, id: string): Promise<void> {
    const subclass = await repository.findSubclassById(trx, scope, id);
    if (subclass) await lockEmployerRow(trx, scope.providerId, subclass.employer_id);
  }
}
