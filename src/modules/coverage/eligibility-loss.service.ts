/**
 * Loss of eligibility by employment (docs/decisions.md "Loss of eligibility"): when a member's hours_worked or
 * employment_status no longer meets the plan configuration that applies to them (employmentIneligibility), their
 * coverage on that plan ends on the day the employer's hours measurement gives (eligibility-loss-rules.ts),
 * through the termination machinery (CoverageTerminations.endCoverageIn with cause `eligibility_loss`): a `qle`
 * enrollment with reason `employment_change` (COBRA `reduction_of_hours` once the coverage is lost, recorded by
 * the daily sweep), `removed` benefit changes for the carriers, `enrollment_approved` to the member and an
 * `eligibility_lost` alert for the employer. Only the plans whose configuration the member no longer meets end.
 *
 * Hours or status back before the coverage end give it back (undoIn), as an undone termination does. The daily
 * sweep catches members who fall out by date (a configuration that starts with a new plan year, say). Every
 * method runs in the caller's transaction with the member locked.
 */
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates, toDateString } from '../../shared/dates.ts';
import { compareIds } from '../../shared/ids.ts';
import type { NewAlert } from '../alerts/alert.service.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import { employmentIneligibility, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { terminationEffect, undoableOn } from './coverage-rules.ts';
import * as coverage from './coverage.repository.ts';
import type { CoverageTerminationRow } from './coverage.table.ts';
import { eligibilityLossCoverageEnd } from './eligibility-loss-rules.ts';
import * as repository from './eligibility-loss.repository.ts';
import type { CoverageTerminations, EndedCoverage } from './termination.service.ts';

/** What decides eligibility by employment: the member's hours and status. */
type Employment = Pick<MemberRow, 'hours_worked' | 'employment_status'>;

/** Why `member` is not eligible under `configuration` (undefined when they are), the stored row as it is. */
export function ineligibilityUnder(member: Employment, configuration: PlanConfigurationRow): string | undefined {
  const statuses = configuration.eligible_employment_statuses === null ? null : (JSON.parse(configuration.eligible_employment_statuses) as string[]);
  return employmentIneligibility(
    { hoursWorked: member.hours_worked, employmentStatus: member.employment_status },
    { minimum_hours_per_week: configuration.minimum_hours_per_week, eligible_employment_statuses: statuses },
  );
}

export class EligibilityLosses {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #commit: ChangeCommit;
  readonly #terminations: CoverageTerminations;

  constructor(options: { db: Kysely<Database>; clock: Clock; commit: ChangeCommit; terminations: CoverageTerminations }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#commit = options.commit;
    this.#terminations = options.terminations;
  }

  /**
   * A member updated (locked, `before` and `after` the change): when hours_worked or employment_status changed
   * and the member is not terminated before today, losses the member no longer meets are undone, then what the
   * member no longer meets ends, the change dated today. Nothing else happens to a member whose coverage is
   * not affected.
   */
  async applyEmploymentChangeIn(trx: Transaction<Database>, before: MemberRow, after: MemberRow): Promise<void> {
    if (before.hours_worked === after.hours_worked && before.employment_status === after.employment_status) return;
    const today = toDateString(this.#clock.now());
    if (after.termination_date !== null && compareDates(after.termination_date, today) < 0) return;
    await this.undoIn(trx, after, today);
    await this.applyIn(trx, after, today, today);
  }

  /**
   * Ends the member's coverage on every plan whose configuration they no longer meet, for a change on
   * `changeDate`, on the employer's coverage end; coverage already ending by then is left alone (so running it
   * again does nothing). Returns 1 when it ended something, else 0.
   */
  async applyIn(trx: Transaction<Database>, member: MemberRow, changeDate: string, today: string): Promise<number> {
    const coverageEnd = eligibilityLossCoverageEnd(changeDate, await repository.findHoursMeasurement(trx, member.employer_id));
    const rows = await coverage.findCoverageRunningPast(trx, member.id, coverageEnd);
    if (rows.length === 0) return 0;
    const reasons = await this.#ineligibilities(trx, member, rows);
    const ended: EndedCoverage[] = rows.flatMap((row) => {
      if (!reasons.has(row.id)) return [];
      const effect = terminationEffect({ effectiveStart: row.effective_start, effectiveEnd: row.effective_end }, coverageEnd);
      return effect === undefined ? [] : [{ row, effect }];
    });
    if (ended.length === 0) return 0;
    const loss = await this.#terminations.endCoverageIn(trx, member, { cause: 'eligibility_loss', changeDate, coverageEnd, ended }, today);
    const why = [...new Set(ended.map(({ row }) => reasons.get(row.id)!))];
    await this.#commit.commit(trx, { alerts: [eligibilityLostAlert(member, loss, ended.length, why)] });
    return 1;
  }

  /**
   * Undoes the member's losses of eligibility not in effect on `today` (undoableOn) where the member meets again
   * the configuration of at least one plan it ended: all of it is given back, and applyIn ends again what the
   * member still does not meet. Returns how many it undid.
   */
  async undoIn(trx: Transaction<Database>, member: MemberRow, today: string): Promise<number> {
    const losses = (await coverage.findTerminationsInEffect(trx, member.id, 'eligibility_loss')).filter((loss) => undoableOn(loss.coverage_end, today));
    let undone = 0;
    // Newest first: each gives back the end the one before it left.
    for (const loss of losses.reverse()) {
      const items = await coverage.findTerminationItems(trx, loss.id);
      const reasons = await this.#ineligibilities(trx, member, items);
      if (items.every((item) => reasons.has(item.id))) continue;
      await this.#terminations.undoEndIn(trx, member, loss, today);
      undone += 1;
    }
    return undone;
  }

  /**
   * Members of the daily sweep's `day` with coverage in force on a plan whose configuration no longer admits them
   * and that their employer's coverage end for a change on `day` still has to end, in lock order.
   */
  async findMembersOutOfEligibility(day: string): Promise<string[]> {
    const rows = await repository.findCoverageMaybeOutOfEligibility(this.#db, day);
    if (rows.length === 0) return [];
    const byProvider = Map.groupBy(rows, (row) => row.provider_id);
    const members = new Set<string>();
    for (const [providerId, providerRows] of byProvider) {
      const configurations = Map.groupBy(
        await findPlanConfigurationsForPlans(this.#db, providerId, [...new Set(providerRows.map((row) => row.plan_id))]),
        (configuration) => configuration.plan_id,
      );
      const subclasses = await repository.findSubclassesOfMembers(
        this.#db,
        providerRows.map((row) => row.member_id),
      );
      for (const row of providerRows) {
        const configuration = selectPlanConfiguration(subclasses.get(row.member_id) ?? [], configurations.get(row.plan_id) ?? []);
        if (configuration === undefined || ineligibilityUnder(row, configuration) === undefined) continue;
        const coverageEnd = eligibilityLossCoverageEnd(day, row);
        if (terminationEffect({ effectiveStart: row.effective_start, effectiveEnd: row.effective_end }, coverageEnd) !== undefined) members.add(row.member_id);
      }
    }
    return [...members].sort(compareIds);
  }

  /** Entry id -> why the member is not eligible under the configuration of its plan that applies to them (entries elected under a rules override left out). */
  async #ineligibilities(
    trx: Transaction<Database>,
    member: MemberRow,
    entries: readonly { id: string; plan_id: string; enrollment_rules_override_reason: string | null }[],
  ): Promise<Map<string, string>> {
    const configurations = Map.groupBy(
      await findPlanConfigurationsForPlans(
        trx,
        member.provider_id,
        [...new Set(entries.map((entry) => entry.plan_id))],
      ),
      (configuration) => configuration.plan_id,
    );
    const subclassIds = await findMemberSubclassIds(trx, member.id);
    const reasons = new Map<string, string>();
    for (const entry of entries) {
      if (entry.enrollment_rules_override_reason !== null) continue;
      const configuration = selectPlanConfiguration(subclassIds, configurations.get(entry.plan_id) ?? []);
      const reason = configuration === undefined ? undefined : ineligibilityUnder(member, configuration);
      if (reason !== undefined) reasons.set(entry.id, reason);
    }
    return reasons;
  }
}

/** The employer's alert: which member, the enrollment that ends the coverage, its last day and why (ids only). */
function eligibilityLostAlert(member: MemberRow, loss: CoverageTerminationRow, plans: number, why: readonly string[]): NewAlert {
  return {
    providerId: member.provider_id,
    employerId: member.employer_id,
    audience: 'employer',
    kind: 'eligibility_lost',
    relatedObjectType: 'member',
    relatedObjectId: member.id,
    memberId: member.id,
    message:
      `The member no longer meets the eligibility of ${plans === 1 ? '1 plan' : `${plans} plans`} (${why.join(' ')}); ` +
      `that coverage ends on ${loss.coverage_end} (enrollment ${loss.enrollment_id}). Restoring the hours or status by then gives it back.`,
    payload: { member: member.id, employer: member.employer_id, enrollment: loss.enrollment_id, change_date: loss.termination_date, coverage_end: loss.coverage_end },
    key: `eligibility_lost:${loss.id}`,
  };
}
