/**
 * Telling a carrier again what is true of one member's line (docs/decisions.md "Carrier files", Resolving
 * discrepancies): the benefit change a resend records, from what the carrier ledger says the group was told
 * and our coverage. Unlike an approval's diff it is never `no_change`: a resend is sent even when the ledger
 * says the carrier knows already, since the carrier's own file says it does not. Pure; table-driven tests in
 * retell-rules.test.ts.
 */
import { addDays } from '../../shared/dates.ts';
import { changeKinds, type CoverageItem, type LineChange } from '../benefit-changes/benefit-change-diff.ts';
import { CHANGE_KINDS, type ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import { believedOn, type LedgerEntry } from '../carrier-ledger/carrier-ledger-rules.ts';

/** add: our coverage as new; correct: our coverage as a change of what was told; end: what was told, ended. */
export type RetellKind = 'add' | 'correct' | 'end';

export interface Retelling {
  kind: RetellKind;
  /** One group's ledger entries for the member and line, in order (none it refused). */
  told: readonly LedgerEntry[];
  /** Our coverage of the line in the group on `day` (add, correct). */
  ours: CoverageItem | undefined;
  /** The day the carrier's file describes. */
  day: string;
  /** The last day we hold of the enrolled plan told last (end), if it has one. */
  ourEnd: string | null;
  /** What the carrier's file got wrong (correct): said in the change even where the ledger has no difference. */
  differs: readonly ChangeKind[];
}

/** The change a resend records, or undefined when there is nothing of ours to tell (no coverage; for end, nothing told). */
export function retoldChange(input: Retelling): LineChange | undefined {
  const { kind, told, ours, day } = input;
  if (kind === 'end') {
    const last = told.at(-1);
    if (last === undefined) return undefined;
    // A removal told is told again with its last day; open-ended coverage ends where ours ended, else the day before the file's.
    const lastDay = last.end ?? input.ourEnd ?? addDays(day, -1);
    return {
      lineOfCoverage: last.lineOfCoverage,
      status: 'removed',
      changes: [],
      previous: { ...last.item, effectiveEnd: lastDay },
      next: null,
      coverageStart: last.start ?? last.item.effectiveStart,
      coverageEnd: lastDay,
    };
  }
  if (ours === undefined) return undefined;
  const held = kind === 'correct' ? believedOn(told, day) : undefined;
  if (held === undefined) {
    return { lineOfCoverage: ours.lineOfCoverage, status: 'new', changes: [], previous: null, next: ours, coverageStart: ours.effectiveStart, coverageEnd: ours.effectiveEnd };
  }
  const differs = new Set([...changeKinds(held.item, ours), ...input.differs]);
  return {
    lineOfCoverage: ours.lineOfCoverage,
    status: 'change',
    changes: CHANGE_KINDS.filter((change) => differs.has(change)),
    previous: held.item,
    next: ours,
    coverageStart: ours.effectiveStart,
    coverageEnd: ours.effectiveEnd,
  };
}
