import type { Kysely } from 'kysely';
import type { Executor, Transaction } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { assertReferencesVisible } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import { parseAddress, type Address } from '../../http/schemas.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { findEnrolledPlanIdsOfDependents } from '../coverage/coverage-links.repository.ts';
import { SENT_ENROLLMENT_STATUSES } from '../enrollments/enrollment.table.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import { disabilityCertifiedThrough } from '../plan-configurations/eligibility.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { ssnProblem, withNormalizedSsn } from '../../shared/ssn.ts';
import { assertPersonTextCarriersCanRead } from '../../shared/x12-text.ts';
import * as repository from './dependent.repository.ts';
import type { CreateDependentBody, DependentResponse, UpdateDependentBody } from './dependent.schemas.ts';
import type { DependentRow } from './dependent.table.ts';
import { isCurrentSpouseRecord, isRelationshipEndDue, relationshipEndOf } from './spouse-rules.ts';
import { isSpouseLike, type DependentRelationship } from '../plans/coverage-tier.ts';

/**
 * Coverage in these enrollments was sent to a carrier; it changes only through a new enrollment (docs/decisions.md
 * "Dependents, beneficiaries and pay rates").
 */
const SENT_STATUSES = SENT_ENROLLMENT_STATUSES;

export function toDependentResponse(row: DependentRow, enrolledPlans: string[]): DependentResponse {
  return {
    id: row.id,
    member: row.member_id,
    first_name: row.first_name,
    middle_name: row.middle_name,
    last_name: row.last_name,
    member_relationship: row.member_relationship,
    relationship_end_date: row.relationship_end_date,
    ssn_last_four: row.ssn_last_four,
    dob: row.dob,
    biological_sex: row.biological_sex,
    address: row.address === null ? null : parseAddress(row.address),
    enrolled_plans: enrolledPlans,
    has_disability: Boolean(row.has_disability),
    disability_certified_on: row.disability_certified_on,
    disability_certification_expires_on: disabilityCertifiedThrough(Boolean(row.has_disability), row.disability_certified_on),
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

/** Ending a former spouse's or partner's coverage as their relationship_end_date says (coverage/relationship-ends.ts). */
export interface RelationshipEndCoverage {
  applyIn(trx: Transaction<Database>, member: MemberRow, dependentId: string, today: string): Promise<boolean>;
}

function addressJson(address: Address | null | undefined): string | null {
  return address ? JSON.stringify(address) : null;
}

export class DependentService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  readonly #encrypter: Encrypter;
  readonly #relationshipEnds: RelationshipEndCoverage;

  constructor(options: { db: Kysely<Database>; clock: Clock; changes: ChangeCommit; encrypter: Encrypter; relationshipEnds: RelationshipEndCoverage }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#changes = options.changes;
    this.#encrypter = options.encrypter;
    this.#relationshipEnds = options.relationshipEnds;
  }

  async createDependent(scope: Scope, body: CreateDependentBody): Promise<DependentResponse> {
    assertPersonTextCarriersCanRead(body);
    return this.#db.transaction().execute(async (trx) => this.createDependentIn(trx, scope, body));
  }

  /**
   * POST /dependents in the caller's transaction (a census import's row, census-imports/): the same checks, writes
   * and events. `locked` is the member as the caller already locked and read it in this transaction, in `scope`
   * (a census batch locks its members together; only its id and employer are used); without it the member is
   * checked and locked here.
   */
  async createDependentIn(trx: Transaction<Database>, scope: Scope, body: CreateDependentBody, locked?: MemberRow): Promise<DependentResponse> {
    const input = withNormalizedSsn(body);
    assertPersonTextCarriersCanRead(input);
    let member = locked?.id === input.member ? locked : undefined;
    if (!member) {
      await assertReferencesVisible(trx, scope, { member: input.member });
      // Locked so that a concurrent delete of the member either sees this dependent or makes this a 400.
      member = await lockMemberById(trx, scope, input.member);
    }
    if (!member) throw validationFailed(['member'], 'No such member.');
    this.#assertDobNotInFuture(input.dob);
    this.#assertCertification(input.has_disability ?? false, input.disability_certified_on ?? null, input.dob);
    this.#assertRelationshipEnd(input.member_relationship, input.relationship_end_date ?? null, input.dob, 'relationship_end_date');
    const row: DependentRow = {
      id: newId('dependent'),
      provider_id: scope.providerId,
      employer_id: member.employer_id,
      member_id: member.id,
      first_name: input.first_name,
      middle_name: input.middle_name ?? null,
      last_name: input.last_name,
      member_relationship: input.member_relationship,
      relationship_end_date: input.relationship_end_date ?? null,
      ...this.#ssnColumns(input.ssn, input.ssn_last_four, null),
      dob: input.dob,
      biological_sex: input.biological_sex ?? null,
      address: addressJson(input.address),
      has_disability: input.has_disability ?? false,
      disability_certified_on: input.disability_certified_on ?? null,
      metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
      created_at: this.#clock.now().toISOString(),
    };
    await this.#assertOneCurrentSpouse(trx, row, 'member_relationship');
    await repository.insertDependent(trx, row);
    await this.#changes.commit(trx, { events: [eventOf('dependent', 'created', row)] });
    return toDependentResponse(row, []);
  }

  async getDependent(scope: Scope, id: string): Promise<DependentResponse> {
    const row = await repository.findDependentById(this.#db, scope, id);
    if (!row) throw new NotFound('dependent');
    return this.#withEnrolledPlans(this.#db, row);
  }

  async listDependents(
    scope: Scope,
    filter: { member?: string | undefined; member_payroll_provider_external_id?: string | undefined },
    page: PageRequest,
  ): Promise<Page<DependentResponse>> {
    const rows = await repository.listDependents(
      this.#db,
      scope,
      { memberId: filter.member, memberPayrollProviderExternalId: filter.member_payroll_provider_external_id },
      page,
    );
    const enrolledPlans = await findEnrolledPlanIdsOfDependents(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return { ...rows, results: rows.results.map((row) => toDependentResponse(row, enrolledPlans.get(row.id)!)) };
  }

  async updateDependent(scope: Scope, id: string, input: UpdateDependentBody): Promise<DependentResponse> {
    assertPersonTextCarriersCanRead(input);
    return this.#db.transaction().execute(async (trx) => this.updateDependentIn(trx, scope, id, input));
  }

  /**
   * PATCH /dependents/{id} in the caller's transaction (a carrier file's value accepted, carrier-files/): the
   * same checks, writes, events and effects on coverage as the route's.
   */
  async updateDependentIn(trx: Transaction<Database>, scope: Scope, id: string, body: UpdateDependentBody): Promise<DependentResponse> {
    const input = withNormalizedSsn(body);
    assertPersonTextCarriersCanRead(input);
    // The member first, then the dependent (the order a delete takes): one current spouse per member holds under races.
    const found = await repository.findDependentById(trx, scope, id);
    if (!found) throw new NotFound('dependent');
    const member = await lockMemberById(trx, scope, found.member_id);
    const current = await repository.lockDependentById(trx, scope, id);
    if (!current) throw new NotFound('dependent');
    if (input.dob !== undefined) this.#assertDobNotInFuture(input.dob);
    const updated: DependentRow = {
      ...applyChanges(current, input, [
        'first_name',
        'middle_name',
        'last_name',
        'member_relationship',
        'relationship_end_date',
        'ssn_last_four',
        'dob',
        'biological_sex',
        'has_disability',
        'disability_certified_on',
      ]),
      address: input.address !== undefined ? addressJson(input.address) : current.address,
      metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      ...(input.ssn !== undefined || input.ssn_last_four !== undefined ? this.#ssnColumns(input.ssn, input.ssn_last_four, current) : {}),
    };
    // Clearing has_disability clears its certification with it, unless the request sets both.
    if (input.has_disability === false && input.disability_certified_on === undefined) updated.disability_certified_on = null;
    this.#assertCertification(Boolean(updated.has_disability), updated.disability_certified_on, updated.dob);
    const relationshipPath =
      input.member_relationship === undefined && input.relationship_end_date !== undefined ? 'relationship_end_date' : 'member_relationship';
    this.#assertRelationshipEnd(updated.member_relationship, updated.relationship_end_date, updated.dob, relationshipPath);
    await this.#assertOneCurrentSpouse(trx, updated, relationshipPath);
    await repository.updateDependent(trx, updated);
    await this.#changes.commit(trx, { events: [eventOf('dependent', 'updated', updated)] });
    // A divorce or dissolution date already past ends the dependent's coverage now, in this transaction; a
    // later one is the daily sweep's (docs/decisions.md, A divorce or dissolution ends coverage).
    const today = toDateString(this.#clock.now());
    const end = relationshipEndOf(updated.member_relationship, updated.relationship_end_date);
    if (member && end !== undefined && isRelationshipEndDue(end, today)) await this.#relationshipEnds.applyIn(trx, member, updated.id, today);
    return this.#withEnrolledPlans(trx, updated);
  }

  /**
   * Removes a dependent entered in error, with their place in enrollments not yet sent. Coverage a carrier
   * already holds ends only through a new enrollment, so that the carrier is told (a benefit change).
   * Locks the member, then the dependent, then the enrollments: the order a member delete takes too.
   */
  async deleteDependent(scope: Scope, id: string): Promise<{ id: string; object: 'dependent'; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const found = await repository.findDependentById(trx, scope, id);
      if (!found) throw new NotFound('dependent');
      await lockMemberById(trx, scope, found.member_id);
      const dependent = await repository.lockDependentById(trx, scope, id);
      if (!dependent) throw new NotFound('dependent');
      const enrollments = await repository.lockEnrollmentsNamingDependent(trx, id);
      if (enrollments.some((enrollment) => SENT_STATUSES.includes(enrollment.status))) {
        throw new InvalidState(
          'This dependent is part of coverage that was sent to a carrier (an approved or synced enrollment), so the record cannot be deleted. Remove them from coverage through a new enrollment (a benefit change) instead.',
        );
      }
      await repository.deleteDependentAndCoverage(
        trx,
        id,
        enrollments.map((enrollment) => enrollment.id),
      );
      // The unsent enrollments that named the dependent changed too (the dependent left them).
      await this.#changes.commit(trx, {
        events: [...enrollments.map((enrollment) => eventOf('enrollment', 'updated', enrollment)), eventOf('dependent', 'deleted', dependent)],
      });
      return { id, object: 'dependent', deleted: true };
    });
  }

  /**
   * relationship_end_date (a divorce or dissolution date): only on a spouse-like relationship, not before the date
   * of birth. A future date is accepted (a decree's effective date): the sweep ends the coverage the day after it. `path` names the field a refusal about the relationship itself goes to.
   */
  #assertRelationshipEnd(
    relationship: DependentRelationship,
    endDate: string | null,
    dob: string,
    path: 'member_relationship' | 'relationship_end_date',
  ): void {
    if (endDate === null) return;
    if (!isSpouseLike(relationship))
      throw validationFailed(
        [path],
        `A relationship_end_date (a divorce or dissolution date) is only for a spouse, domestic_partner, civil_union or ex_spouse, not a ${relationship}; send relationship_end_date: null with it.`,
      );
    if (compareDates(endDate, dob) < 0) throw validationFailed(['relationship_end_date'], 'The relationship end date cannot be before the date of birth.');
  }

  /**
   * One current spouse or partner per member (spouse-rules.ts): a dependent that is one (spouse, domestic_partner
   * or civil_union without relationship_end_date) is refused while another dependent of the member is one.
   * The caller holds the member's lock.
   */
  async #assertOneCurrentSpouse(trx: Executor, row: DependentRow, path: 'member_relationship' | 'relationship_end_date'): Promise<void> {
    if (!isCurrentSpouseRecord(row.member_relationship, row.relationship_end_date)) return;
    const other = (await repository.findOpenSpouseLikeDependentsOfMember(trx, row.member_id, row.id)).find((dependent) =>
      isCurrentSpouseRecord(dependent.member_relationship, dependent.relationship_end_date),
    );
    if (other === undefined) return;
    throw validationFailed(
      [path],
      `The member already has a current spouse or partner: dependent ${other.id} (${other.member_relationship}), and has at most one at a time. End that relationship first: PATCH /dependents/${other.id} with relationship_end_date (the divorce or dissolution date), and member_relationship ex_spouse for a divorce.`,
    );
  }

  /** disability_certified_on: only with has_disability, not in the future, not before the date of birth. */
  #assertCertification(hasDisability: boolean, certifiedOn: string | null, dob: string): void {
    if (certifiedOn === null) return;
    if (!hasDisability) throw validationFailed(['disability_certified_on'], 'A disability certification needs has_disability: true.');
    if (compareDates(certifiedOn, toDateString(this.#clock.now())) > 0)
      throw validationFailed(['disability_certified_on'], 'The certification date cannot be in the future.');
    if (compareDates(certifiedOn, dob) < 0) throw validationFailed(['disability_certified_on'], 'The certification date cannot be before the date of birth.');
  }

  /**
   * The SSN columns from a request: `ssn` (write-only) is stored encrypted and sets ssn_last_four; the last four
   * alone, or a clear (null), drops a stored whole SSN it no longer matches. Both given must agree.
   */
  #ssnColumns(
    ssn: string | null | undefined,
    lastFour: string | null | undefined,
    current: Pick<DependentRow, 'ssn_encrypted' | 'ssn_last_four'> | null,
  ): Pick<DependentRow, 'ssn_encrypted' | 'ssn_last_four'> {
    if (typeof ssn === 'string') {
      const problem = ssnProblem(ssn);
      if (problem !== undefined) throw validationFailed(['ssn'], problem);
      if (lastFour !== undefined && lastFour !== ssn.slice(-4)) throw validationFailed(['ssn_last_four'], 'Must be the last four digits of ssn.');
      return { ssn_encrypted: this.#encrypter.encrypt(ssn), ssn_last_four: ssn.slice(-4) };
    }
    if (ssn === null) return { ssn_encrypted: null, ssn_last_four: lastFour ?? null };
    const last = lastFour === undefined ? (current?.ssn_last_four ?? null) : lastFour;
    return { ssn_encrypted: current !== null && last === current.ssn_last_four ? current.ssn_encrypted : null, ssn_last_four: last };
  }

  #assertDobNotInFuture(dob: string): void {
    if (compareDates(dob, toDateString(this.#clock.now())) > 0) throw validationFailed(['dob'], 'The date of birth cannot be in the future.');
  }

  async #withEnrolledPlans(db: Executor, row: DependentRow): Promise<DependentResponse> {
    const enrolledPlans = await findEnrolledPlanIdsOfDependents(db, [row.id]);
    return toDependentResponse(row, enrolledPlans.get(row.id)!);
  }
}
