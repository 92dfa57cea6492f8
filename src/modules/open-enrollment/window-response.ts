/** An open enrollment window as the API answers it, and the dates its member rules need. */
import type { Executor } from '../../db/database.ts';
import { parseMetadata } from '../../shared/metadata.ts';
import * as repository from './open-enrollment-window.repository.ts';
import type { WindowResponse, WindowSummary } from './open-enrollment-window.schemas.ts';
import type { OpenEnrollmentWindowRow } from './open-enrollment-window.table.ts';

export function toWindowResponse(
  row: OpenEnrollmentWindowRow,
  planIds: string[],
  counts: { completed: number; incomplete: number },
  summaries: WindowSummary[] = [],
): WindowResponse {
  return {
    id: row.id,
    employer: row.employer_id,
    start_date: row.start_date,
    end_date: row.end_date,
    renewal_date: row.renewal_date,
    status: row.status,
    completed_at: row.completed_at,
    completed_member_count: counts.completed,
    incomplete_member_count: counts.incomplete,
    summaries,
    plans: planIds,
    enrollment_type: row.enrollment_type,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

/** A window with its three dates, which every member rule needs. */
export function datedWindow(row: OpenEnrollmentWindowRow): repository.DatedWindow | undefined {
  if (row.end_date === null || row.renewal_date === null || row.start_date === null) return undefined;
  return { id: row.id, provider_id: row.provider_id, employer_id: row.employer_id, end_date: row.end_date, renewal_date: row.renewal_date };
}

/** The window as answered: counts frozen once completed, live before (none while setup_required). */
export async function windowResponse(db: Executor, row: OpenEnrollmentWindowRow, planIds: string[], summaries: WindowSummary[] = []): Promise<WindowResponse> {
  if (row.status === 'completed') {
    return toWindowResponse(row, planIds, { completed: row.completed_member_count ?? 0, incomplete: row.incomplete_member_count ?? 0 }, summaries);
  }
  const dated = row.status === 'setup_required' ? undefined : datedWindow(row);
  const counts = dated ? await repository.countMembers(db, dated) : { eligible: 0, completed: 0 };
  return toWindowResponse(row, planIds, { completed: counts.completed, incomplete: counts.eligible - counts.completed }, summaries);
}
