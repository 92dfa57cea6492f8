/**
 * The tests' X12 assertions: every 834 a test builds goes through `expectGuideConformant`, which fails the test
 * with every problem the third-party check (`x12-check.ts`: x12-parser and 005010X220A1's rules) finds.
 * Used by every test file that builds EDI files.
 */
import { expect } from 'vitest';
import type { FormattedSegment } from 'x12-parser';
import { checkX12, parsed, type EdiFileRecord as CheckedRecord, type X12CheckOptions } from './x12-check.ts';

export { parsed };

export function one(segments: readonly FormattedSegment[], name: string): FormattedSegment {
  const found = segments.filter((segment) => segment.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

/** A file as GET /edi_files/{id} answers it (what the check reads, and what tests read besides). */
export interface EdiFileRecord extends CheckedRecord {
  benefit_changes: string[];
  left_out: unknown[];
}

/**
 * Checks one built file against 005010X220A1 and against its record (`checkX12` says what is checked) and
 * fails the test with every problem found. Returns the segments as x12-parser reads them.
 */
export async function expectGuideConformant(record: EdiFileRecord, content: string, options: X12CheckOptions = {}): Promise<FormattedSegment[]> {
  const { segments, problems } = await checkX12(record, content, options);
  expect(problems, `005010X220A1 problems of ${record.id}`).toEqual([]);
  return segments;
}
