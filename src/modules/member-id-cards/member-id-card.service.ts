import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { isDocumentOfMember, isVisibleReference } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import * as coverageLinks from '../coverage/coverage-links.repository.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './member-id-card.repository.ts';
import type { CreateMemberIdCardBody, MemberIdCardResponse } from './member-id-card.schemas.ts';
import type { MemberIdCardRow } from './member-id-card.table.ts';

export function toMemberIdCardResponse(row: MemberIdCardRow, assignments: coverageLinks.CardAssignments): MemberIdCardResponse {
  return {
    id: row.id,
    member: row.member_id,
    carrier: row.carrier_id,
    member_number: row.member_number,
    group_number: row.group_number,
    document: row.document_id,
    enrolled_plans: assignments.enrolledPlans,
    enrolled_dependents: assignments.enrolledDependents,
    created_at: row.created_at,
  };
}

export class MemberIdCardService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createMemberIdCard(scope: Scope, input: CreateMemberIdCardBody): Promise<MemberIdCardResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const enrolledPlans = input.enrolled_plans ?? [];
      const enrolledDependents = input.enrolled_dependents ?? [];
      const member = await this.#lockMemberAndAssertReferences(trx, scope, input, { enrolledPlans, enrolledDependents });
      const row: MemberIdCardRow = {
        id: newId('member_id_card'),
        provider_id: scope.providerId,
        employer_id: member.employer_id,
        member_id: member.id,
        carrier_id: input.carrier ?? null,
        member_number: input.member_number ?? null,
        group_number: input.group_number ?? null,
        document_id: input.document ?? null,
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertCard(trx, row);
      // An item holds one card: cards it is taken from change too.
      const previousCards = await coverageLinks.findCardsHolding(trx, { enrolledPlans, enrolledDependents });
      await coverageLinks.assignCard(trx, row.id, { enrolledPlans, enrolledDependents });
      await this.#changes.commit(trx, {
        events: [eventOf('member_id_card', 'created', row), ...previousCards.map((card) => eventOf('member_id_card', 'updated', card))],
      });
      return this.#withAssignments(trx, row);
    });
  }

  async getMemberIdCard(scope: Scope, id: string): Promise<MemberIdCardResponse> {
    const row = await repository.findCardById(this.#db, scope, id);
    if (!row) throw new NotFound('member ID card');
    return this.#withAssignments(this.#db, row);
  }

  async listMemberIdCards(scope: Scope, filter: { member?: string | undefined }, page: PageRequest): Promise<Page<MemberIdCardResponse>> {
    const rows = await repository.listCards(this.#db, scope, { memberId: filter.member }, page);
    const assignments = await coverageLinks.findCardAssignments(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return { ...rows, results: rows.results.map((row) => toMemberIdCardResponse(row, assignments.get(row.id)!)) };
  }

  /** Endpoint 13: the card goes; coverage that used it loses the assignment; a linked document stays. */
  async deleteMemberIdCard(scope: Scope, id: string): Promise<{ id: string; object: 'member_id_card'; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const found = await repository.findCardById(trx, scope, id);
      if (!found) throw new NotFound('member ID card');
      // The member first, then the card: the order every write of cards and of members takes its locks in.
      await repository.lockMember(trx, scope, found.member_id);
      const card = await repository.lockCardById(trx, scope, id);
      if (!card) throw new NotFound('member ID card');
      await repository.deleteCard(trx, card.id);
      await this.#changes.commit(trx, { events: [eventOf('member_id_card', 'deleted', card)] });
      return { id: card.id, object: 'member_id_card', deleted: true };
    });
  }

  async #withAssignments(db: Executor, row: MemberIdCardRow): Promise<MemberIdCardResponse> {
    const assignments = await coverageLinks.findCardAssignments(db, [row.id]);
    return toMemberIdCardResponse(row, assignments.get(row.id)!);
  }

  /**
   * Every reference of a new card, with all faults reported at once: a visible member; a visible carrier; a
   * document of the member or their employer; coverage items of this member's own enrollments. Returns the
   * member, locked for the rest of the transaction.
   */
  async #lockMemberAndAssertReferences(
    trx: Transaction<Database>,
    scope: Scope,
    input: CreateMemberIdCardBody,
    coverage: { enrolledPlans: readonly string[]; enrolledDependents: readonly string[] },
  ): Promise<{ id: string; employer_id: string }> {
    const errors: InputError[] = [];
    const member = await repository.lockMember(trx, scope, input.member);
    if (!member) errors.push(inputError(['member'], 'No such member.'));
    if (input.carrier && !(await isVisibleReference(trx, scope, 'carrier', input.carrier))) {
      errors.push(inputError(['carrier'], 'No such carrier.'));
    }
    if (input.document) {
      if (!(await isVisibleReference(trx, scope, 'document', input.document))) {
        errors.push(inputError(['document'], 'No such document.'));
      } else if (member && !(await isDocumentOfMember(trx, scope.providerId, member, input.document))) {
        errors.push(inputError(['document'], "Must be a document of this member or of the member's employer."));
      }
    }
    if (member) {
      const plans = await coverageLinks.findEnrolledPlanIdsOfMember(trx, scope.providerId, member.id, coverage.enrolledPlans);
      coverage.enrolledPlans.forEach((id, index) => {
        if (!plans.has(id)) errors.push(inputError(['enrolled_plans', index], "No such enrolled plan among this member's enrollments."));
      });
      const dependents = await coverageLinks.findEnrolledDependentIdsOfMember(trx, scope.providerId, member.id, coverage.enrolledDependents);
      coverage.enrolledDependents.forEach((id, index) => {
        if (!dependents.has(id)) errors.push(inputError(['enrolled_dependents', index], "No such enrolled dependent among this member's enrolled plans."));
      });
    }
    if (!member || errors.length > 0) throw new ValidationFailed(errors);
    return member;
  }
}
