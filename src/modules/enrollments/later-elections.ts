/**
 * Retroactive events reach forward (docs/decisions.md "Life events", "Enrollments"): once an enrollment is
 * approved, the member's elections on its lines that start later (other enrollments', approved or pending) are
 * brought in line with it, in the approval's transaction. The people it adds (a newborn, an adopted child, a new
 * spouse) go on every later election of the line, priced again: a pending one is amended in place, an approved
 * one through a continuation from its own start (coverage-continuation.ts), so the carriers hear it through the
 * CoverageChangeRecorder, measured against what they were told. A later approved election the enrollment names a
 * plan for itself (the next plan year's) is replaced by it. The decisions are later-elections-rules.ts.
 */
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates } from '../../shared/dates.ts';
import { compareIds } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { NewAlert } from '../alerts/alert.service.ts';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { enrollmentOfCoverage, type CoverageEntry } from '../coverage/coverage-entry.ts';
import { endCoverageBefore } from '../coverage/coverage-history.ts';
import { COVERAGE_STATUSES } from '../coverage/coverage-in-force.ts';
import { findDependentIdsOfPlans, findElectionsStartingAfter } from '../coverage/coverage.repository.ts';
import { findDependentsByIds } from '../dependents/dependent.repository.ts';
import { eventOf, type EventSource } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import { disabilityCertifiedThrough, isChildEligibleOn, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import { isSpouseEligibleOn } from '../dependents/spouse-rules.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { CoverageContinuation } from './coverage-continuation.ts';
import { reelect } from './election-builder.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import * as repository from './enrollment.repository.ts';
import type { EnrolledDependentRow, EnrolledPlanRow, EnrollmentRow } from './enrollment.table.ts';
import { reachForward, type LaterElection, type LaterElectionAction } from './later-elections-rules.ts';
import { storedVolumes } from './stored-elections.ts';

type Elections = repository.Elections;

/** What the approved enrollment brings to the later elections of one enrollment: its actions there, and the entries they name. */
interface Amendment {
  enrollmentId: string;
  actions: { action: LaterElectionAction; entry: CoverageEntry }[];
}

export class LaterElections {
  readonly #clock: Clock;
  readonly #commit: ChangeCommit;
  readonly #continuation: CoverageContinuation;

  constructor(options: { clock: Clock; commit: ChangeCommit; continuation: CoverageContinuation }) {
    this.#clock = options.clock;
    this.#commit = options.commit;
    this.#continuation = options.continuation;
  }

  /**
   * After `enrollment` was approved with `elections` (as stored; the ends of those that a later approved election
   * takes over are moved here too), replacing the coverage `previous`: reaches forward to the member's later
   * elections on its lines. The caller holds the member's lock and has committed the approval's own effects;
   * each continuation commits its own, then one commit gives the `updated` events of enrollments changed in place
   * and one `enrollment_amended` alert for the member per enrollment amended or replaced.
   */
  async reachForwardIn(
    trx: Transaction<Database>,
    scope: Scope,
    input: { enrollment: EnrollmentRow; member: MemberRow; elections: Elections; previous: readonly CoverageItem[] },
  ): Promise<void> {
    const { enrollment, member, elections } = input;
    const own = ownElectionsByLine(elections);
    const starts = [...own.values()].map((rows) => rows[0]!.effective_start!);
    if (starts.length === 0) return;
    const earliest = starts.reduce((a, b) => (compareDates(a, b) <= 0 ? a : b));
    const later = await findElectionsStartingAfter(trx, member.id, [...own.keys()], earliest, enrollment.id);
    if (later.length === 0) return;
    const laterDependents = await findDependentIdsOfPlans(
      trx,
      later.map((entry) => entry.id),
    );
    const adds = new Map([...own].map(([line, rows]) => [line, addedOn(line, rows[0]!, elections, input.previous)]));
    const eligible = await this.#eligibility(trx, member, [...new Set([...adds.values()].flat())], later);
    const amendments = new Map<string, Amendment>();
    for (const [line, rows] of own) {
      const onLine = later.filter((entry) => entry.line_of_coverage === line);
      const entries = new Map(onLine.map((entry) => [entry.id, entry]));
      const decided = reachForward({
        own: rows.map((row) => ({ enrolledPlanId: row.id, start: row.effective_start!, end: row.effective_end })),
        adds: adds.get(line)!,
        later: onLine.map((entry) => laterElectionOf(entry, laterDependents.get(entry.id) ?? [])),
        eligible,
      });
      for (const { own: yielding, laterStart } of decided.yields) {
        const row = rows.find((candidate) => candidate.id === yielding.enrolledPlanId)!;
        const ended = await endCoverageBefore(trx, [row], laterStart);
        row.effective_end = ended.get(row.id) ?? row.effective_end;
      }
      for (const action of decided.actions) {
        const entry = entries.get(action.election.enrolledPlanId)!;
        const amendment = amendments.get(entry.enrollment_id) ?? { enrollmentId: entry.enrollment_id, actions: [] };
        amendment.actions.push({ action, entry });
        amendments.set(entry.enrollment_id, amendment);
      }
    }
    if (amendments.size === 0) return;
    const events: NewEvent[] = [];
    const alerts: NewAlert[] = [];
    // Each enrollment amended is locked after the member (held already), in id order.
    for (const amendment of [...amendments.values()].sort((a, b) => compareIds(a.enrollmentId, b.enrollmentId))) {
      const done = await this.#amendIn(trx, scope, input, amendment);
      if (done === undefined) continue;
      if (done.updated) events.push(eventOf('enrollment', 'updated', done.updated));
      alerts.push(amendedAlert(enrollment, member, amendment.enrollmentId, done));
    }
    await this.#commit.commit(trx, { events, alerts });
  }

  /**
   * Carries out what the approved enrollment does to one later enrollment, locked after the member. Returns what
   * an alert says of it (undefined when the enrollment is no longer there to amend), and the enrollment as its
   * `updated` event describes it when it was changed here rather than by a continuation's approval.
   */
  async #amendIn(
    trx: Transaction<Database>,
    scope: Scope,
    input: { enrollment: EnrollmentRow; member: MemberRow; elections: Elections },
    amendment: Amendment,
  ): Promise<AmendmentDone | undefined> {
    const locked = await repository.lockMemberThenEnrollment(trx, scope, amendment.enrollmentId);
    if (!locked) return undefined;
    const later = locked.enrollment;
    const done: AmendmentDone = { updated: undefined, continuedBy: [], replaced: [], amended: [] };
    const replaced = amendment.actions.filter(({ action }) => action.kind === 'replaced');
    for (const { action, entry } of replaced) {
      if (action.kind !== 'replaced') continue;
      await endCoverageBefore(trx, [entry], action.by.start);
      done.updated = enrollmentOfCoverage(entry);
      done.replaced.push({ line: entry.line_of_coverage, start: action.by.start });
    }
    const asked = amendment.actions.flatMap(({ action, entry }) => (action.kind === 'amend' ? [{ entry, adding: action.adding }] : []));
    if (asked.length === 0) return done;
    const stored = await repository.findElections(trx, [later.id]);
    // A person the later enrollment waives on the line stays waived.
    const waived = (line: LineOfCoverage, dependentId: string) =>
      stored.waivers.some((waiver) => waiver.dependent_id === dependentId && waiver.line_of_coverage === line);
    const amends = asked
      .map(({ entry, adding }) => ({ entry, adding: adding.filter((id) => !waived(entry.line_of_coverage, id)) }))
      .filter(({ adding }) => adding.length > 0);
    if (amends.length === 0) return done.replaced.length > 0 ? done : undefined;
    const amended = withAdded(stored, amends, input.elections, this.#clock.now().toISOString());
    const plans = amends.map(({ entry }) => stored.plans.find((plan) => plan.id === entry.id)!);
    if (later.status === 'pending') {
      await this.#amendPendingIn(trx, later, input.member, stored, amended, plans);
      done.updated = later;
    } else if ((COVERAGE_STATUSES as readonly string[]).includes(later.status)) {
      // Approved: a continuation from each start re-elects the plans with the people added (its approval ends
      // them the day before and tells the carriers, and records the enrollment's `updated` event).
      for (const [start, fromStart] of Map.groupBy(plans, (plan) => plan.effective_start!)) {
        const row: EnrollmentRow = {
          ...serviceEnrollmentRow(input.member, {
            status: 'pending',
            reason: input.enrollment.reason ?? '',
            changeDate: start,
            effectiveStart: start,
            now: this.#clock.now().toISOString(),
          }),
          category: input.enrollment.category,
          reason: input.enrollment.reason,
          change_date: input.enrollment.change_date,
          other_coverage: input.enrollment.other_coverage,
        };
        const kept = fromStart.map((plan) => storedVolumes(stored, plan));
        await this.#continuation.continueCoverageIn(trx, row, input.member, amended, fromStart, kept);
        done.continuedBy.push(row.id);
      }
    } else {
      return done.replaced.length > 0 ? done : undefined;
    }
    done.amended.push(...amends.map(({ entry }) => ({ line: entry.line_of_coverage, start: entry.effective_start! })));
    return done;
  }

  /**
   * A pending enrollment amended in place: the people added go on its enrolled plans `plans` (after those there),
   * and each plan is priced again on them (plans without rates keep the client's figures).
   */
  async #amendPendingIn(
    trx: Transaction<Database>,
    later: EnrollmentRow,
    member: MemberRow,
    stored: Elections,
    amended: Elections,
    plans: readonly EnrolledPlanRow[],
  ): Promise<void> {
    const priced = await reelect(trx, {
      enrollment: later,
      member,
      stored: amended,
      plans,
      starts: plans.map((plan) => plan.effective_start),
      kept: plans.map((plan) => storedVolumes(stored, plan)),
      now: this.#clock.now().toISOString(),
    });
    const added: EnrolledDependentRow[] = [];
    for (const [index, plan] of plans.entries()) {
      const again = priced.plans[index]!;
      const there = new Set(stored.dependents.filter((d) => d.enrolled_plan_id === plan.id).map((d) => d.dependent_id));
      added.push(
        ...priced.dependents.filter((d) => d.enrolled_plan_id === again.id && !there.has(d.dependent_id)).map((d) => ({ ...d, enrolled_plan_id: plan.id })),
      );
      if (again.premium_cents === null) continue;
      await repository.updateEnrolledPlanVolume(trx, plan.id, {
        premium_cents: again.premium_cents,
        employer_contribution_cents: again.employer_contribution_cents,
        member_contribution_cents: again.member_contribution_cents,
      });
    }
    await repository.insertEnrolledDependents(trx, added);
  }

  /**
   * Whether each person added may be covered on a later election: a spouse or partner whose relationship has not
   * ended before its start, a child within the age limit of its plan's configuration on its start.
   */
  async #eligibility(
    trx: Transaction<Database>,
    member: MemberRow,
    dependentIds: readonly string[],
    later: readonly CoverageEntry[],
  ): Promise<(dependentId: string, election: LaterElection) => boolean> {
    if (dependentIds.length === 0) return () => false;
    const dependents = new Map((await findDependentsByIds(trx, member.provider_id, dependentIds)).map((d) => [d.id, d]));
    const planIds = [...new Set(later.map((entry) => entry.plan_id))];
    const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, member.provider_id, planIds), (c) => c.plan_id);
    const subclassIds = await findMemberSubclassIds(trx, member.id);
    const planOf = new Map(later.map((entry) => [entry.id, entry.plan_id]));
    return (dependentId, election) => {
      const dependent = dependents.get(dependentId);
      if (!dependent) return false;
      // A spouse or partner only while the relationship lasts on the election's start (spouse-rules.ts, as at renewal).
      const spouseEligible = isSpouseEligibleOn(dependent.member_relationship, dependent.relationship_end_date, election.start);
      if (spouseEligible !== undefined) return spouseEligible;
      if (!isChildLike(dependent.member_relationship)) return true;
      const configuration = selectPlanConfiguration(subclassIds, configurations.get(planOf.get(election.enrolledPlanId)!) ?? []);
      if (!configuration) return true;
      return isChildEligibleOn(
        dependent.dob,
        configuration.dependent_age_limit,
        configuration.dependent_age_out_rule,
        election.start,
        disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on),
      );
    };
  }
}

/** What was done to one later enrollment, for its alert and event. */
interface AmendmentDone {
  updated: EventSource<'enrollment'> | undefined;
  continuedBy: string[];
  replaced: { line: LineOfCoverage; start: string }[];
  amended: { line: LineOfCoverage; start: string }[];
}

/** The approved enrollment's own elections per line, earliest first (several when it names the plan of each plan year). */
function ownElectionsByLine(elections: Elections): Map<LineOfCoverage, EnrolledPlanRow[]> {
  const byLine = new Map<LineOfCoverage, EnrolledPlanRow[]>();
  for (const plan of elections.plans) {
    const line = elections.lines.get(plan.id);
    if (line === undefined || plan.effective_start === null) continue;
    byLine.set(line, [...(byLine.get(line) ?? []), plan]);
  }
  for (const rows of byLine.values()) rows.sort((a, b) => compareDates(a.effective_start!, b.effective_start!));
  return byLine;
}

/** The people the first election on `line` adds: covered by it, not by the coverage it replaced on the line. */
function addedOn(line: LineOfCoverage, first: EnrolledPlanRow, elections: Elections, previous: readonly CoverageItem[]): string[] {
  const before = new Set(previous.filter((item) => item.lineOfCoverage === line).flatMap((item) => item.dependentIds));
  return elections.dependents.filter((d) => d.enrolled_plan_id === first.id && !before.has(d.dependent_id)).map((d) => d.dependent_id);
}

function laterElectionOf(entry: CoverageEntry, dependentIds: readonly string[]): LaterElection {
  return {
    enrolledPlanId: entry.id,
    enrollmentId: entry.enrollment_id,
    stage: entry.enrollment_status === 'pending' ? 'pending' : 'coverage',
    start: entry.effective_start!,
    dependentIds,
  };
}

/**
 * The later enrollment's stored elections with the people added on the enrolled plans amended, after those there:
 * each as the approved enrollment's first election on the line covers them (primary care provider, requested
 * volume), its volume decided anew on the later plan.
 */
function withAdded(stored: Elections, amends: readonly { entry: CoverageEntry; adding: readonly string[] }[], own: Elections, now: string): Elections {
  const added = amends.flatMap(({ entry, adding }) => {
    const there = stored.dependents.filter((d) => d.enrolled_plan_id === entry.id).length;
    return adding.map((dependentId, index): EnrolledDependentRow => {
      const source = own.dependents.find((d) => d.dependent_id === dependentId && own.lines.get(d.enrolled_plan_id) === entry.line_of_coverage)!;
      return { ...source, enrolled_plan_id: entry.id, position: there + index, member_id_card_id: null, created_at: now };
    });
  });
  return { ...stored, dependents: [...stored.dependents, ...added] };
}

/** The member's alert about one later enrollment: what the approved enrollment did to it. */
function amendedAlert(enrollment: EnrollmentRow, member: MemberRow, laterId: string, done: AmendmentDone): NewAlert {
  const event = `${enrollment.reason ?? enrollment.category}${enrollment.change_date ? ` on ${enrollment.change_date}` : ''}`;
  const parts = [
    ...done.amended.map(
      ({ line, start }) =>
        `Its ${line} coverage from ${start} now also covers the people enrollment ${enrollment.id} (${event}) added, priced again${done.continuedBy.length > 0 ? `; it goes on as enrollment ${done.continuedBy.join(', ')}` : ''}.`,
    ),
    ...done.replaced.map(
      ({ line, start }) => `Its ${line} coverage from ${start} is replaced by enrollment ${enrollment.id} (${event}), which elects that plan year's plan.`,
    ),
  ];
  return {
    providerId: member.provider_id,
    employerId: member.employer_id,
    audience: 'member',
    kind: 'enrollment_amended',
    relatedObjectType: 'enrollment',
    relatedObjectId: laterId,
    memberId: member.id,
    message: `Enrollment ${laterId} was amended. ${[...new Set(parts)].join(' ')}`,
    payload: { enrollment: laterId, amended_by: enrollment.id, continued_by: done.continuedBy[0] ?? null },
    key: `enrollment_amended:${laterId}:${enrollment.id}`,
  };
}
