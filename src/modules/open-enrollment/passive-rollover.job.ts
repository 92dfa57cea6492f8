import { PermanentJobError } from '../../jobs/job-queue.ts';
import type { JobHandler } from '../../jobs/job-worker.ts';
import { PASSIVE_ROLLOVER_JOB } from './passive-carry-over.ts';

/** The job handlers of open enrollment, by job kind, for the worker's registry. */
export function openEnrollmentJobHandlers(windows: { rollOverPassively(windowId: string): Promise<number> }): Record<string, JobHandler> {
  return {
    [PASSIVE_ROLLOVER_JOB]: async (payload) => {
      const windowId = payload.open_enrollment_window;
      if (typeof windowId !== 'string') throw new PermanentJobError('The payload names no open_enrollment_window.');
      await windows.rollOverPassively(windowId);
    },
  };
}
