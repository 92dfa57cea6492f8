/**
 * A rehire's reinstatement (docs/decisions.md "Employment history", Rehires): an employee rehired within 30 days
 * of the termination (members/rehire-rules.ts `reinstated`) gets back, from the rehire date to the end it had
 * before, every coverage the termination ended, as the engine's continuation (coverage-continuation.ts): a `qle`
 * enrollment of the service with reason `rehire`, priced again and approved, its carriers told through the
 * carrier ledger like any approval.
 */
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates } from '../../shared/dates.ts';
import { findTerminationItems, findTerminationsInEffect } from '../coverage/coverage.repository.ts';
import { findCoveredLinesOn } from '../coverage/window-coverage.repository.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { CoverageContinuation } from './coverage-continuation.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import * as repository from './enrollment.repository.ts';
import { storedVolumes } from './stored-elections.ts';

export class RehireReinstatement {
  readonly #clock: Clock;
  readonly #continuation: CoverageContinuation;

  constructor(options: { clock: Clock; continuation: CoverageContinuation }) {
    this.#clock = options.clock;
    this.#continuation = options.continuation;
  }

  /**
   * Reinstates what the member's termination on `terminationDate` ended, from `rehireDate`: each enrolled plan
   * whose end before the termination (`previous_end`) reaches the rehire date, on a line the member has no
   * coverage of on that day (a termination undone, or an election made since, leaves nothing to reinstate).
   * The caller holds the member's lock and wakes the job worker after commit. Returns whether it reinstated
   * anything.
   */
  async reinstateIn(trx: Transaction<Database>, member: MemberRow, terminationDate: string, rehireDate: string): Promise<boolean> {
    const termination = (await findTerminationsInEffect(trx, member.id, 'termination')).filter((row) => row.termination_date === terminationDate).at(-1);
    if (!termination) return false;
    const items = await findTerminationItems(trx, termination.id);
    const covered = new Set((await findCoveredLinesOn(trx, member.id, rehireDate)).map((line) => line.line_of_coverage));
    const reinstated = items.filter(
      (item) => (item.previous_end === null || compareDates(item.previous_end, rehireDate) >= 0) && !covered.has(item.line_of_coverage),
    );
    if (reinstated.length === 0) return false;
    // In the termination's order (the member's), each with the end it had before.
    const byId = new Map(
      (
        await repository.findEnrolledPlansByIds(
          trx,
          reinstated.map((item) => item.id),
        )
      ).map((plan) => [plan.id, plan]),
    );
    const plans = reinstated.map((item) => ({ ...byId.get(item.id)!, effective_end: item.previous_end }));
    const ids = plans.map((plan) => plan.id);
    const stored: repository.Elections = {
      plans,
      dependents: await repository.findEnrolledDependentsOf(trx, ids),
      waivers: [],
      designations: await repository.findDesignationsOf(trx, ids),
      lines: new Map(),
    };
    const row = serviceEnrollmentRow(member, {
      status: 'pending',
      reason: 'rehire',
      changeDate: rehireDate,
      effectiveStart: rehireDate,
      now: this.#clock.now().toISOString(),
    });
    await this.#continuation.continueCoverageIn(
      trx,
      row,
      member,
      stored,
      plans,
      plans.map((plan) => storedVolumes(stored, plan)),
    );
    return true;
  }
}
