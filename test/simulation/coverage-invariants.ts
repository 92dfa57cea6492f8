/**
 * The plan-year simulation's coverage invariants (docs/architecture.md "The plan-year simulation: invariants"):
 * the facts of a set of members' coverage read straight from the tables, single_coverage and no_unexplained_gap
 * (cobra_event_per_loss, on the same facts, is in cobra-invariants.ts) (the API shows coverage on a day, not its history). No vitest: the bench runs these too.
 *
 * Everything is computed here from the rows, not by the service's rules: a person's coverage of a line is the
 * union of the date ranges of the enrolled plans that are coverage (the enrollment approved or synced, or
 * failed without the carrier rejecting that plan's change), the member on each, and each enrolled dependent.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import type { CobraEventType } from '../../src/modules/cobra-events/cobra-event.table.ts';
import type { TerminationReason } from '../../src/modules/members/member.table.ts';
import { addDays, compareDates } from '../../src/shared/dates.ts';
import type { Violation } from './invariants.ts';

const OPEN_END = '9999-12-31';

/** One enrolled plan of an enrollment in a coverage status (approved, synced, failed), with what a check needs. */
interface PlanFact {
  id: string;
  memberId: string;
  enrollmentId: string;
  line: string;
  start: string | null;
  end: string | null;
  planEnd: string;
  /** Coverage: not in a failed enrollment whose carrier rejected this plan's change. */
  coverage: boolean;
  dependentIds: string[];
}

export interface EnrollmentFact {
  id: string;
  memberId: string;
  start: string | null;
  reason: string | null;
  medicareEntitledDependentId: string | null;
}

export interface TerminationItemFact {
  enrolledPlanId: string;
  endedOn: string;
  cause: 'termination' | 'eligibility_loss';
  memberTerminationReason: TerminationReason | null;
}

interface LossRowFact {
  cobraEventId: string;
  memberId: string;
  personId: string;
  line: string;
  lostDate: string;
  eventType: CobraEventType;
}

interface CobraEventFact {
  id: string;
  memberId: string;
  eventType: CobraEventType;
  eventDate: string;
  months: number;
  periodEnd: string;
  disabilityExtended: boolean;
}

/** The rows of a batch of members the three checks read (one query per table). */
export interface CoverageFacts {
  plans: PlanFact[];
  enrollments: EnrollmentFact[];
  /** Waived lines per enrollment: `line` for the member, `line|dependent` for a dependent. */
  waivers: Map<string, Set<string>>;
  terminationItems: Map<string, TerminationItemFact[]>;
  losses: LossRowFact[];
  cobraEvents: CobraEventFact[];
}

export async function loadCoverageFacts(db: Kysely<Database>, providerId: string, memberIds: readonly string[]): Promise<CoverageFacts> {
  const planRows = await db
    .selectFrom('enrolled_plans')
    .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
    .innerJoin('plans', 'plans.id', 'enrolled_plans.plan_id')
    .select([
      'enrolled_plans.id',
      'enrolled_plans.member_id',
      'enrolled_plans.enrollment_id',
      'enrolled_plans.effective_start',
      'enrolled_plans.effective_end',
      'plans.line_of_coverage',
      'plans.effective_end as plan_end',
      'enrollments.status',
    ])
    .where('enrolled_plans.provider_id', '=', providerId)
    .where('enrolled_plans.member_id', 'in', memberIds)
    .where('enrollments.status', 'in', ['approved', 'synced', 'failed'])
    .execute();
  const rejected = new Set(
    (
      await db
        .selectFrom('benefit_changes')
        .select('next_enrollment_plan_id')
        .where('provider_id', '=', providerId)
        .where('member_id', 'in', memberIds)
        .where('delivery_state', '=', 'rejected')
        .execute()
    ).map((row) => row.next_enrollment_plan_id),
  );
  const dependents = new Map<string, string[]>();
  for (const ids of chunks(
    planRows.map((row) => row.id),
    1000,
  )) {
    const rows = await db.selectFrom('enrolled_dependents').select(['enrolled_plan_id', 'dependent_id']).where('enrolled_plan_id', 'in', ids).execute();
    for (const row of rows) dependents.set(row.enrolled_plan_id, [...(dependents.get(row.enrolled_plan_id) ?? []), row.dependent_id]);
  }
  const plans = planRows.map((row): PlanFact => ({
    id: row.id,
    memberId: row.member_id,
    enrollmentId: row.enrollment_id,
    line: row.line_of_coverage,
    start: row.effective_start,
    end: row.effective_end,
    planEnd: row.plan_end,
    coverage: row.status !== 'failed' || !rejected.has(row.id),
    dependentIds: dependents.get(row.id) ?? [],
  }));

  const enrollments = (
    await db
      .selectFrom('enrollments')
      .select(['id', 'member_id', 'effective_start', 'reason', 'medicare_entitled_dependent_id'])
      .where('provider_id', '=', providerId)
      .where('member_id', 'in', memberIds)
      .where('status', 'in', ['approved', 'synced', 'failed'])
      .execute()
  ).map((row) => ({
    id: row.id,
    memberId: row.member_id,
    start: row.effective_start,
    reason: row.reason,
    medicareEntitledDependentId: row.medicare_entitled_dependent_id,
  }));

  const waivers = new Map<string, Set<string>>();
  for (const ids of chunks(
    enrollments.map((row) => row.id),
    1000,
  )) {
    const rows = await db
      .selectFrom('coverage_waivers')
      .select(['enrollment_id', 'line_of_coverage', 'dependent_id'])
      .where('enrollment_id', 'in', ids)
      .execute();
    for (const row of rows) {
      const set = waivers.get(row.enrollment_id) ?? new Set<string>();
      set.add(row.dependent_id === null ? row.line_of_coverage : `${row.line_of_coverage}|${row.dependent_id}`);
      waivers.set(row.enrollment_id, set);
    }
  }

  const itemRows = await db
    .selectFrom('coverage_termination_items')
    .innerJoin('coverage_terminations', 'coverage_terminations.id', 'coverage_termination_items.termination_id')
    .innerJoin('members', 'members.id', 'coverage_terminations.member_id')
    .select([
      'coverage_termination_items.enrolled_plan_id',
      'coverage_termination_items.ended_on',
      'coverage_terminations.cause',
      'coverage_terminations.member_id',
      'coverage_terminations.termination_date',
      'members.termination_reason',
    ])
    .where('coverage_terminations.provider_id', '=', providerId)
    .where('coverage_terminations.member_id', 'in', memberIds)
    .where('coverage_terminations.undone_at', 'is', null)
    .execute();
  // The reason of each termination as its employment history recorded it then: a member rehired and terminated
  // (or dead) since has another termination_reason now.
  const reasonThen = new Map<string, TerminationReason | null>();
  const terminations = await db
    .selectFrom('member_employment_events')
    .select(['member_id', 'effective_date', 'details'])
    .where('member_id', 'in', memberIds)
    .where('event_type', '=', 'termination')
    .orderBy('position')
    .execute();
  for (const row of terminations) {
    const details = JSON.parse(row.details) as { termination_reason?: TerminationReason | null };
    if (details.termination_reason !== undefined) reasonThen.set(`${row.member_id}|${row.effective_date}`, details.termination_reason);
  }
  const terminationItems = new Map<string, TerminationItemFact[]>();
  for (const row of itemRows) {
    const then = reasonThen.get(`${row.member_id}|${row.termination_date}`);
    const fact = {
      enrolledPlanId: row.enrolled_plan_id,
      endedOn: row.ended_on,
      cause: row.cause,
      memberTerminationReason: then === undefined ? row.termination_reason : then,
    };
    terminationItems.set(row.enrolled_plan_id, [...(terminationItems.get(row.enrolled_plan_id) ?? []), fact]);
  }

  const losses = (
    await db
      .selectFrom('cobra_event_losses')
      .select(['cobra_event_id', 'member_id', 'person_id', 'line_of_coverage', 'coverage_lost_date', 'event_type'])
      .where('member_id', 'in', memberIds)
      .execute()
  ).map((row) => ({
    cobraEventId: row.cobra_event_id,
    memberId: row.member_id,
    personId: row.person_id,
    line: row.line_of_coverage,
    lostDate: row.coverage_lost_date,
    eventType: row.event_type,
  }));
  const cobraEvents = (
    await db
      .selectFrom('cobra_events')
      .select(['id', 'member_id', 'event_type', 'event_date', 'maximum_coverage_months', 'coverage_period_end', 'disability_recorded_at'])
      .where('provider_id', '=', providerId)
      // A withdrawn event's losses no longer happen (its coverage was cancelled before it began); it records none.
      .where('withdrawn_at', 'is', null)
      .where('member_id', 'in', memberIds)
      .execute()
  ).map((row) => ({
    id: row.id,
    memberId: row.member_id,
    eventType: row.event_type,
    eventDate: row.event_date,
    months: row.maximum_coverage_months,
    periodEnd: row.coverage_period_end,
    disabilityExtended: row.disability_recorded_at !== null,
  }));
  return { plans, enrollments, waivers, terminationItems, losses, cobraEvents };
}

export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

/** One person's coverage of one line by one enrolled plan: its first and last day (OPEN_END when open-ended). */
interface Span {
  plan: PlanFact;
  start: string;
  end: string;
}

/** Where a person's coverage of a line stops: the last day `end` is not followed by coverage of the line on `end + 1`. */
export interface CoverageEnd {
  memberId: string;
  personId: string;
  line: string;
  end: string;
  /** The enrolled plans that end on `end`. */
  plans: PlanFact[];
}

/** Per person and line, the spans of coverage (plans that are coverage, with a first day not after their last). */
function spansByPersonLine(plans: readonly PlanFact[]): Map<string, Span[]> {
  const spans = new Map<string, Span[]>();
  for (const plan of plans) {
    if (!plan.coverage || plan.start === null) continue;
    const end = plan.end ?? OPEN_END;
    // A last day before the first is a cancellation: never coverage.
    if (compareDates(end, plan.start) < 0) continue;
    for (const personId of [plan.memberId, ...plan.dependentIds]) {
      const key = `${plan.memberId}|${personId}|${plan.line}`;
      spans.set(key, [...(spans.get(key) ?? []), { plan, start: plan.start, end }]);
    }
  }
  for (const list of spans.values()) list.sort((a, b) => compareDates(a.start, b.start) || compareDates(a.end, b.end));
  return spans;
}

/**
 * single_coverage: no person is covered twice on one line on any day (two spans of one person and line that
 * share a day); and collects where each person's coverage of a line stops (for the other two checks).
 */
export function checkSingleCoverage(day: string, facts: CoverageFacts): { violations: Violation[]; ends: CoverageEnd[] } {
  const violations: Violation[] = [];
  const ends: CoverageEnd[] = [];
  for (const [key, spans] of spansByPersonLine(facts.plans)) {
    const [memberId = '', personId = '', line = ''] = key.split('|');
    let current: { end: string; plans: PlanFact[] } | undefined;
    for (const span of spans) {
      if (current && compareDates(span.start, current.end) <= 0) {
        const other = current.plans.at(-1)!;
        violations.push({
          day,
          invariant: 'single_coverage',
          detail: `person ${personId} (member ${memberId}) is covered twice on ${line} from ${span.start}: enrolled plans ${other.id} and ${span.plan.id}`,
        });
      }
      if (current && (current.end === OPEN_END || compareDates(span.start, addDays(current.end, 1)) <= 0)) {
        if (compareDates(span.end, current.end) > 0) current = { end: span.end, plans: [span.plan] };
        else if (span.end === current.end) current.plans.push(span.plan);
        continue;
      }
      if (current && current.end !== OPEN_END) ends.push({ memberId, personId, line, end: current.end, plans: current.plans });
      current = { end: span.end, plans: [span.plan] };
    }
    if (current && current.end !== OPEN_END) ends.push({ memberId, personId, line, end: current.end, plans: current.plans });
  }
  return { violations, ends };
}

/**
 * Why a person's coverage of a line stops on `end`, if our records say (null: nothing does). The rule of
 * no_unexplained_gap: the stop (a gap before later coverage, or the last coverage) is explained when
 * - a termination or loss of eligibility (coverage_termination_items, not undone) ended an enrolled plan
 *   there on that day (a death is a termination with reason death); or
 * - an election of the member starts the next day on the line (an enrollment approved, synced or failed
 *   with an enrolled plan of the line starting `end + 1`, or an enrollment starting then that waives the line
 *   for the member or this person): open enrollment dropping someone or waiving, an age-out, a divorce, a
 *   dependent's loss of eligibility, all recorded as elections (continuations) starting the day after; or
 * - the coverage ran to the last day of its plan year (a plan year ending without a renewal of the line).
 * Anything else (coverage rows deleted or cut short, a replacement that left days uncovered) is a violation.
 */
export function explanationOf(end: CoverageEnd, facts: CoverageFacts, index: FactIndex): Explanation | null {
  for (const plan of end.plans) {
    const item = (facts.terminationItems.get(plan.id) ?? []).find((candidate) => candidate.endedOn === end.end);
    if (item) return { kind: 'termination', item };
  }
  const next = addDays(end.end, 1);
  const elections = (index.enrollmentsStarting.get(`${end.memberId}|${next}`) ?? []).filter((enrollment) => {
    const waived = facts.waivers.get(enrollment.id);
    const waives = waived !== undefined && (waived.has(end.line) || waived.has(`${end.line}|${end.personId}`));
    return waives || index.planLines.get(enrollment.id)?.has(`${end.line}|${next}`) === true;
  });
  const alsoPlanStarts = index.planStarts.get(`${end.memberId}|${end.line}|${next}`) ?? [];
  const electedThen = [...elections, ...alsoPlanStarts.filter((enrollment) => !elections.includes(enrollment))];
  if (electedThen.length > 0) return { kind: 'election', enrollments: electedThen };
  if (end.plans.some((plan) => plan.end === plan.planEnd)) return { kind: 'plan_year_end' };
  return null;
}

export type Explanation = { kind: 'termination'; item: TerminationItemFact } | { kind: 'election'; enrollments: EnrollmentFact[] } | { kind: 'plan_year_end' };

export interface FactIndex {
  /** `member|day` -> enrollments whose effective_start is that day. */
  enrollmentsStarting: Map<string, EnrollmentFact[]>;
  /** enrollment -> `line|start` of its enrolled plans (coverage or not: a carrier's refusal does not unmake the election). */
  planLines: Map<string, Set<string>>;
  /** `member|line|start` -> enrollments with an enrolled plan of the line starting that day. */
  planStarts: Map<string, EnrollmentFact[]>;
}

export function indexFacts(facts: CoverageFacts): FactIndex {
  const byId = new Map(facts.enrollments.map((enrollment) => [enrollment.id, enrollment]));
  const enrollmentsStarting = Map.groupBy(
    facts.enrollments.filter((enrollment) => enrollment.start !== null),
    (enrollment) => `${enrollment.memberId}|${enrollment.start}`,
  );
  const planLines = new Map<string, Set<string>>();
  const planStarts = new Map<string, EnrollmentFact[]>();
  for (const plan of facts.plans) {
    if (plan.start === null) continue;
    const lines = planLines.get(plan.enrollmentId) ?? new Set<string>();
    lines.add(`${plan.line}|${plan.start}`);
    planLines.set(plan.enrollmentId, lines);
    const enrollment = byId.get(plan.enrollmentId);
    const key = `${plan.memberId}|${plan.line}|${plan.start}`;
    if (enrollment && !(planStarts.get(key) ?? []).includes(enrollment)) planStarts.set(key, [...(planStarts.get(key) ?? []), enrollment]);
  }
  return { enrollmentsStarting, planLines, planStarts };
}

/** no_unexplained_gap: every stop of a person's coverage of a line has an explanation (explanationOf). */
export function checkGaps(day: string, facts: CoverageFacts, ends: readonly CoverageEnd[]): Violation[] {
  const index = indexFacts(facts);
  const violations: Violation[] = [];
  for (const end of ends) {
    if (explanationOf(end, facts, index) !== null) continue;
    violations.push({
      day,
      invariant: 'no_unexplained_gap',
      detail: `person ${end.personId} (member ${end.memberId}) has no ${end.line} coverage from ${addDays(end.end, 1)} (enrolled plans ${end.plans.map((plan) => plan.id).join(', ')} end ${end.end}): no termination, election or plan year end explains it`,
    });
  }
  return violations;
}
