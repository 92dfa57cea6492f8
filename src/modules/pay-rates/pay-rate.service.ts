import type { Kysely } from 'kysely';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { fromCents, toCents } from '../../shared/money.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { lockMemberById } from '../members/member.repository.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './pay-rate.repository.ts';
import type { CreatePayRateBody, PayRateResponse, UpdatePayRateBody } from './pay-rate.schemas.ts';
import type { PayRateRow } from './pay-rate.table.ts';

export function toPayRateResponse(row: PayRateRow): PayRateResponse {
  return {
    id: row.id,
    member: row.member_id,
    amount: fromCents(row.amount_cents),
    period: row.period,
    effective_start: row.effective_start,
    created_at: row.created_at,
  };
}

/** The amount in cents; a pay rate of zero is no pay rate. */
function positiveCents(amount: string): number {
  const cents = toCents(amount);
  if (cents <= 0) throw validationFailed(['amount'], 'The amount must be greater than zero.');
  return cents;
}

export class PayRateService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createPayRate(scope: Scope, input: CreatePayRateBody): Promise<PayRateResponse> {
    return this.#db.transaction().execute(async (trx) => {
      await assertReferencesVisible(trx, scope, { member: input.member });
      // Locked so that a concurrent delete of the member either sees this pay rate or makes this a 400.
      const member = await lockMemberById(trx, scope, input.member);
      if (!member) throw validationFailed(['member'], 'No such member.');
      const row: PayRateRow = {
        id: newId('pay_rate'),
        provider_id: scope.providerId,
        employer_id: member.employer_id,
        member_id: member.id,
        amount_cents: positiveCents(input.amount),
        period: input.period ?? 'annually',
        effective_start: input.effective_start,
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertPayRate(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('pay_rate', 'created', row)] });
      return toPayRateResponse(row);
    });
  }

  async getPayRate(scope: Scope, id: string): Promise<PayRateResponse> {
    const row = await repository.findPayRateById(this.#db, scope, id);
    if (!row) throw new NotFound('pay rate');
    return toPayRateResponse(row);
  }

  async listPayRates(scope: Scope, filter: { member?: string | undefined }, page: PageRequest): Promise<Page<PayRateResponse>> {
    const rows = await repository.listPayRates(this.#db, scope, { memberId: filter.member }, page);
    return mapPage(rows, toPayRateResponse);
  }

  async updatePayRate(scope: Scope, id: string, input: UpdatePayRateBody): Promise<PayRateResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockPayRateById(trx, scope, id);
      if (!current) throw new NotFound('pay rate');
      const updated: PayRateRow = {
        ...applyChanges(current, input, ['period', 'effective_start']),
        amount_cents: input.amount !== undefined ? positiveCents(input.amount) : current.amount_cents,
      };
      await repository.updatePayRate(trx, updated);
      await this.#changes.commit(trx, { events: [eventOf('pay_rate', 'updated', updated)] });
      return toPayRateResponse(updated);
    });
  }

  /** Endpoint 15. */
  async deletePayRate(scope: Scope, id: string): Promise<{ id: string; object: 'pay_rate'; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const payRate = await repository.lockPayRateById(trx, scope, id);
      if (!payRate) throw new NotFound('pay rate');
      await repository.deletePayRate(trx, id);
      await this.#changes.commit(trx, { events: [eventOf('pay_rate', 'deleted', payRate)] });
      return { id, object: 'pay_rate', deleted: true };
    });
  }
}
