import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { canonicalTimestamp } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewEvent } from '../events/event-log.ts';
import { COBRA_LINES, groupHealthLost, qualifyingEventDate, qualifyingEventOf, type CoverageHeld } from './cobra-rules.ts';
import * as repository from './cobra-event.repository.ts';
import type { CobraEventResponse, ListCobraEventsQuery } from './cobra-event.schemas.ts';
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
}

/** What approval needs from this module, inside its own transaction: the events to record with its own. */
export interface QualifyingEventRecorder {
  recordCoverageLoss(trx: Transaction<Database>, change: CoverageChange): Promise<NewEvent[]>;
}

type CobraLine = CobraEventResponse['lines_of_coverage'][number];

export function toCobraEventResponse(row: CobraEventRow, losses: readonly CobraEventLossRow[]): CobraEventResponse {
  const own = losses.filter((loss) => loss.cobra_event_id === row.id);
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
  return {
    id: row.id,
    member: row.member_id,
    employer: row.employer_id,
    enrollment: row.enrollment_id,
    event_type: row.event_type,
    event_date: row.event_date,
    coverage_lost_date: row.coverage_lost_date,
    lines_of_coverage: byLine.map((line) => line.line_of_coverage),
    member_lost_coverage: byLine.some((line) => line.member_lost_coverage),
    dependents: [...new Set(byLine.flatMap((line) => line.dependents))],
    losses: byLine,
    created_at: row.created_at,
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

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
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
    const losses = groupHealthLost(change.before, change.after);
    const rule = qualifyingEventOf(enrollment.reason, losses, { medicareEntitledDependentId: enrollment.medicare_entitled_dependent_id });
    if (!rule) return [];
    const row: CobraEventRow = {
      id: newId('cobra_event'),
      provider_id: enrollment.provider_id,
      employer_id: enrollment.employer_id,
      member_id: enrollment.member_id,
      enrollment_id: enrollment.id,
      event_type: rule.eventType,
      event_date: qualifyingEventDate({ changeDate: enrollment.change_date, effectiveStart: enrollment.effective_start }, firstDayWithout),
      coverage_lost_date: firstDayWithout,
      created_at: this.#clock.now().toISOString(),
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
}
