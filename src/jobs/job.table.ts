import type { Selectable } from 'kysely';

export const JOB_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobTable {
  id: string;
  /** Which handler runs it, e.g. 'carrier.send_benefit_change'. */
  kind: string;
  /** JSON text: ids the handler needs, never personal data. */
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  /** Not before this instant. */
  run_at: string;
  /** The worker running it, while state is 'running'. */
  locked_by: string | null;
  /** A running job whose worker died is taken over after this instant. */
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export type JobRow = Selectable<JobTable>;
