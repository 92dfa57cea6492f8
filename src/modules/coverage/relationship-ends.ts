/**
 * A divorce or dissolution ends the former spouse's or partner's coverage (docs/decisions.md "Dependents,
 * beneficiaries and pay rates", A divorce or dissolution ends coverage): every coverage of the member naming
 * them goes on without them from the day after their relationship_end_date. When that day has come the change
 * is carried out at once (PATCH /dependents/{id}, in its transaction); a later date by the daily sweep of its
 * first day out. The rules are dependents/spouse-rules.ts; the change is the enrollment engine's continuation
 * (CoverageContinuation.endDependentCoverageIn, as an age-out), recorded with reason `divorce` (a COBRA
 * qualifying event, 29 U.S.C. 1163(3)) or, for a partner, `domestic_partnership` (none).
 */
import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { findDependentsByIds } from '../dependents/dependent.repository.ts';
import { SPOUSE_RULES, coverageLeftFrom, isRelationshipEndDue, relationshipEndOf, type RelationshipEnd } from '../dependents/spouse-rules.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { DependentRelationship } from '../plans/coverage-tier.ts';
import { findCoverageOfDependentRunningPast, findDependentsCoveredPastRelationshipEnd } from './coverage.repository.ts';

/** The enrollment engine's ending of dependents' coverage (CoverageContinuation.endDependentCoverageIn). */
export interface DependentCoverageEnder {
  endDependentCoverageIn(
    trx: Transaction<Database>,
    member: MemberRow,
    firstDayOut: string,
    leaving: ReadonlyMap<string, ReadonlySet<string>>,
    cause: { reason: RelationshipEnd['reason']; changeDate: string },
  ): Promise<boolean>;
}

const SPOUSE_LIKE = Object.keys(SPOUSE_RULES) as DependentRelationship[];

export class RelationshipEnds {
  readonly #db: Executor;
  readonly #coverage: DependentCoverageEnder;

  constructor(options: { db: Executor; coverage: DependentCoverageEnder }) {
    this.#db = options.db;
    this.#coverage = options.coverage;
  }

  /** The sweep's candidates on `day`: spouse-like dependents whose relationship ended before it, still covered after that. */
  findDue(day: string): Promise<{ member_id: string; dependent_id: string }[]> {
    return findDependentsCoveredPastRelationshipEnd(this.#db, day, SPOUSE_LIKE);
  }

  /**
   * Ends the coverage the dependent's relationship_end_date ends, if its first day out has come by `today`:
   * per day a coverage goes on without them (coverageLeftFrom: the first day out, or a later coverage's start),
   * one continuation of the engine. Reads the dependent and the coverage under the caller's lock on the member,
   * so that a PATCH then the sweep, or the sweep twice, ends the coverage once (the second finds nothing left).
   * Returns whether it changed anything.
   */
  async applyIn(trx: Transaction<Database>, member: MemberRow, dependentId: string, today: string): Promise<boolean> {
    const [dependent] = await findDependentsByIds(trx, member.provider_id, [dependentId]);
    if (dependent === undefined || dependent.member_id !== member.id) return false;
    const end = relationshipEndOf(dependent.member_relationship, dependent.relationship_end_date);
    if (end === undefined || !isRelationshipEndDue(end, today)) return false;
    const coverage = await findCoverageOfDependentRunningPast(trx, member.id, dependent.id, end.lastDay);
    let changed = false;
    for (const { day, planIds } of coverageLeftFrom(end, coverage)) {
      const leaving = new Map([...planIds].map((planId) => [planId, new Set([dependent.id])]));
      if (await this.#coverage.endDependentCoverageIn(trx, member, day, leaving, { reason: end.reason, changeDate: end.lastDay })) changed = true;
    }
    return changed;
  }
}
