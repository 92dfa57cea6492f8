/**
 * Coverage that changes mid-way (an age-out, an EOI approved after approval, a later election that an earlier
 * event amends: later-elections.ts) is never edited in place: the
 * engine records a continuation, an enrollment of the service starting on the day of the change that elects the
 * stored elections again with the volumes it is given, priced again, submitted and approved in the caller's
 * transaction. Approval then ends the old coverage the day before and records the benefit changes, like any
 * other change (docs/decisions.md "Enrollments").
 */
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { ageOutChange } from '../coverage/age-outs.ts';
import { findCoverageOfPlansOn } from '../coverage/coverage.repository.ts';
import { eventOf } from '../events/event-data.ts';
import type { MemberRow } from '../members/member.table.ts';
import { reelect } from './election-builder.ts';
import type { StoredApproval } from './enrollment-approval.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import type { EnrollmentReason } from './enrollment-rules.ts';
import { ENROLLMENT_EVENT_ACTIONS } from './enrollment-status.ts';
import * as repository from './enrollment.repository.ts';
import type { EnrolledPlanRow, EnrollmentRow } from './enrollment.table.ts';
import { keepCardsAndClientPrices, latestPerPlan, storedVolumes, type KeptVolumes } from './stored-elections.ts';

type Elections = repository.Elections;

/** Why dependents' coverage ends mid-way: the reason of the enrollment recorded, and its change date. */
export interface DependentCoverageEndCause {
  reason: Extract<EnrollmentReason, 'dependent_aged_out' | 'divorce' | 'domestic_partnership'>;
  changeDate: string;
}

export class CoverageContinuation {
  readonly #clock: Clock;
  readonly #approval: StoredApproval;

  constructor(options: { clock: Clock; approval: StoredApproval }) {
    this.#clock = options.clock;
    this.#approval = options.approval;
  }

  /**
   * Ends dependents' coverage when they age out (daily sweep; docs/decisions.md "The daily sweep"): `leaving`
   * maps plans to the dependents whose coverage on them ends the day before `firstDayOut` (the member's coverage
   * on those plans in force on `firstDayOut` is what changes). A `qle` enrollment with reason
   * `dependent_aged_out` starting `firstDayOut` re-elects each of those plans with the dependents who stay (same
   * plan, volumes, providers, end), priced again for the smaller tier. Approval ends the old coverage the day
   * before and records a `change` (`dependent_change`, and `contribution_change` when the price moved) per line,
   * and the COBRA event of a child ceasing to be a dependent (29 U.S.C. 1163(5)). Decides again under the
   * caller's lock on the member: coverage no longer in force on `firstDayOut`, or a dependent no longer on it, is
   * left alone. Returns whether it changed anything. The caller wakes the job worker after commit.
   *
   * `cause` names another event that ends dependents' coverage the same way: a divorce or dissolution
   * (coverage/relationship-ends.ts) gives its reason (`divorce`: the COBRA event of 29 U.S.C. 1163(3)) and its
   * date as the change date (the divorce date, the event's date).
   */
  async endDependentCoverageIn(
    trx: Transaction<Database>,
    member: MemberRow,
    firstDayOut: string,
    leaving: ReadonlyMap<string, ReadonlySet<string>>,
    cause: DependentCoverageEndCause = { reason: 'dependent_aged_out', changeDate: firstDayOut },
  ): Promise<boolean> {
    const current = latestPerPlan(await findCoverageOfPlansOn(trx, member.id, [...leaving.keys()], firstDayOut));
    const stored = await repository.findEnrolledDependentsOf(
      trx,
      current.map((row) => row.id),
    );
    const { affected, staying } = ageOutChange(current, stored, leaving);
    if (affected.length === 0) return false;
    const storedDesignations = await repository.findDesignationsOf(
      trx,
      current.map((row) => row.id),
    );
    const row = serviceEnrollmentRow(member, {
      status: 'pending',
      reason: cause.reason,
      changeDate: cause.changeDate,
      effectiveStart: firstDayOut,
      now: this.#clock.now().toISOString(),
    });
    const stayingOnly: Elections = { plans: affected, dependents: staying, waivers: [], designations: storedDesignations, lines: new Map() };
    // The same coverage goes on: volumes and EOI decisions as they were (and priced on them).
    const kept = affected.map((plan) => storedVolumes(stayingOnly, plan));
    await this.continueCoverageIn(trx, row, member, stayingOnly, affected, kept);
    return true;
  }

  /**
   * Coverage the service continues from the enrollment `row` (pending, inserted here): the stored elections
   * `plans` elected again from `row`'s start with the persons `stored` gives them and the volumes `kept` gives (by
   * position in `plans`; a person without one has the volume requested decided anew), priced on them, keeping
   * cards and client-given prices, then approved as stored (events `created` and `submitted` go first), without
   * reaching forward. The caller holds the member's lock and wakes the job worker after commit.
   */
  async continueCoverageIn(
    trx: Transaction<Database>,
    row: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    plans: readonly EnrolledPlanRow[],
    kept: readonly KeptVolumes[],
  ): Promise<void> {
    const now = this.#clock.now().toISOString();
    const starts = plans.map(() => row.effective_start);
    const elections = await reelect(trx, { enrollment: row, member, stored, plans, starts, kept, now });
    keepCardsAndClientPrices(elections, plans, stored.dependents);
    await repository.insertEnrollment(trx, row);
    await repository.insertElections(trx, elections);
    const recorded = [
      eventOf('enrollment', 'created', { ...row, status: 'not_started' as const }),
      eventOf('enrollment', ENROLLMENT_EVENT_ACTIONS.save_and_submit, row),
    ];
    // Approved as stored: the rows just written, the member locked by the caller.
    await this.#approval.approve(trx, row, elections, recorded);
  }
}
