/**
 * The plan-year simulation's cobra_event_per_loss invariant (docs/architecture.md "The plan-year simulation:
 * invariants"), on the coverage facts and stops of coverage-invariants.ts. The qualifying events and who they
 * qualify are written here from the statute; the maximum lengths are the rule table's (cobra-periods.ts). No vitest.
 */
import { coveragePeriodOf } from '../../src/modules/cobra-events/cobra-periods.ts';
import type { CobraEventType } from '../../src/modules/cobra-events/cobra-event.table.ts';
import type { TerminationReason } from '../../src/modules/members/member.table.ts';
import { addDays, compareDates } from '../../src/shared/dates.ts';
import { explanationOf, indexFacts, type CoverageEnd, type CoverageFacts, type Explanation } from './coverage-invariants.ts';
import type { Violation } from './invariants.ts';

/** Group health lines for COBRA, as docs/decisions.md "COBRA events" limits the record: medical, dental, vision. */
const GROUP_HEALTH = new Set(['medical', 'dental', 'vision']);

/** The events of 29 U.S.C. 1163 an enrollment reason is, written here from the statute (not from cobra-rules.ts). */
const EVENT_OF_REASON: Partial<Record<string, CobraEventType>> = {
  terminated: 'termination',
  death: 'death',
  employment_change: 'reduction_of_hours',
  leave_of_absence: 'reduction_of_hours',
  divorce: 'divorce_or_legal_separation',
  medicare_eligible: 'medicare_entitlement',
  dependent_aged_out: 'dependent_ceased_to_be_dependent',
};

/** A member's termination, by its termination_reason: gross misconduct is none (1163(2)); null reason is a termination. */
function eventOfTermination(reason: TerminationReason | null): CobraEventType | null {
  if (reason === 'gross_misconduct') return null;
  if (reason === 'death') return 'death';
  if (reason === 'reduction_in_hours') return 'reduction_of_hours';
  return 'termination';
}

/** 29 U.S.C. 1167(3): the employee is a qualified beneficiary of a termination or reduction of hours only. */
const EMPLOYEE_QUALIFIES = new Set<CobraEventType>(['termination', 'reduction_of_hours']);

/** The qualifying events that may explain a stop of coverage (empty: none is one). */
function eventTypesOf(explanation: Explanation | null): Set<CobraEventType> {
  const types = new Set<CobraEventType>();
  if (explanation?.kind === 'termination') {
    const type = explanation.item.cause === 'eligibility_loss' ? 'reduction_of_hours' : eventOfTermination(explanation.item.memberTerminationReason);
    if (type) types.add(type);
  }
  if (explanation?.kind === 'election') {
    for (const enrollment of explanation.enrollments) {
      const type = enrollment.reason === null ? undefined : EVENT_OF_REASON[enrollment.reason];
      // A dependent's own Medicare entitlement is a life event, not 1163(4) (the covered employee's).
      if (type === 'medicare_entitlement' && enrollment.medicareEntitledDependentId !== null) continue;
      if (type) types.add(type);
    }
  }
  return types;
}

/**
 * cobra_event_per_loss: every loss of group health coverage by a qualified beneficiary of a qualifying event,
 * once its first day without coverage has come (`lost <= day`), has exactly one COBRA event loss row, of an
 * event of that type; every loss row matches such a stop of coverage (no event for coverage that goes on, or
 * of another type); and every event has the maximum length of its type (cobra-periods.ts, the rule table: 18
 * months, 36, or 29 after a disability determination) with its period ending that many months after the event.
 */
export function checkCobra(day: string, facts: CoverageFacts, ends: readonly CoverageEnd[]): Violation[] {
  const index = indexFacts(facts);
  const violations: Violation[] = [];
  const violation = (detail: string) => violations.push({ day, invariant: 'cobra_event_per_loss', detail });
  const lossRows = Map.groupBy(facts.losses, (loss) => `${loss.personId}|${loss.line}|${loss.lostDate}`);
  const stops = new Map<string, { end: CoverageEnd; types: Set<CobraEventType> }>();
  const memberStops = new Set(ends.filter((end) => end.personId === end.memberId).map((end) => `${end.memberId}|${end.line}|${end.end}`));
  for (const end of ends) {
    if (!GROUP_HEALTH.has(end.line)) continue;
    const lost = addDays(end.end, 1);
    const types = eventTypesOf(explanationOf(end, facts, index));
    stops.set(`${end.personId}|${end.line}|${lost}`, { end, types });
    if (compareDates(lost, day) > 0) continue;
    const isMember = end.personId === end.memberId;
    // A death is an event only when the employee's own coverage ends with it (a dependent's death is none).
    const memberLostToo = memberStops.has(`${end.memberId}|${end.line}|${end.end}`);
    const qualifying = [...types].filter((type) => (isMember ? EMPLOYEE_QUALIFIES.has(type) : type !== 'death' || memberLostToo));
    if (qualifying.length === 0) continue;
    const recorded = (lossRows.get(`${end.personId}|${end.line}|${lost}`) ?? []).filter((row) => qualifying.includes(row.eventType));
    if (recorded.length !== 1) {
      violation(
        `person ${end.personId} (member ${end.memberId}) lost ${end.line} from ${lost} (${qualifying.join(' or ')}): ${recorded.length} COBRA events record it${recorded.length > 1 ? ` (${recorded.map((row) => row.cobraEventId).join(', ')})` : ''}`,
      );
    }
  }
  for (const [key, rows] of lossRows) {
    const stop = stops.get(key);
    for (const row of rows) {
      if (!stop)
        violation(
          `COBRA event ${row.cobraEventId} (${row.eventType}) records a loss of ${row.line} by ${row.personId} from ${row.lostDate}, but that coverage does not stop then (never began, or goes on)`,
        );
      else if (!stop.types.has(row.eventType))
        violation(
          `COBRA event ${row.cobraEventId} is a ${row.eventType} event for ${row.personId}'s loss of ${row.line} from ${row.lostDate}; expected ${[...stop.types].join(' or ') || 'no qualifying event'}`,
        );
    }
  }
  for (const event of facts.cobraEvents) {
    const period = coveragePeriodOf(event.eventType, event.eventDate, event.disabilityExtended);
    if (event.months !== period.months || event.periodEnd !== period.end) {
      violation(
        `COBRA event ${event.id} (${event.eventType} of ${event.eventDate}) lasts ${event.months} months to ${event.periodEnd}; expected ${period.months} to ${period.end}`,
      );
    }
  }
  return violations;
}
