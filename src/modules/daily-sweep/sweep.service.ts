import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates } from '../../shared/dates.ts';
import type { EnrollmentResponse } from '../enrollments/enrollment.schemas.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { Notifier } from '../notifications/notification.service.ts';
import { coverageEndOnTermination, selectPlanConfiguration, waitingPeriodEnd } from '../plan-configurations/eligibility.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { firstDayAgedOut, ageOutNoticeDate, hireDateEligibleOn } from './sweep-rules.ts';
import * as repository from './sweep.repository.ts';

/** What the sweep needs from the open enrollment windows. */
export interface WindowRules {
  remindIncompleteMembers(day: string): Promise<number>;
  closeWindowsPastEnd(day: string): Promise<number>;
}

/** What the sweep needs from the enrollment engine to end a terminated member's coverage. */
export interface CoverageEnder {
  endCoverageOnTerminationIn(trx: Transaction<Database>, member: MemberRow, coverageEnd: string, lines: readonly LineOfCoverage[]): Promise<EnrollmentResponse>;
  wakeJobs(): void;
}

export interface SweepSummary {
  day: string;
  newly_eligible: number;
  dependent_age_out: number;
  open_enrollment_reminder: number;
  windows_closed: number;
  coverage_ended: number;
}

/**
 * Applies every date-driven rule for one day (API.md section 5). Running it again for the same day, or twice
 * at once, creates nothing new: each occurrence has a unique key (a notification's occurrence_key, a
 * sweep_occurrences row, a window's conditional status update), inserted in the transaction that acts on it.
 */
export class DailySweep {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #notifier: Notifier;
  readonly #windows: WindowRules;
  readonly #coverage: CoverageEnder;

  constructor(db: Kysely<Database>, clock: Clock, notifier: Notifier, windows: WindowRules, coverage: CoverageEnder) {
    this.#db = db;
    this.#clock = clock;
    this.#notifier = notifier;
    this.#windows = windows;
    this.#coverage = coverage;
  }

  async run(day: string): Promise<SweepSummary> {
    const summary: SweepSummary = {
      day,
      newly_eligible: await this.#newlyEligible(day),
      dependent_age_out: await this.#dependentAgeOut(day),
      open_enrollment_reminder: await this.#windows.remindIncompleteMembers(day),
      windows_closed: await this.#windows.closeWindowsPastEnd(day),
      coverage_ended: await this.#endCoverageOfTerminatedMembers(day),
    };
    return summary;
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
      const subclasses = await repository.findSubclassesOfMembers(this.#db, members.map((member) => member.id));
      const byPlan = [...Map.groupBy(employerConfigurations, (configuration) => configuration.plan_id).values()];
      const eligibleToday = members.filter((member) =>
        byPlan.some((candidates) => {
          const configuration = selectPlanConfiguration(subclasses.get(member.id) ?? [], candidates);
          return configuration !== undefined && waitingPeriodEnd(member.hire_date, configuration.waiting_period_days) === day;
        }),
      );
      if (eligibleToday.length === 0) continue;
      recorded += await this.#db.transaction().execute(async (trx) =>
        this.#notifier.recordMany(
          trx,
          eligibleToday.map((member) => ({
            providerId,
            employerId,
            type: 'newly_eligible',
            relatedObjectType: 'member',
            relatedObjectId: member.id,
            owner: 'member',
            payload: { member: member.id, employer: employerId },
            // The same key member creation uses: a member is told once.
            occurrenceKey: `newly_eligible:${member.id}`,
          })),
        ),
      );
    }
    return recorded;
  }

  /** dependent_age_out to the member, 30 days before a covered child ages out of the plan's configuration. */
  async #dependentAgeOut(day: string): Promise<number> {
    const covered = (await repository.findCoveredDependents(this.#db, day)).filter((row) => isChildLike(row.member_relationship) && !row.has_disability);
    if (covered.length === 0) return 0;
    const configurations = Map.groupBy(await repository.findConfigurationsOfPlans(this.#db, covered.map((row) => row.plan_id)), (c) => c.plan_id);
    const subclasses = await repository.findSubclassesOfMembers(this.#db, covered.map((row) => row.member_id));
    const notices = new Map<string, Parameters<Notifier['record']>[1]>();
    for (const row of covered) {
      const configuration = selectPlanConfiguration(subclasses.get(row.member_id) ?? [], configurations.get(row.plan_id) ?? []);
      if (!configuration) continue;
      const { dependent_age_limit: limit, dependent_age_out_rule: rule } = configuration;
      if (ageOutNoticeDate(row.dob, limit, rule) !== day) continue;
      const agedOut = firstDayAgedOut(row.dob, limit, rule);
      const key = `dependent_age_out:${row.dependent_id}:${agedOut}`;
      notices.set(key, {
        providerId: row.provider_id,
        employerId: row.employer_id,
        type: 'dependent_age_out',
        relatedObjectType: 'dependent',
        relatedObjectId: row.dependent_id,
        owner: 'member',
        payload: { dependent: row.dependent_id, member: row.member_id, employer: row.employer_id, coverage_ends_before: agedOut },
        occurrenceKey: key,
      });
    }
    if (notices.size === 0) return 0;
    return this.#db.transaction().execute(async (trx) => this.#notifier.recordMany(trx, [...notices.values()]));
  }

  /**
   * Members terminated before `day` whose coverage runs past the end their plan configuration's termination
   * policy gives: the coverage ends then, through the enrollment engine (a `removed` benefit change per line,
   * handed to the carrier). One transaction per member and end date, keyed so it happens once.
   */
  async #endCoverageOfTerminatedMembers(day: string): Promise<number> {
    const rows = await repository.findCoverageOfTerminatedMembers(this.#db, day);
    if (rows.length === 0) return 0;
    const configurations = Map.groupBy(await repository.findConfigurationsOfPlans(this.#db, rows.map((row) => row.plan_id)), (c) => c.plan_id);
    const subclasses = await repository.findSubclassesOfMembers(this.#db, rows.map((row) => row.member_id));
    const toEnd = new Map<string, { providerId: string; memberId: string; coverageEnd: string; lines: Set<LineOfCoverage> }>();
    for (const row of rows) {
      const configuration: PlanConfigurationRow | undefined = selectPlanConfiguration(subclasses.get(row.member_id) ?? [], configurations.get(row.plan_id) ?? []);
      const coverageEnd = coverageEndOnTermination(row.termination_date!, configuration?.termination_policy ?? 'termination_date');
      if (row.effective_end !== null && compareDates(row.effective_end, coverageEnd) <= 0) continue;
      const key = `coverage_ended:${row.member_id}:${row.termination_date}:${coverageEnd}`;
      const entry = toEnd.get(key) ?? { providerId: row.provider_id, memberId: row.member_id, coverageEnd, lines: new Set<LineOfCoverage>() };
      entry.lines.add(row.line_of_coverage);
      toEnd.set(key, entry);
    }
    let ended = 0;
    for (const [key, { providerId, memberId, coverageEnd, lines }] of toEnd) {
      const done = await this.#db.transaction().execute(async (trx) => {
        if (!(await repository.claimOccurrence(trx, key, this.#clock.now().toISOString()))) return false;
        const member = await lockMemberById(trx, { providerId, employerId: null }, memberId);
        if (!member) return false;
        await this.#coverage.endCoverageOnTerminationIn(trx, member, coverageEnd, [...lines]);
        return true;
      });
      if (done) ended += 1;
    }
    if (ended > 0) this.#coverage.wakeJobs();
    return ended;
  }
}
