import { insertRows } from '../../db/bulk-insert.ts';
import type { Executor, Transaction } from '../../db/database.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { inScope } from '../../db/scope.ts';
import type { Database } from '../../db/schema.ts';
import { batches } from '../../shared/batches.ts';
import type { Clock } from '../../shared/clock.ts';
import { InvalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { compareCodeUnits } from '../../shared/text.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { NewAlert } from '../alerts/alert.service.ts';
import type { NewEvent } from '../events/event-log.ts';
import type { GroupRow } from '../groups/group.table.ts';
import type { EdiLeftOutRow } from './edi.table.ts';

/**
 * Members an 834 build could not write, reported once per member and reason (docs/decisions.md "Carrier EDI",
 * left out): the `edi_left_out` table holds what was last reported for each group; a build reports only what
 * is new (in the file's `left_out` and an `edi_left_out.created` event) and clears what no longer holds: a
 * member written into a file, or left out now for another reason (`edi_left_out.deleted`).
 */

/** A member the build left out and why (the writer's reason: element and rule, never the value). */
export interface LeftOutEntry {
  member: string;
  reason: string;
}

/** What a group's builds last reported, read under the group's lock before a build. */
export class LeftOutReports {
  readonly #byMember: Map<string, EdiLeftOutRow[]>;

  constructor(rows: readonly EdiLeftOutRow[]) {
    this.#byMember = Map.groupBy(rows, (row) => row.member_id);
  }

  static async load(trx: Transaction<Database>, groupId: string): Promise<LeftOutReports> {
    return new LeftOutReports(await trx.selectFrom('edi_left_out').selectAll().where('group_id', '=', groupId).orderBy('id').execute());
  }

  /** Whether the member has a report to clear once written. */
  has(memberId: string): boolean {
    return this.#byMember.has(memberId);
  }

  /**
   * Records the outcome of a build: `leftOut` (member to reason) as it is now, `written` the members that went
   * into the file. New entries are stored and get their event; reports of written members, and of left-out
   * members for a reason that no longer holds, are deleted with theirs. Returns the new entries, in member order,
   * and the events, for the caller to commit.
   */
  async record(
    trx: Transaction<Database>,
    clock: Clock,
    group: GroupRow,
    leftOut: ReadonlyMap<string, string>,
    written: Iterable<string>,
    fileId: string | null,
  ): Promise<{ entries: LeftOutEntry[]; events: NewEvent[]; alerts: NewAlert[] }> {
    const now = clock.now().toISOString();
    const created: EdiLeftOutRow[] = [];
    const deleted: EdiLeftOutRow[] = [];
    for (const [member, reason] of [...leftOut].sort(([a], [b]) => compareCodeUnits(a, b))) {
      const reported = this.#byMember.get(member) ?? [];
      deleted.push(...reported.filter((row) => row.reason !== reason));
      if (reported.some((row) => row.reason === reason)) continue;
      created.push({
        id: newId('edi_left_out'),
        provider_id: group.provider_id,
        employer_id: group.employer_id,
        group_id: group.id,
        member_id: member,
        reason,
        edi_file_id: fileId,
        created_at: now,
      });
    }
    for (const member of written) deleted.push(...(this.#byMember.get(member) ?? []));
    // A whole group may be left out (a full file of bad rows): in slices under the databases' parameter limits.
    for (const slice of batches(deleted, 1_000)) {
      await trx
        .deleteFrom('edi_left_out')
        .where(
          'id',
          'in',
          slice.map((row) => row.id),
        )
        .execute();
    }
    await insertRows(trx, 'edi_left_out', created);
    return {
      entries: created.map((row) => ({ member: row.member_id, reason: row.reason })),
      events: [...deleted.map((row) => eventOf('edi_left_out', 'deleted', row)), ...created.map((row) => eventOf('edi_left_out', 'created', row))],
      alerts: created.map(leftOutAlert),
    };
  }
}

/** The admin alert of a new report (docs/decisions.md "Alerts"): once per report, so a member left out again later is alerted again. */
function leftOutAlert(row: EdiLeftOutRow): NewAlert {
  return {
    providerId: row.provider_id,
    employerId: row.employer_id,
    audience: 'admin',
    kind: 'edi_left_out',
    relatedObjectType: 'member',
    relatedObjectId: row.member_id,
    memberId: row.member_id,
    message:
      `Member ${row.member_id} was left out of the 834 of group ${row.group_id} (${row.reason}). Their benefit changes wait; ` +
      'correct the member (PATCH /members/{id}) and they go in the next file (GET /edi_left_out lists who is left out).',
    payload: { group: row.group_id, member: row.member_id, edi_left_out: row.id, edi_file: row.edi_file_id },
    key: `edi_left_out:${row.id}`,
  };
}

/**
 * A change build that could write no one (every member with changes waiting is left out): a 409 that says how
 * many and why, by reason, and where to read who, the same words whenever the same members wait for the same
 * reasons. Never member data: reasons name the element and the rule only.
 */
export function nothingWritten(leftOut: ReadonlyMap<string, string>): InvalidState {
  const counts = new Map<string, number>();
  for (const reason of leftOut.values()) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const reasons = [...counts]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([reason, count]) => `${count} × ${reason}`)
    .join('; ');
  return new InvalidState(
    `Nothing could be written: every member with changes waiting (${leftOut.size}) is left out of the 834 (${reasons}). ` +
      'Each member and reason is reported once (event edi_left_out.created; GET /edi_left_out?group= lists them); ' +
      'their changes go in the first file after the member is corrected.',
  );
}

/** Raised inside a change build that wrote no one, so that its transaction rolls back and the caller records the reports. */
export class NothingWrittenError extends Error {
  override name = 'NothingWrittenError';
  readonly leftOut: ReadonlyMap<string, string>;
  /** The build's other alerts (changes whose line has no code), recorded with the reports. */
  readonly alerts: readonly NewAlert[];
  constructor(leftOut: ReadonlyMap<string, string>, alerts: readonly NewAlert[] = []) {
    super('nothing could be written');
    this.leftOut = leftOut;
    this.alerts = alerts;
  }
}

/** The reports currently standing, newest first; for the admin listing. */
export function listLeftOut(
  db: Executor,
  scope: Scope,
  filter: { groupId?: string | undefined; memberId?: string | undefined },
  page: PageRequest,
): Promise<Page<EdiLeftOutRow>> {
  let query = inScope(db.selectFrom('edi_left_out').selectAll(), scope, 'edi_left_out', 'employer_id');
  if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  return paginate(query, page);
}
