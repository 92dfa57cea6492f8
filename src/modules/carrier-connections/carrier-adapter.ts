import type { BenefitChangeStatus, ChangeKind } from '../benefit-changes/benefit-change.table.ts';

/**
 * One benefit change as a carrier adapter sees it: ids, codes and the coverage dates, never personal data (an
 * adapter that needs more loads it itself, under its own controls).
 */
export interface CarrierChange {
  benefitChange: string;
  enrollment: string;
  member: string;
  lineOfCoverage: string;
  status: BenefitChangeStatus;
  changes: ChangeKind[];
  /** The new coverage's first and last day; for `removed`, those of the coverage that ends (YYYY-MM-DD). */
  coverageStart: string | null;
  coverageEnd: string | null;
  carrier: string;
  groupNumber: string;
  groupMetadata: Record<string, string>;
}

export type CarrierOutcome = { accepted: true; reference: string } | { accepted: false; reason: string };

/**
 * How changes of `api` groups reach a carrier (docs/decisions.md "Benefit changes and carriers"). `accepted: false`
 * is the carrier's final refusal (the enrollment fails); throwing is a transient failure, retried with backoff.
 */
export interface CarrierAdapter {
  send(change: CarrierChange): Promise<CarrierOutcome>;
}
