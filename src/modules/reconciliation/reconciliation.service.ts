import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { toDateString } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import { fromCents } from '../../shared/money.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { entryOf } from '../carrier-ledger/carrier-ledger.ts';
import { believedOn } from '../carrier-ledger/carrier-ledger-rules.ts';
import { findGroupLinesOn } from '../coverage/group-coverage.repository.ts';
import { findGroupById } from '../groups/group.repository.ts';
import * as repository from './reconciliation.repository.ts';
import { discrepanciesOf, toldEnd, type LineCoverage } from './reconciliation-rules.ts';
import type { DiscrepancyResponse, ReconciliationResponse } from './reconciliation.schemas.ts';

const DAY_MS = 86_400_000;

function side(coverage: LineCoverage | undefined): DiscrepancyResponse['ours'] {
  if (coverage === undefined) return null;
  return {
    plan: coverage.planId,
    enrolled_plan: coverage.enrolledPlanId,
    effective_start: coverage.start,
    effective_end: coverage.end,
    dependents: [...coverage.dependentIds],
    volume: coverage.volumeCents === null ? null : fromCents(coverage.volumeCents),
  };
}

/**
 * GET /groups/{id}/reconciliation (docs/decisions.md "Reconciliation"): per member and line, where what the
 * carrier group believes on a day (what reached it: carrier-ledger.ts) differs from the coverage in force that
 * day, with the changes still on their way. Reads the whole group in three queries and compares in memory.
 */
export class ReconciliationService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async reconcileGroup(scope: Scope, groupId: string, query: { date?: string | undefined; member?: string | undefined }): Promise<ReconciliationResponse> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    const now = this.#clock.now();
    const date = query.date ?? toDateString(now);
    const key = (memberId: string, line: string) => `${memberId}|${line}`;

    const firstPerLine = await findGroupLinesOn(this.#db, group.provider_id, group.id, date, query.member);
    const ours = new Map<string, LineCoverage & { memberId: string }>(
      firstPerLine.map((row) => [
        key(row.member_id, row.line_of_coverage),
        {
          memberId: row.member_id,
          lineOfCoverage: row.line_of_coverage,
          planId: row.plan_id,
          enrolledPlanId: row.id,
          start: row.effective_start,
          end: toldEnd(row.effective_end, row.plan_end),
          dependentIds: row.dependent_ids,
          volumeCents: row.volume_cents,
        },
      ]),
    );

    const ledgerRows = await repository.findGroupLedgerRows(this.#db, group.provider_id, group.id, query.member);
    const told = Map.groupBy(
      ledgerRows.filter((row) => row.told_at !== null),
      (row) => key(row.member_id, row.line_of_coverage),
    );
    const pending = Map.groupBy(
      ledgerRows.filter((row) => row.told_at === null && row.benefit_change_id !== null),
      (row) => key(row.member_id, row.line_of_coverage),
    );
    const planEnds = await repository.findPlanEnds(
      this.#db,
      group.provider_id,
      ledgerRows.map((row) => row.plan_id),
    );
    const carrier = new Map<string, LineCoverage & { memberId: string }>();
    for (const [lineKey, rows] of told) {
      const entry = believedOn(rows.map(entryOf), date);
      if (entry === undefined) continue;
      carrier.set(lineKey, {
        memberId: rows[0]!.member_id,
        lineOfCoverage: entry.lineOfCoverage,
        planId: entry.item.planId,
        enrolledPlanId: entry.item.enrolledPlanId,
        start: entry.start,
        end: entry.end === null ? null : toldEnd(entry.end, planEnds.get(entry.item.planId) ?? entry.end),
        dependentIds: entry.item.dependentIds,
        volumeCents: entry.item.volumeCents,
      });
    }

    const results: DiscrepancyResponse[] = [];
    for (const lineKey of [...new Set([...ours.keys(), ...carrier.keys()])].sort()) {
      const mine = ours.get(lineKey);
      const theirs = carrier.get(lineKey);
      const kinds = discrepanciesOf(mine, theirs);
      if (kinds.length === 0) continue;
      const waiting = pending.get(lineKey) ?? [];
      const since = waiting[0]?.created_at ?? null;
      results.push({
        member: (mine ?? theirs)!.memberId,
        line_of_coverage: (mine ?? theirs)!.lineOfCoverage,
        discrepancies: kinds,
        ours: side(mine),
        carrier: side(theirs),
        pending_benefit_changes: waiting.map((row) => row.benefit_change_id!),
        pending_since: since,
        pending_age_days: since === null ? null : Math.floor((now.getTime() - Date.parse(since)) / DAY_MS),
      });
    }
    return { object: 'reconciliation', group: group.id, date, results };
  }
}
