import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './group.repository.ts';
import type { CreateGroupBody, GroupResponse, UpdateGroupBody } from './group.schemas.ts';
import type { GroupRow } from './group.table.ts';

export function toGroupResponse(row: GroupRow): GroupResponse {
  return {
    id: row.id,
    group_number: row.group_number,
    carrier: row.carrier_id,
    employer: row.employer_id,
    connection_method: row.connection_method,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

export class GroupService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createGroup(scope: Scope, input: CreateGroupBody): Promise<GroupResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { carrier: input.carrier, employer: input.employer });
      const row: GroupRow = {
        id: newId('group'),
        provider_id: scope.providerId,
        employer_id: input.employer,
        carrier_id: input.carrier,
        group_number: input.group_number,
        connection_method: input.connection_method ?? 'manual',
        metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertGroup(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('group', 'created', row)] });
      return toGroupResponse(row);
    });
  }

  async getGroup(scope: Scope, id: string): Promise<GroupResponse> {
    const row = await repository.findGroupById(this.#db, scope, id);
    if (!row) throw new NotFound('group');
    return toGroupResponse(row);
  }

  async listGroups(scope: Scope, filter: { employer?: string | undefined }, page: PageRequest): Promise<Page<GroupResponse>> {
    return mapPage(await repository.listGroups(this.#db, scope, { employerId: filter.employer }, page), toGroupResponse);
  }

  async updateGroup(scope: Scope, id: string, input: UpdateGroupBody): Promise<GroupResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockGroupById(trx, scope, id);
      if (!current) throw new NotFound('group');
      await assertReferencesVisible(trx, scope, { carrier: input.carrier });
      const updated: GroupRow = {
        ...applyChanges(current, input, ['group_number', 'connection_method']),
        carrier_id: input.carrier ?? current.carrier_id,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      await repository.updateGroup(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('group', 'updated', updated)] });
      return toGroupResponse(updated);
    });
  }
}
