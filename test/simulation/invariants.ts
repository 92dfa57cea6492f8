/**
 * The plan-year simulation's invariants (issue "A plan year in a day"; docs/architecture.md "The plan-year
 * simulation: invariants"), checked after each simulated day once its sweep, 834 files and their 999s are done.
 * Plain TypeScript without vitest: the simulation test and the bench (plain Node, type stripping) both run it.
 *
 * Each day checks the members touched since the previous check (new benefit changes, enrollments, COBRA
 * events, terminations, files, completions): a change to someone's coverage always leaves one of those rows.
 * What time alone changes (a carrier's picture of a day it was told about long ago) is seen by a full check:
 * the first day, every `fullEvery`-th day, or every day with `full: true`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import type { ApiClient } from '../helpers/test-app.ts';
import { checkX12 } from '../helpers/x12-check.ts';
import { checkCobra } from './cobra-invariants.ts';
import { checkGaps, checkSingleCoverage, chunks, loadCoverageFacts } from './coverage-invariants.ts';
import { checkToldOnceInOrder, loadChangeFacts } from './delivery-invariants.ts';

export type InvariantName = 'single_coverage' | 'no_unexplained_gap' | 'ledger_matches_truth' | 'told_once_in_order' | 'cobra_event_per_loss' | 'x12_valid';

/** One broken invariant on one day. `detail` names records by id, never personal data. */
export interface Violation {
  day: string;
  invariant: InvariantName;
  detail: string;
}

export interface InvariantCheckerOptions {
  db: Kysely<Database>;
  /** An admin client of the provider (reconciliation is read through the API). */
  api: Pick<ApiClient, 'get'>;
  providerId: string;
  /** Check every member and reconcile every group whole each day (slow at scale; the default checks what changed). */
  full?: boolean;
  /** With incremental checks, a full check every this many days as well (default 30; the first day is always full). */
  fullEvery?: number;
  /** Members per batch of reads (default 500). */
  batchSize?: number;
  /** Incremental days: a group with more touched members than this is reconciled whole, else member by member (default 25). */
  wholeGroupAbove?: number;
  /** Invariants not to check (a bench measuring the rest); their reads are skipped too. */
  skip?: readonly InvariantName[];
}

export interface InvariantChecker {
  checkDay(day: string, files: { id: string; content: string }[]): Promise<Violation[]>;
}

/** The newest id of each table whose new rows mean a member changed: what the next incremental check reads after. */
interface Watermarks {
  benefitChange: string;
  enrollment: string;
  cobraEvent: string;
  termination: string;
  ediFile: string;
  /** Moves without new rows: changes completed (by a 999, the carrier API or a person), files acknowledged, refusals. */
  completed: TimeMark;
  acknowledged: TimeMark;
  refused: TimeMark;
}

/** The latest time in a column and the rows that have it (the test clock stands still through a day: more may come at the same time). */
interface TimeMark {
  at: string | null;
  ids: Set<string>;
}

export function createInvariantChecker(options: InvariantCheckerOptions): InvariantChecker {
  const { db, api, providerId } = options;
  const batchSize = options.batchSize ?? 500;
  const fullEvery = options.fullEvery ?? 30;
  let checks = 0;
  let marks: Watermarks | undefined;

  return {
    async checkDay(day, files) {
      const full = options.full === true || marks === undefined || checks % fullEvery === 0;
      checks += 1;
      let members: string[];
      if (full) {
        marks = await watermarks(db, providerId);
        members = await allMembers(db, providerId);
      } else ({ members, marks } = await touchedMembers(db, providerId, marks!));
      const skip = new Set(options.skip ?? []);
      const violations: Violation[] = [];
      const coverageChecks = !skip.has('single_coverage') || !skip.has('no_unexplained_gap') || !skip.has('cobra_event_per_loss');
      for (const batch of chunks(members, batchSize)) {
        if (coverageChecks) {
          const facts = await loadCoverageFacts(db, providerId, batch);
          const { violations: overlaps, ends } = checkSingleCoverage(day, facts);
          violations.push(...overlaps, ...checkGaps(day, facts, ends), ...checkCobra(day, facts, ends));
        }
        if (!skip.has('told_once_in_order')) violations.push(...checkToldOnceInOrder(day, await loadChangeFacts(db, providerId, batch)));
      }
      if (!skip.has('ledger_matches_truth'))
        violations.push(
          ...(await checkLedger({ db, api, providerId, day, members: full ? undefined : members, wholeGroupAbove: options.wholeGroupAbove ?? 25 })),
        );
      if (!skip.has('x12_valid')) violations.push(...(await checkFiles(db, providerId, day, files)));
      return violations.filter((violation) => !skip.has(violation.invariant));
      return violations;
    },
  };
}

async function maxId(
  db: Kysely<Database>,
  table: 'benefit_changes' | 'enrollments' | 'cobra_events' | 'coverage_terminations' | 'edi_files',
  providerId: string,
) {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('id'))
    .where('provider_id', '=', providerId)
    .executeTakeFirst();
  return (row?.id as string | null | undefined) ?? '';
}

/** The marks of now, read once for a full check (the time marks read every row with a time: a full check's cost). */
async function watermarks(db: Kysely<Database>, providerId: string): Promise<Watermarks> {
  const none: TimeMark = { at: null, ids: new Set() };
  return {
    benefitChange: await maxId(db, 'benefit_changes', providerId),
    enrollment: await maxId(db, 'enrollments', providerId),
    cobraEvent: await maxId(db, 'cobra_events', providerId),
    termination: await maxId(db, 'coverage_terminations', providerId),
    ediFile: await maxId(db, 'edi_files', providerId),
    completed: nextMark(none, await changedSince(db, providerId, 'completed', none)),
    acknowledged: nextMark(none, await changedSince(db, providerId, 'acknowledged', none)),
    refused: nextMark(none, await changedSince(db, providerId, 'refused', none)),
  };
}

type TimeColumn = 'completed' | 'acknowledged' | 'refused';

/** Rows (an id, its member, the time) whose `column` is at or after the mark's time, but for those the mark has seen. */
async function changedSince(
  db: Kysely<Database>,
  providerId: string,
  column: TimeColumn,
  mark: TimeMark,
): Promise<{ id: string; member_id: string; at: string }[]> {
  const since = mark.at ?? '1970-01-01T00:00:00.000Z';
  let rows: { id: string; member_id: string; at: string | null }[];
  if (column === 'completed') {
    rows = await db
      .selectFrom('benefit_changes')
      .select(['id', 'member_id', 'completed_at as at'])
      .where('provider_id', '=', providerId)
      .where('completed_at', '>=', since)
      .execute();
  } else if (column === 'refused') {
    rows = await db
      .selectFrom('carrier_ledger')
      .select(['id', 'member_id', 'refused_at as at'])
      .where('provider_id', '=', providerId)
      .where('refused_at', '>=', since)
      .execute();
  } else {
    rows = await db
      .selectFrom('edi_files')
      .innerJoin('edi_file_changes', 'edi_file_changes.edi_file_id', 'edi_files.id')
      .innerJoin('benefit_changes', 'benefit_changes.id', 'edi_file_changes.benefit_change_id')
      .select(['benefit_changes.id', 'benefit_changes.member_id', 'edi_files.acknowledged_at as at'])
      .where('edi_files.provider_id', '=', providerId)
      .where('edi_files.acknowledged_at', '>=', since)
      .execute();
  }
  const timed = rows.filter((row): row is { id: string; member_id: string; at: string } => row.at !== null).map((row) => ({ ...row, at: String(row.at) }));
  // Rows at the mark's own time that the mark already saw were read then.
  return timed.filter((row) => !(row.at === mark.at && mark.ids.has(row.id)));
}

/** The mark after `rows` (read since `previous`): their latest time, with every row seen at it. */
function nextMark(previous: TimeMark, rows: readonly { id: string; at: string }[]): TimeMark {
  const at = rows.reduce<string | null>((latest, row) => (latest === null || row.at > latest ? row.at : latest), previous.at);
  const ids = new Set(at === previous.at ? previous.ids : []);
  for (const row of rows) if (row.at === at) ids.add(row.id);
  return { at, ids };
}

async function allMembers(db: Kysely<Database>, providerId: string): Promise<string[]> {
  const rows = await db.selectFrom('members').select('id').where('provider_id', '=', providerId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

/**
 * Members with a row made since `marks` (benefit changes, enrollments, COBRA events, terminations, changes in
 * files built since) or a change of theirs completed, acknowledged in a file or refused since.
 */
async function touchedMembers(db: Kysely<Database>, providerId: string, marks: Watermarks): Promise<{ members: string[]; marks: Watermarks }> {
  const ids = new Set<string>();
  const add = (rows: { member_id: string }[]) => rows.forEach((row) => ids.add(row.member_id));
  const newer = async (table: 'benefit_changes' | 'enrollments' | 'cobra_events' | 'coverage_terminations', after: string) => {
    const rows = await db.selectFrom(table).select(['id', 'member_id']).where('provider_id', '=', providerId).where('id', '>', after).execute();
    add(rows);
    return rows.reduce((latest, row) => (row.id > latest ? row.id : latest), after);
  };
  const next: Watermarks = { ...marks };
  next.benefitChange = await newer('benefit_changes', marks.benefitChange);
  next.enrollment = await newer('enrollments', marks.enrollment);
  next.cobraEvent = await newer('cobra_events', marks.cobraEvent);
  next.termination = await newer('coverage_terminations', marks.termination);
  const inNewFiles = await db
    .selectFrom('edi_file_changes')
    .innerJoin('benefit_changes', 'benefit_changes.id', 'edi_file_changes.benefit_change_id')
    .select(['benefit_changes.member_id', 'edi_file_changes.edi_file_id'])
    .where('benefit_changes.provider_id', '=', providerId)
    .where('edi_file_changes.edi_file_id', '>', marks.ediFile)
    .execute();
  add(inNewFiles);
  next.ediFile = inNewFiles.reduce((latest, row) => (row.edi_file_id > latest ? row.edi_file_id : latest), marks.ediFile);
  for (const column of ['completed', 'acknowledged', 'refused'] as const) {
    const rows = await changedSince(db, providerId, column, marks[column]);
    add(rows);
    next[column] = nextMark(marks[column], rows);
  }
  return { members: [...ids].sort(), marks: next };
}

/**
 * ledger_matches_truth: GET /groups/{id}/reconciliation on the day (docs/decisions.md "Reconciliation") lists
 * only differences that benefit changes still on their way explain (`pending_benefit_changes`); a difference
 * with none pending is a carrier ledger that no longer matches our truth. `members` limits it to those members
 * (each group whole when many of its members are in it); undefined: every group whole.
 */
async function checkLedger(input: {
  db: Kysely<Database>;
  api: Pick<ApiClient, 'get'>;
  providerId: string;
  day: string;
  members: readonly string[] | undefined;
  wholeGroupAbove: number;
}): Promise<Violation[]> {
  const { db, api, providerId, day, members } = input;
  const requests: string[] = [];
  if (members === undefined) {
    const groups = await db.selectFrom('carrier_groups').select('id').where('provider_id', '=', providerId).orderBy('id').execute();
    for (const group of groups) requests.push(`/groups/${group.id}/reconciliation?date=${day}`);
  } else {
    const pairs = new Map<string, Set<string>>();
    for (const batch of chunks(members, 500)) {
      const ledger = await db
        .selectFrom('carrier_ledger')
        .select(['group_id', 'member_id'])
        .where('provider_id', '=', providerId)
        .where('member_id', 'in', batch)
        .execute();
      const changes = await db
        .selectFrom('benefit_changes')
        .select(['group_id', 'member_id'])
        .where('provider_id', '=', providerId)
        .where('member_id', 'in', batch)
        .execute();
      for (const row of [...ledger, ...changes]) pairs.set(row.group_id, (pairs.get(row.group_id) ?? new Set()).add(row.member_id));
    }
    for (const [groupId, memberIds] of [...pairs].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (memberIds.size > input.wholeGroupAbove) requests.push(`/groups/${groupId}/reconciliation?date=${day}`);
      else for (const memberId of [...memberIds].sort()) requests.push(`/groups/${groupId}/reconciliation?date=${day}&member=${memberId}`);
    }
  }
  const violations: Violation[] = [];
  for (const path of requests) {
    const response = await api.get<{
      group: string;
      results: { member: string; line_of_coverage: string; discrepancies: string[]; pending_benefit_changes: string[] }[];
    }>(path);
    if (response.status !== 200) {
      violations.push({ day, invariant: 'ledger_matches_truth', detail: `${path.split('?')[0]} answered ${response.status}` });
      continue;
    }
    for (const result of response.body.results) {
      if (result.pending_benefit_changes.length > 0) continue;
      violations.push({
        day,
        invariant: 'ledger_matches_truth',
        detail: `group ${response.body.group}, member ${result.member}, ${result.line_of_coverage}: the carrier's ledger differs from our coverage (${result.discrepancies.join(', ')}) with no change pending`,
      });
    }
  }
  return violations;
}

/** x12_valid: every 834 of the day passes the third-party check (x12-check.ts) against its edi_files record. */
async function checkFiles(db: Kysely<Database>, providerId: string, day: string, files: readonly { id: string; content: string }[]): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const file of files) {
    const record = await db.selectFrom('edi_files').selectAll().where('provider_id', '=', providerId).where('id', '=', file.id).executeTakeFirst();
    if (!record) {
      violations.push({ day, invariant: 'x12_valid', detail: `file ${file.id} has no edi_files record` });
      continue;
    }
    const profile = await db.selectFrom('edi_profiles').select('companion_guide').where('group_id', '=', record.group_id).executeTakeFirst();
    const guide = profile ? (JSON.parse(profile.companion_guide) as { line_of_coverage_codes?: Record<string, string> }) : {};
    const { problems } = await checkX12(record, file.content, { companionGuideLineCodes: Object.values(guide.line_of_coverage_codes ?? {}) });
    for (const problem of problems) violations.push({ day, invariant: 'x12_valid', detail: `file ${file.id}: ${problem}` });
  }
  return violations;
}
