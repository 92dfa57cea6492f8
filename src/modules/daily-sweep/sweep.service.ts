import { PostgresAdapter, type Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { batches, sumConcurrently } from '../../shared/batches.ts';
import { addDays, compareDates } from '../../shared/dates.ts';
import { compareIds } from '../../shared/ids.ts';
import { rememberReads } from '../../db/query-cache.ts';
import { lockMembersByIds } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import { wakingAfter, type Wakeable } from '../../jobs/job-wake.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import { selectPlanConfiguration, waitingPeriodEnd } from '../plan-configurations/eligibility.ts';
import { ageOutCandidatesBornBy, ageOutOf, dueAgeOuts, type AgeOut as AgeOutOf } from '../coverage/age-outs.ts';
import { terminationCoverageEnd, terminationEffect } from '../coverage/coverage-rules.ts';
import { findCoverageOfTerminatedMembers, findDependentsCoveredOn } from '../coverage/coverage.repository.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import { AGE_OUT_NOTICE_DAYS, ageOutNoticeDay, hireDateEligibleOn } from './sweep-rules.ts';
import * as repository from './sweep.repository.ts';

/** What the sweep needs from the open enrollment windows. */
export interface WindowRules {
  remindIncompleteMembers(day: string): Promise<number>;
  closeWindowsPastEnd(day: string): Promise<number>;
}

/** What the sweep needs from the enrollment engine: ending aged-out dependents' coverage. */
export interface CoverageEnder {
  /** `leaving`: plan id -> the dependents whose coverage on it ends the day before `firstDayOut`. */
  endDependentCoverageIn(
    trx: Transaction<Database>,
    member: MemberRow,
    firstDayOut: string,
    leaving: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<boolean>;
}

/** What the sweep needs from the coverage module to end the coverage of divorced or dissolved partners (coverage/relationship-ends.ts). */
export interface RelationshipEndRules {
  /** Candidates: dependents whose relationship ended before `day` and who are still covered after it, members in id order. */
  findDue(day: string): Promise<{ member_id: string; dependent_id: string }[]>;
  /** Ends the dependent's coverage as their relationship_end_date says (decided again under the caller's lock on the member). */
  applyIn(trx: Transaction<Database>, member: MemberRow, dependentId: string, today: string): Promise<boolean>;
}

/** What the sweep needs from the coverage module to carry out terminations (coverage/termination.service.ts). */
export interface TerminationRules {
  applyIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number>;
  recordDueCobraEvents(day: string, batchSize: number): Promise<number>;
}

/** What the sweep needs from the coverage module to catch losses of eligibility by date (coverage/eligibility-loss.service.ts). */
export interface EligibilityRules {
  findMembersOutOfEligibility(day: string): Promise<string[]>;
  applyIn(trx: Transaction<Database>, member: MemberRow, changeDate: string, today: string): Promise<number>;
}

/**
 * Members whose coverage the sweep changes go this many to a transaction: one commit each (on SQLite a
 * commit with its sync costs about as much as changing a member) while no lock is held long (a batch takes
 * well under a second). A failure rolls back its batch only; the rerun finds what is left (every step is
 * idempotent by state).
 */
export const SWEEP_BATCH_SIZE = 100;

/** Batches of members changed at once on PostgreSQL (DailySweep's `batchesAtOnce`); on SQLite one. */
export const SWEEP_BATCHES_AT_ONCE = 4;

type AgeOut = AgeOutOf<Awaited<ReturnType<typeof findDependentsCoveredOn>>[number]>;

/** How the sweep cuts its work (the defaults suit production; tests use small batches to exercise several). */
export interface SweepOptions {
  /** Members to a transaction (SWEEP_BATCH_SIZE). */
  batchSize?: number;
  /** Transactions at once (SWEEP_BATCHES_AT_ONCE on PostgreSQL, 1 on SQLite). */
  batchesAtOnce?: number;
}

export interface SweepSummary {
  day: string;
  newly_eligible: number;
  dependent_age_out: number;
  dependent_coverage_ended: number;
  relationship_coverage_ended: number;
  open_enrollment_reminder: number;
  windows_closed: number;
  coverage_ended: number;
  /** Members whose coverage the sweep started to end because their hours or status no longer meet a configuration. */
  eligibility_lost: number;
  /** COBRA events of terminations and of losses of eligibility whose coverage was lost. */
  termination_cobra_events: number;
}

/**
 * Applies every date-driven rule for one day (docs/decisions.md "The daily sweep"). Running it again for the same
 * day, or twice at once, creates nothing new: a notification has a unique occurrence_key and a window closes by a
 * conditional status update, inserted or made in the transaction that acts; terminations and age-outs decide
 * again under the member's lock, and a termination's COBRA event is claimed by a conditional update.
 */
export class DailySweep {
  readonly #db: Kysely<Database>;
  readonly #changes: ChangeCommit;
  readonly #windows: WindowRules;
  readonly #coverage: CoverageEnder;
  readonly #terminations: TerminationRules;
  readonly #relationshipEnds: RelationshipEndRules;
  readonly #eligibility: EligibilityRules;
  readonly #worker: Wakeable | undefined;
  readonly #batchSize: number;
  readonly #batchesAtOnce: number;

  constructor(
    options: SweepOptions & {
      db: Kysely<Database>;
      changes: ChangeCommit;
      windows: WindowRules;
      coverage: CoverageEnder;
      terminations: TerminationRules;
      relationshipEnds: RelationshipEndRules;
      eligibility: EligibilityRules;
      /** Woken after each rule that enqueued jobs (jobs/job-wake.ts); absent where no worker runs (`benefits sweep`). */
      worker?: Wakeable | undefined;
    },
  ) {
    const { db } = options;
    this.#db = db;
    this.#changes = options.changes;
    this.#windows = options.windows;
    this.#coverage = options.coverage;
    this.#terminations = options.terminations;
    this.#relationshipEnds = options.relationshipEnds;
    this.#eligibility = options.eligibility;
    this.#worker = options.worker;
    this.#batchSize = options.batchSize ?? SWEEP_BATCH_SIZE;
    this.#batchesAtOnce = options.batchesAtOnce ?? (db.getExecutor().adapter instanceof PostgresAdapter ? SWEEP_BATCHES_AT_ONCE : 1);
  }

  async run(day: string): Promise<SweepSummary> {
    const newlyEligible = await this.#rule(() => this.#newlyEligible(day));
    // The reminders and the coverage changes run side by side: on PostgreSQL each on a connection of its own, so
    // that one's inserts proceed while the other waits on its round trips (on SQLite their transactions take
    // turns on the one connection). Neither depends on the other: a reminder goes to members not terminated
    // before the renewal date and without a submitted enrollment in the window, which no age-out or termination
    // changes, and neither locks what the other writes (a reminder locks no member).
    const [reminders, coverage] = await settledBoth(
      this.#rule(() => this.#windows.remindIncompleteMembers(day)),
      this.#changeCoverage(day),
    );
    return {
      day,
      newly_eligible: newlyEligible,
      ...coverage.ageOuts,
      relationship_coverage_ended: coverage.relationshipEnds,
      open_enrollment_reminder: reminders,
      windows_closed: await this.#rule(() => this.#windows.closeWindowsPastEnd(day)),
      coverage_ended: coverage.ended,
      eligibility_lost: coverage.eligibilityLost,
      termination_cobra_events: await this.#rule(() => this.#terminations.recordDueCobraEvents(day, this.#batchSize)),
    };
  }

  /**
   * One rule, after which the worker is woken if it enqueued jobs (webhook deliveries of its events, benefit
   * changes for carriers): they go out while the later rules run (jobs/job-wake.ts).
   */
  #rule<T>(work: () => Promise<T>): Promise<T> {
    return wakingAfter(this.#worker, work);
  }

  /**
   * Age-outs, then divorces and dissolutions, then terminations, then losses of eligibility: one member's changes
   * never run in two transactions at once.
   */
  async #changeCoverage(day: string): Promise<{
    ageOuts: { dependent_age_out: number; dependent_coverage_ended: number };
    relationshipEnds: number;
    ended: number;
    eligibilityLost: number;
  }> {
    const ageOuts = await this.#rule(() => this.#ageOuts(day));
    const relationshipEnds = await this.#rule(() => this.#endCoverageOfFormerPartners(day));
    const ended = await this.#rule(() => this.#endCoverageOfTerminatedMembers(day));
    return { ageOuts, relationshipEnds, ended, eligibilityLost: await this.#rule(() => this.#endCoverageOfIneligibleMembers(day)) };
  }

  /**
   * Spouses and partners whose relationship_end_date is before `day` and who are still covered after it
   * (docs/decisions.md, A divorce or dissolution ends coverage): the coverage module ends that coverage
   * (RelationshipEndRules.applyIn), with the member locked, in batches of members (#inBatches). applyIn decides
   * again under the lock, so a rerun, a concurrent sweep or a PATCH that got there first changes nothing more.
   */
  async #endCoverageOfFormerPartners(day: string): Promise<number> {
    const due = await this.#relationshipEnds.findDue(day);
    if (due.length === 0) return 0;
    const byMember = [...Map.groupBy(due, (row) => row.member_id).entries()].sort(([a], [b]) => compareIds(a, b));
    return this.#inBatches(byMember, async (trx, batch) => {
      let done = 0;
      const locked = await lockMembersByIds(
        trx,
        batch.map(([memberId]) => memberId),
      );
      for (const [memberId, rows] of batch) {
        const member = locked.get(memberId);
        if (member === undefined) continue;
        for (const row of rows) if (await this.#relationshipEnds.applyIn(trx, member, row.dependent_id, day)) done += 1;
      }
      return done;
    });
  }

  /**
   * Members with coverage in force whose plan configuration no longer admits them on `day` (hours or status; a
   * configuration of a new plan year, say): the coverage module starts their loss of eligibility, the change dated
   * `day` (EligibilityRules.applyIn), with the member locked, in batches; it decides again under the lock and
   * leaves coverage already ending by the loss's end alone, so a rerun finds nothing left to do.
   */
  async #endCoverageOfIneligibleMembers(day: string): Promise<number> {
    const members = await this.#eligibility.findMembersOutOfEligibility(day);
    return this.#inBatches(members, async (trx, batch) => {
      let started = 0;
      const locked = await lockMembersByIds(trx, batch);
      for (const memberId of batch) {
        const member = locked.get(memberId);
        if (member && (member.termination_date === null || compareDates(member.termination_date, day) >= 0))
          started += await this.#eligibility.applyIn(trx, member, day, day);
      }
      return started;
    });
  }

  /** newly_eligible to members whose waiting period for some running plan ends on `day` (once per member). */
  async #newlyEligible(day: string): Promise<number> {
    const configurations = await repository.findRunningConfigurations(this.#db, day);
    const byEmployer = Map.groupBy(configurations, (configuration) => `${configuration.provider_id}|${configuration.employer_id}`);
    let recorded = 0;
    for (const employerConfigurations of byEmployer.values()) {
      const { provider_id: providerId, employer_id: employerId } = employerConfigurations[0]!;
      const hireDates = [...new Set(employerConfigurations.map((configuration) => hireDateEligibleOn(day, configuration.waiting_period_days)))];
      const members = await repository.findMembersHiredOn(this.#db, providerId, employerId, hireDates, day);
      const subclasses = await repository.findSubclassesOfMembers(
        this.#db,
        members.map((member) => member.id),
      );
      const byPlan = [...Map.groupBy(employerConfigurations, (configuration) => configuration.plan_id).values()];
      const eligibleToday = members.filter((member) =>
        byPlan.some((candidates) => {
          const configuration = selectPlanConfiguration(subclasses.get(member.id) ?? [], candidates);
          return configuration !== undefined && waitingPeriodEnd(member.hire_date, configuration.waiting_period_days) === day;
        }),
      );
      if (eligibleToday.length === 0) continue;
      const notifications = eligibleToday.map((member): NewNotification => ({
        providerId,
        employerId,
        type: 'newly_eligible',
        relatedObjectType: 'member',
        relatedObjectId: member.id,
        owner: 'member',
        payload: { member: member.id, employer: employerId },
        // The same key member creation uses: a member is told once.
        occurrenceKey: `newly_eligible:${member.id}`,
      }));
      recorded += await this.#notify(notifications);
    }
    return recorded;
  }

  /**
   * Covered children and the age-out of each (the plan configuration that applies to the member; children
   * with a current disability certification stay covered while it counts): the notices due on `day`, then the
   * coverage whose last day has come.
   */
  async #ageOuts(day: string): Promise<{ dependent_age_out: number; dependent_coverage_ended: number }> {
    const lowestAgeLimit = await repository.findLowestDependentAgeLimit(this.#db);
    if (lowestAgeLimit === undefined) return { dependent_age_out: 0, dependent_coverage_ended: 0 };
    // Only children who may age out within the notice period (or have, uncaught): 10% of the plan-year bench's CPU read every covered child each day.
    const bornBy = ageOutCandidatesBornBy(day, AGE_OUT_NOTICE_DAYS, lowestAgeLimit);
    const covered = (await findDependentsCoveredOn(this.#db, day, bornBy)).filter((row) => isChildLike(row.member_relationship));
    if (covered.length === 0) return { dependent_age_out: 0, dependent_coverage_ended: 0 };
    const configurations = Map.groupBy(
      await repository.findConfigurationsOfPlans(
        this.#db,
        covered.map((row) => row.plan_id),
      ),
      (c) => c.plan_id,
    );
    const subclasses = await repository.findSubclassesOfMembers(
      this.#db,
      covered.map((row) => row.member_id),
    );
    const ageOuts = covered.flatMap((row) => {
      const configuration = selectPlanConfiguration(subclasses.get(row.member_id) ?? [], configurations.get(row.plan_id) ?? []);
      return configuration ? [ageOutOf(row, configuration)] : [];
    });
    return { dependent_age_out: await this.#ageOutNotices(day, ageOuts), dependent_coverage_ended: await this.#endAgedOutCoverage(day, ageOuts) };
  }

  /**
   * dependent_age_out to the member, 30 days before a covered child's first day without coverage (docs/decisions.md
   * "The daily sweep"); for a child covered on a disability certification, 30 days before it stops counting, so that
   * the member can send a new one (payload `disability_certified_through`).
   */
  async #ageOutNotices(day: string, ageOuts: readonly AgeOut[]): Promise<number> {
    const notices = new Map<string, NewNotification>();
    for (const { row, lastDay, certified } of ageOuts) {
      if (ageOutNoticeDay(lastDay) !== day) continue;
      const firstDayOut = addDays(lastDay, 1);
      const key = `dependent_age_out:${row.dependent_id}:${firstDayOut}`;
      notices.set(key, {
        providerId: row.provider_id,
        employerId: row.employer_id,
        type: 'dependent_age_out',
        relatedObjectType: 'dependent',
        relatedObjectId: row.dependent_id,
        owner: 'member',
        payload: {
          dependent: row.dependent_id,
          member: row.member_id,
          employer: row.employer_id,
          coverage_ends_before: firstDayOut,
          ...(certified ? { disability_certified_through: lastDay } : {}),
        },
        occurrenceKey: key,
      });
    }
    if (notices.size === 0) return 0;
    return this.#notify([...notices.values()]);
  }

  /** Records notifications (occurrences already recorded are skipped) in a transaction of their own; how many were new. */
  async #notify(notifications: readonly NewNotification[]): Promise<number> {
    const { notified } = await this.#db.transaction().execute((trx) => this.#changes.commit(trx, { notifications }));
    return notified;
  }

  /**
   * Children whose last covered day has come (`day` or earlier: a missed day is caught up) on coverage that
   * runs past it (the coverage module's dueAgeOuts): the enrollment engine ends it
   * (CoverageEnder.endDependentCoverageIn), per member and first day out with the member locked, in batches of
   * members (#inBatches). The engine decides again under the lock, so a rerun or a concurrent sweep changes
   * nothing more.
   */
  async #endAgedOutCoverage(day: string, ageOuts: readonly AgeOut[]): Promise<number> {
    const byMember = dueAgeOuts(day, ageOuts);
    return this.#inBatches(byMember, async (trx, batch) => {
      let done = 0;
      const locked = await lockMembersByIds(
        trx,
        batch.map((entries) => entries[0]!.memberId),
      );
      for (const entries of batch) {
        for (const { memberId, firstDayOut, leaving } of entries) {
          const member = locked.get(memberId);
          if (member && (await this.#coverage.endDependentCoverageIn(trx, member, firstDayOut, leaving))) done += 1;
        }
      }
      return done;
    });
  }

  /**
   * Members terminated before `day` with coverage that runs past the end their plan configuration's
   * termination policy gives (or starts after it): the coverage module ends it (TerminationRules.applyIn), with
   * the member locked, in batches of members (#inBatches); applyIn decides again under the lock, so a rerun or
   * a concurrent sweep finds nothing left to do.
   */
  async #endCoverageOfTerminatedMembers(day: string): Promise<number> {
    const rows = await findCoverageOfTerminatedMembers(this.#db, day);
    if (rows.length === 0) return 0;
    const configurations = Map.groupBy(
      await repository.findConfigurationsOfPlans(
        this.#db,
        rows.map((row) => row.plan_id),
      ),
      (c) => c.plan_id,
    );
    const subclasses = await repository.findSubclassesOfMembers(
      this.#db,
      rows.map((row) => row.member_id),
    );
    const members = new Set<string>();
    for (const row of rows) {
      const coverageEnd = terminationCoverageEnd(row.termination_date!, subclasses.get(row.member_id) ?? [], configurations.get(row.plan_id) ?? []);
      if (terminationEffect({ effectiveStart: row.effective_start, effectiveEnd: row.effective_end }, coverageEnd) !== undefined) members.add(row.member_id);
    }
    return this.#inBatches([...members].sort(compareIds), async (trx, batch) => {
      let applied = 0;
      const locked = await lockMembersByIds(trx, batch);
      for (const memberId of batch) {
        const member = locked.get(memberId);
        if (member && member.termination_date !== null && compareDates(member.termination_date, day) < 0)
          applied += await this.#terminations.applyIn(trx, member, day);
      }
      return applied;
    });
  }

  /**
   * `work` on `batchSize` of `items` (one member each, in lock order) to a transaction; on PostgreSQL up to
   * `batchesAtOnce` transactions at once (the open-enrollment-scale sweep: 17.1 s one at a time, 11.6 s four at
   * once, 13.8 s two). A member's changes wait mostly on round trips, batches share no member, and no other row
   * that a member's changes lock is shared (docs/architecture.md, Lock order), so they never wait on one
   * another. On SQLite, whose one connection runs one transaction at a time, one after the other.
   */
  #inBatches<T>(items: readonly T[], work: (trx: Transaction<Database>, batch: T[]) => Promise<number>): Promise<number> {
    return sumConcurrently([...batches(items, this.#batchSize)], this.#batchesAtOnce, (batch) =>
      this.#db.transaction().execute((trx) => {
        // A batch writes no plan, configuration, group or endpoint: it reads each once (query-cache.ts).
        rememberReads(trx);
        return work(trx, batch);
      }),
    );
  }
}

/**
 * Both results once both have settled; if either failed, its error (the first's when both did). A failed step
 * never leaves the other running on after the sweep has returned (its caller may close the database).
 */
async function settledBoth<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}
