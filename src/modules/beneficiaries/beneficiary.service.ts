import type { Kysely } from 'kysely';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import { parseAddress, type Address } from '../../http/schemas.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { isBeneficiaryDesignated } from '../coverage/coverage-links.repository.ts';
import { lockMemberById } from '../members/member.repository.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './beneficiary.repository.ts';
import type { BeneficiaryResponse, CreateBeneficiaryBody, UpdateBeneficiaryBody } from './beneficiary.schemas.ts';
import type { BeneficiaryRow } from './beneficiary.table.ts';

export function toBeneficiaryResponse(row: BeneficiaryRow): BeneficiaryResponse {
  return {
    id: row.id,
    member: row.member_id,
    full_name: row.full_name,
    member_relationship: row.member_relationship,
    tin_last_four: row.tin_last_four,
    address: row.address === null ? null : parseAddress(row.address),
    phone_number: row.phone_number,
    dob: row.dob,
    created_at: row.created_at,
  };
}

function addressJson(address: Address | null | undefined): string | null {
  return address ? JSON.stringify(address) : null;
}

export class BeneficiaryService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createBeneficiary(scope: Scope, input: CreateBeneficiaryBody): Promise<BeneficiaryResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { member: input.member });
      // Locked so that a concurrent delete of the member either sees this beneficiary or makes this a 400.
      const member = await lockMemberById(trx, scope, input.member);
      if (!member) throw validationFailed(['member'], 'No such member.');
      this.#assertDobNotInFuture(input.dob ?? null);
      const row: BeneficiaryRow = {
        id: newId('beneficiary'),
        provider_id: scope.providerId,
        employer_id: member.employer_id,
        member_id: member.id,
        full_name: input.full_name,
        member_relationship: input.member_relationship,
        tin_last_four: input.tin_last_four ?? null,
        address: addressJson(input.address),
        phone_number: input.phone_number ?? null,
        dob: input.dob ?? null,
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertBeneficiary(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('beneficiary', 'created', row)] });
      return toBeneficiaryResponse(row);
    });
  }

  async getBeneficiary(scope: Scope, id: string): Promise<BeneficiaryResponse> {
    const row = await repository.findBeneficiaryById(this.#db, scope, id);
    if (!row) throw new NotFound('beneficiary');
    return toBeneficiaryResponse(row);
  }

  async listBeneficiaries(scope: Scope, filter: { member?: string | undefined }, page: PageRequest): Promise<Page<BeneficiaryResponse>> {
    const rows = await repository.listBeneficiaries(this.#db, scope, { memberId: filter.member }, page);
    return { ...rows, results: rows.results.map(toBeneficiaryResponse) };
  }

  async updateBeneficiary(scope: Scope, id: string, input: UpdateBeneficiaryBody): Promise<BeneficiaryResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockBeneficiaryById(trx, scope, id);
      if (!current) throw new NotFound('beneficiary');
      this.#assertDobNotInFuture(input.dob ?? null);
      const updated: BeneficiaryRow = {
        ...applyChanges(current, input, ['full_name', 'member_relationship', 'tin_last_four', 'phone_number', 'dob']),
        address: input.address !== undefined ? addressJson(input.address) : current.address,
      };
      await repository.updateBeneficiary(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('beneficiary', 'updated', updated)] });
      return toBeneficiaryResponse(updated);
    });
  }

  async deleteBeneficiary(scope: Scope, id: string): Promise<{ id: string; object: 'beneficiary'; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const beneficiary = await repository.lockBeneficiaryById(trx, scope, id);
      if (!beneficiary) throw new NotFound('beneficiary');
      if (await isBeneficiaryDesignated(trx, id)) {
        throw new InvalidState(
          'This beneficiary is named in a life or accidental_death election (beneficiary_designations), so the record cannot be deleted. Name someone else through the enrollment (PATCH while not_started, or a new enrollment) first.',
        );
      }
      await repository.deleteBeneficiary(trx, id);
      await this.#changes.commit(trx, { events: [eventOf('beneficiary', 'deleted', beneficiary)] });
      return { id, object: 'beneficiary', deleted: true };
    });
  }

  #assertDobNotInFuture(dob: string | null): void {
    if (dob !== null && compareDates(dob, toDateString(this.#clock.now())) > 0) {
      throw validationFailed(['dob'], 'The date of birth cannot be in the future.');
    }
  }
}
