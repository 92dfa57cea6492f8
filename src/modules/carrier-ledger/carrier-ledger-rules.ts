/**
 * The carrier ledger's pure rules (docs/architecture.md "The carrier ledger"): what a carrier group believes
 * from what it was told, and which told coverage a new coverage is measured against. Table-driven tests in
 * carrier-ledger-rules.test.ts.
 */
import { addDays, compareDates } from '../../shared/dates.ts';
import type { CoverageItem } from '../benefit-changes/benefit-change-diff.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/** One thing a carrier group was (or will be) told about one member's line: the coverage and the span told. */
export interface LedgerEntry {
  groupId: string;
  lineOfCoverage: LineOfCoverage;
  /** First day told (null: the enrolled plan has no dates, always). */
  start: string | null;
  /** Last day told; null is open-ended (an add or a change: a plan year's end is never told as a termination). */
  end: string | null;
  item: CoverageItem;
}

/** Told to end before it starts: a cancellation (coverage that never started), covering no day. */
export function isCancelled(entry: Pick<LedgerEntry, 'start' | 'end'>): boolean {
  return entry.start !== null && entry.end !== null && compareDates(entry.end, entry.start) < 0;
}

function startsBy(entry: Pick<LedgerEntry, 'start'>, day: string): boolean {
  return entry.start === null || compareDates(entry.start, day) <= 0;
}

function runsThrough(entry: Pick<LedgerEntry, 'end'>, day: string): boolean {
  return entry.end === null || compareDates(entry.end, day) >= 0;
}

/**
 * What the carrier believes about one line on `day`, from what it was told (`told`: one group's entries for
 * one member and line, in the order they reached it): the latest entry that starts by `day` speaks for it
 * (each tell describes the coverage from its start on), and covers `day` unless it ended before.
 */
export function believedOn(told: readonly LedgerEntry[], day: string): LedgerEntry | undefined {
  let speaking: LedgerEntry | undefined;
  for (const entry of told) if (startsBy(entry, day)) speaking = entry;
  if (speaking === undefined || isCancelled(speaking) || !runsThrough(speaking, day)) return undefined;
  return speaking;
}

/** A member's ledger entries per carrier group and line (`groupId|lineOfCoverage`), each list in order. */
export type LedgerByKey = ReadonlyMap<string, readonly LedgerEntry[]>;

export function ledgerKey(groupId: string, lineOfCoverage: LineOfCoverage): string {
  return `${groupId}|${lineOfCoverage}`;
}

/**
 * The told coverage that a coverage starting on `start` is measured against, at most one per group and line (docs/decisions.md
 * "Benefit changes and carriers"), from `expected`: per group and line, the carrier's picture once every
 * recorded change reaches it (the entries it was or will be told, in order, none it refused):
 *
 * - what the carrier holds on `start` (believedOn). An add or a change is open-ended, so coverage carried
 *   across a plan year's renewal is still held by its carrier on the new year's first day, and must be ended
 *   if the member leaves that carrier or waives the line.
 * - else, the same group's later coverage on that line that the new coverage reaches (runs up to its start
 *   at least): the new coverage starts earlier, a retroactive change.
 *
 * Cancelled entries and coverage told to end before `start` are nothing to measure against.
 */
export function toldCoverageAt(expected: LedgerByKey, start: string, next: readonly CoverageItem[]): LedgerEntry[] {
  return [...expected.values()].flatMap((entries) => believedOn(entries, start) ?? laterCoverageReached(entries, start, next) ?? []);
}

/** The first coverage of `entries` starting after `start` that holds on its own start and that a `next` item of its group reaches. */
function laterCoverageReached(entries: readonly LedgerEntry[], start: string, next: readonly CoverageItem[]): LedgerEntry | undefined {
  const later = entries
    .filter((entry) => entry.start !== null && compareDates(entry.start, start) > 0 && believedOn(entries, entry.start) === entry)
    .sort((a, b) => compareDates(a.start!, b.start!));
  return later.find((entry) =>
    next.some(
      (item) =>
        item.lineOfCoverage === entry.lineOfCoverage &&
        item.groupId === entry.groupId &&
        (item.effectiveEnd === null || compareDates(item.effectiveEnd, addDays(entry.start!, -1)) >= 0),
    ),
  );
}

/** Whether the carrier holds any coverage of the line on a day after `day` (on it, or from a later start). */
export function holdsAfter(entries: readonly LedgerEntry[], day: string): boolean {
  const dayAfter = addDays(day, 1);
  if (believedOn(entries, dayAfter) !== undefined) return true;
  return entries.some((entry) => entry.start !== null && compareDates(entry.start, dayAfter) > 0 && believedOn(entries, entry.start) !== undefined);
}
