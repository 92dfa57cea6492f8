/**
 * The plan-year simulation's told_once_in_order invariant (docs/architecture.md "The plan-year simulation:
 * invariants"), read straight from benefit_changes, edi_file_changes and edi_files. No vitest.
 *
 * The rule, as checked:
 * - Exactly once: a benefit change is in at most one accepted 834 (accepted or accepted_with_errors), and one
 *   in an accepted file is `completed` (or `rejected`, refused by the carrier after). A change completed with
 *   no accepted file was completed by hand (or by the carrier API): once, as `completed_at` is one value.
 * - In order: "the order of its effect" is the order the changes of one member's line at one carrier group
 *   were recorded (ids are time-ordered; each change is measured against the carrier's picture including the
 *   ones recorded before it, carrier-ledger.ts, so it only makes sense told after them). So a change is never
 *   told while an earlier one of the same group, member and line waits (not yet sent or completed, and not
 *   refused), never in an earlier accepted file than an earlier change, and (API and manual groups) never
 *   completed at an earlier time than an earlier change. `no_change` changes tell nothing and are left out.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import type { Violation } from './invariants.ts';

const ACCEPTED = new Set(['accepted', 'accepted_with_errors']);

interface ChangeFact {
  id: string;
  memberId: string;
  groupId: string;
  line: string;
  status: string;
  deliveryState: string;
  completedAt: string | null;
  /** Accepted 834s that carried it, oldest first. */
  acceptedFiles: string[];
}

export async function loadChangeFacts(db: Kysely<Database>, providerId: string, memberIds: readonly string[]): Promise<ChangeFact[]> {
  const rows = await db
    .selectFrom('benefit_changes')
    .select(['id', 'member_id', 'group_id', 'line_of_coverage', 'status', 'delivery_state', 'completed_at'])
    .where('provider_id', '=', providerId)
    .where('member_id', 'in', memberIds)
    .execute();
  const files = await db
    .selectFrom('edi_file_changes')
    .innerJoin('benefit_changes', 'benefit_changes.id', 'edi_file_changes.benefit_change_id')
    .innerJoin('edi_files', 'edi_files.id', 'edi_file_changes.edi_file_id')
    .select(['edi_file_changes.benefit_change_id', 'edi_file_changes.edi_file_id'])
    .where('benefit_changes.provider_id', '=', providerId)
    .where('benefit_changes.member_id', 'in', memberIds)
    .where('edi_files.status', 'in', [...ACCEPTED] as ('accepted' | 'accepted_with_errors')[])
    .execute();
  const accepted = Map.groupBy(files, (row) => row.benefit_change_id);
  return rows.map((row) => ({
    id: row.id,
    memberId: row.member_id,
    groupId: row.group_id,
    line: row.line_of_coverage,
    status: row.status,
    deliveryState: row.delivery_state,
    completedAt: row.completed_at,
    acceptedFiles: (accepted.get(row.id) ?? []).map((file) => file.edi_file_id).sort(compareIds),
  }));
}

/** Ids by code unit (time-ordered ids: the order they were made). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const TOLD = new Set(['sent', 'completed']);

export function checkToldOnceInOrder(day: string, changes: readonly ChangeFact[]): Violation[] {
  const violations: Violation[] = [];
  const violation = (detail: string) => violations.push({ day, invariant: 'told_once_in_order', detail });
  for (const change of changes) {
    if (change.acceptedFiles.length > 1)
      violation(`benefit change ${change.id} was told in ${change.acceptedFiles.length} accepted files: ${change.acceptedFiles.join(', ')}`);
    if (change.acceptedFiles.length > 0 && change.deliveryState !== 'completed' && change.deliveryState !== 'rejected')
      violation(`benefit change ${change.id} is in accepted file ${change.acceptedFiles[0]} but ${change.deliveryState}`);
  }
  const lines = Map.groupBy(
    changes.filter((change) => change.status !== 'no_change'),
    (change) => `${change.groupId}|${change.memberId}|${change.line}`,
  );
  for (const list of lines.values()) {
    list.sort((a, b) => compareIds(a.id, b.id));
    let waiting: ChangeFact | undefined;
    let latestFile: { change: ChangeFact; file: string } | undefined;
    let latestCompletion: ChangeFact | undefined;
    for (const change of list) {
      const told = TOLD.has(change.deliveryState);
      if (told && waiting)
        violation(
          `benefit change ${change.id} was told while ${waiting.id}, recorded before it for the same member and line, waits (${waiting.deliveryState})`,
        );
      const file = change.acceptedFiles[0];
      if (file !== undefined) {
        if (latestFile && compareIds(file, latestFile.file) < 0)
          violation(`benefit change ${change.id} was told in file ${file}, before ${latestFile.change.id} (recorded before it) in file ${latestFile.file}`);
        if (!latestFile || compareIds(file, latestFile.file) > 0) latestFile = { change, file };
      } else if (change.completedAt !== null) {
        if (latestCompletion && change.completedAt < latestCompletion.completedAt!)
          violation(
            `benefit change ${change.id} was completed at ${change.completedAt}, before ${latestCompletion.id} (recorded before it) at ${latestCompletion.completedAt}`,
          );
        if (!latestCompletion || change.completedAt > latestCompletion.completedAt!) latestCompletion = change;
      }
      if (!told && change.deliveryState !== 'rejected' && waiting === undefined) waiting = change;
    }
  }
  return violations;
}
