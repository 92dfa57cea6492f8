import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { canonicalTimestamp, toDateString } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { TerminationReason } from '../members/member.table.ts';
import { coveragePeriodOf, DISABILITY_EXTENSION, disabilityDeterminationProblems } from './cobra-periods.ts';
import { COBRA_LINES, EMPLOYEE_IS_QUALIFIED_BENEFICIARY, groupHealthLost, qualifyingEventDate, qualifyingEventOf, type CoverageHeld } from './cobra-rules.ts';
import * as repository from './cobra-event.repository.ts';
import type { CobraEventResponse, DisabilityDeterminationBody, ListCobraEventsQuery } from './cobra-event.schemas.ts';
import type { CobraEventLossRow, CobraEventRow } from './cobra-event.table.ts';

/** What an approval knows of the coverage it changes: the member's coverage before and after, line by line. */
export interface CoverageChange {
  enrollment: Pick<
    EnrollmentRow,
    'id' | 'provider_id' | 'employer_id' | 'member_id' | 'reason' | 'change_date' | 'effective_start' | 'medicare_entitled_dependent_id'
  >;
  /** Every entry of coverage in force that the enrollment replaces (several per line allowed). */
  before: readonly CoverageHeld[];
  /** Every entry the enrollment elects (several per line allowed). */
  after: readonly CoverageHeld[];
  /** The first day of the new coverage: the replaced coverage ends the day before. */
  firstDayWithout: string;
  /** A member's termination: the member's termination_reason (null when none was given), which decides the event (cobra-rules.ts). */
  terminationReason?: TerminationReason | null;
}

/** What approval needs from this module, inside its own transaction: the events to record with its own. */
export interface QualifyingEventRecorder {
  recordCoverageLoss(trx: Transaction<Database>, change: CoverageChange): Promise<NewEvent[]>;
  /** Withdraws the standing events the enrollments recorded, whose coverage `by` cancelled before it began. */
  withdrawEventsOf(trx: Transaction<Database>, enrollmentIds: readonly string[], by: string): Promise<NewEvent[]>;
}

type CobraLine = CobraEventResponse['lines_of_coverage'][number];

export function toCobraEventResponse(row: CobraEventRow, losses: readonly CobraEventLossRow[]): CobraEventResponse {
  const own =
    row.withdrawn_losses === null ? losses.filter((loss) => loss.cobra_event_id === row.id) : (JSON.parse(row.withdrawn_losses) as CobraEventLossRow[]);
  const byLine = COBRA_LINES.flatMap((line) => {
    const ofLine = own.filter((loss) => loss.line_of_coverage === line);
    if (ofLine.length === 0) return [];
    return [
      {
        line_of_coverage: line as CobraLine,
        member_lost_coverage: ofLine.some((loss) => loss.person_id === row.member_id),
        dependents: ofLine.filter((loss) => loss.person_id !== row.member_id).map((loss) => loss.person_id),
      },
    ];
  });
  const memberLost = byLine.some((line) => line.member_lost_coverage);
  const dependents = [...new Set(byLine.flatMap((line) => line.dependents))];
  return {
    id: row.id,
    member: row.member_id,
    employer: row.employer_id,
    enrollment: row.enrollment_id,
    event_type: row.event_type,
    event_date: row.event_date,
    coverage_lost_date: row.coverage_lost_date,
    lines_of_coverage: byLine.map((line) => line.line_of_coverage),
    member_lost_coverage: memberLost,
    dependents,
    losses: byLine,
    qualified_beneficiaries: [...(memberLost && EMPLOYEE_IS_QUALIFIED_BENEFICIARY[row.event_type] ? [row.member_id] : []), ...dependents],
    maximum_coverage_months: row.maximum_coverage_months,
    coverage_period_end: row.coverage_period_end,
    disability_determination:
      row.disability_person_id === null || row.disabled_on === null || row.disability_determined_on === null || row.disability_recorded_at === null
        ? null
        : {
            person: row.disability_person_id,
            disabled_on: row.disabled_on,
            determined_on: row.disability_determined_on,
            recorded_at: row.disability_recorded_at,
          },
    created_at: row.created_at,
    withdrawn_at: row.withdrawn_at,
    withdrawn_by_enrollment: row.withdrawn_by_enrollment_id,
  };
}

/**
 * COBRA qualifying events (29 U.S.C. 1163): recorded by approvals that end group health coverage for a reason
 * the rules table maps to one, read through GET /cobra_events. Each loss of a line by a person is recorded
 * once per event of the member (type and date) and day of loss, by its primary key, in the transaction of the
 * approval.
 */
export class CobraEventService implements QualifyingEventRecorder {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async getCobraEvent(scope: Scope, id: string): Promise<CobraEventResponse> {
    const row = await repository.findCobraEventById(this.#db, scope, id);
    if (!row) throw new NotFound('COBRA event');
    return toCobraEventResponse(row, await repository.findLossesOf(this.#db, [row.id]));
  }

  async listCobraEvents(scope: Scope, filter: Omit<ListCobraEventsQuery, 'cursor' | 'page_size'>, page: PageRequest): Promise<Page<CobraEventResponse>> {
    const rows = await repository.listCobraEvents(
      this.#db,
      scope,
      {
        employerId: filter.employer,
        memberId: filter.member,
        createdAfter: filter.created_after === undefined ? undefined : canonicalTimestamp(filter.created_after),
      },
      page,
    );
    const losses = await repository.findLossesOf(
      this.#db,
      rows.results.map((row) => row.id),
    );
    return mapPage(rows, (row) => toCobraEventResponse(row, losses));
  }

  /**
   * Records the qualifying event of an approval, if it is one: the enrollment's reason maps to an event and a
   * qualified beneficiary of it loses group health coverage. Only losses not yet recorded for the same event
   * go in; when none is new, nothing is recorded. Returns `cobra_event.created` for the caller to record.
   */
  async recordCoverageLoss(trx: Transaction<Database>, change: CoverageChange): Promise<NewEvent[]> {
    const { enrollment, firstDayWithout } = change;
    const losses = groupHealthLost(change.before, change.after, firstDayWithout);
    const rule = qualifyingEventOf(enrollment.reason, losses, {
      medicareEntitledDependentId: enrollment.medicare_entitled_dependent_id,
      ...(change.terminationReason === undefined ? {} : { terminationReason: change.terminationReason }),
    });
    if (!rule) return [];
    const eventDate = qualifyingEventDate({ changeDate: enrollment.change_date, effectiveStart: enrollment.effective_start }, firstDayWithout);
    const period = coveragePeriodOf(rule.eventType, eventDate);
    const row: CobraEventRow = {
      id: newId('cobra_event'),
      provider_id: enrollment.provider_id,
      employer_id: enrollment.employer_id,
      member_id: enrollment.member_id,
      enrollment_id: enrollment.id,
      event_type: rule.eventType,
      event_date: eventDate,
      coverage_lost_date: firstDayWithout,
      maximum_coverage_months: period.months,
      coverage_period_end: period.end,
      disability_person_id: null,
      disabled_on: null,
      disability_determined_on: null,
      disability_recorded_at: null,
      created_at: this.#clock.now().toISOString(),
      withdrawn_at: null,
      withdrawn_by_enrollment_id: null,
      withdrawn_losses: null,
    };
    const lossRows = losses
      .flatMap((loss) =>
        [...(loss.memberLost ? [enrollment.member_id] : []), ...loss.dependentIds].map((personId) => ({ line: loss.lineOfCoverage, personId })),
      )
      .map(({ line, personId }, position): CobraEventLossRow => ({
        cobra_event_id: row.id,
        member_id: row.member_id,
        event_type: row.event_type,
        event_date: row.event_date,
        coverage_lost_date: row.coverage_lost_date,
        line_of_coverage: line,
        person_id: personId,
        position,
      }));
    // The event goes in first, so its losses can reference it; if none of them is new, it is taken back.
    await repository.insertCobraEvent(trx, row);
    const inserted = await repository.insertNewLosses(trx, lossRows);
    if (inserted.length === 0) {
      await repository.deleteCobraEvent(trx, row.id);
      return [];
    }
    return [eventOf('cobra_event', 'created', row)];
  }

  /**
   * Withdraws the standing events recorded by `enrollmentIds`, whose coverage the change of enrollment `by`
   * cancelled before it began: the losses they recorded were that coverage's change, which no longer happens (a
   * dependent's age-out from a day a retroactive death or termination had already ended the coverage). The
   * change that cancelled it records its own losses (recordCoverageLoss). Each event stays, marked withdrawn, its
   * losses kept on it and taken out of the record of losses (so the same loss recorded again is news). Returns
   * `cobra_event.updated` of each.
   */
  async withdrawEventsOf(trx: Transaction<Database>, enrollmentIds: readonly string[], by: string): Promise<NewEvent[]> {
    if (enrollmentIds.length === 0) return [];
    const standing = await repository.findStandingEventsOf(trx, enrollmentIds);
    if (standing.length === 0) return [];
    const losses = Map.groupBy(
      await repository.findLossesOf(
        trx,
        standing.map((row) => row.id),
      ),
      (loss) => loss.cobra_event_id,
    );
    const now = this.#clock.now().toISOString();
    const events: NewEvent[] = [];
    for (const row of standing) {
      const withdrawn = await repository.withdrawCobraEvent(trx, row.id, {
        withdrawn_at: now,
        withdrawn_by_enrollment_id: by,
        withdrawn_losses: JSON.stringify(losses.get(row.id) ?? []),
      });
      if (withdrawn) events.push(eventOf('cobra_event', 'updated', withdrawn));
    }
    return events;
  }

  /**
   * Records a Social Security disability determination of a qualified beneficiary of the event, extending its 18
   * months to 29 (29 U.S.C. 1162(2)(A)(viii); cobra-periods.ts): 409 for an event without 18 months to extend,
   * 400 on the fields outside the statutory windows. The same determination again answers the event unchanged;
   * another one after it is a 409 (a determination is recorded once). Records `cobra_event.updated`.
   */
  async recordDisabilityDetermination(scope: Scope, id: string, body: DisabilityDeterminationBody): Promise<CobraEventResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await repository.findCobraEventById(trx, scope, id);
      if (!row) throw new NotFound('COBRA event');
      if (!DISABILITY_EXTENSION.eventTypes.includes(row.event_type)) {
        throw new InvalidState(
          `A ${row.event_type} event has 36 months of coverage: only termination and reduction_of_hours events are extended by a disability determination.`,
        );
      }
      const losses = await repository.findLossesOf(trx, [row.id]);
      const same = row.disability_person_id === body.person && row.disabled_on === body.disabled_on && row.disability_determined_on === body.determined_on;
      if (row.disability_recorded_at !== null) {
        if (!same) throw new InvalidState(`The event was already extended by the disability determination of ${row.disability_determined_on}.`);
        await this.#changes.commit(trx, {});
        return toCobraEventResponse(row, losses);
      }
      if (!toCobraEventResponse(row, losses).qualified_beneficiaries.includes(body.person)) {
        throw validationFailed(['person'], 'The person must be a qualified beneficiary of the event: the member or a dependent who lost coverage by it.');
      }
      const now = this.#clock.now();
      const problems = disabilityDeterminationProblems(
        { eventType: row.event_type, eventDate: row.event_date, coverageLostDate: row.coverage_lost_date },
        { disabledOn: body.disabled_on, determinedOn: body.determined_on },
        toDateString(now),
      );
      if (problems.length > 0) throw new ValidationFailed(problems);
      const period = coveragePeriodOf(row.event_type, row.event_date, true);
      const updated = await repository.recordDisabilityExtension(trx, row.id, {
        maximum_coverage_months: period.months,
        coverage_period_end: period.end,
        disability_person_id: body.person,
        disabled_on: body.disabled_on,
        disability_determined_on: body.determined_on,
        disability_recorded_at: now.toISOString(),
      });
      // A concurrent request recorded one first: answered as if it came second.
      if (!updated) throw new InvalidState('The event was extended by a disability determination at the same time; read it again.');
      await this.#changes.commit(trx, { events: [eventOf('cobra_event', 'updated', updated)] });
      return toCobraEventResponse(updated, losses);
    });
  }
}
