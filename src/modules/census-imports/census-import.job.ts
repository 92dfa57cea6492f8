import { PermanentJobError } from '../../jobs/job-queue.ts';
import type { JobHandler } from '../../jobs/job-worker.ts';
import type { CensusCheck } from './census-check.ts';
import { CENSUS_CHECK_JOB } from './census-import.service.ts';

/** The check of a census import, by job kind, for the worker's registry; safe to repeat (a checked import is left as it is). */
export function censusImportJobHandlers(check: CensusCheck): Record<string, JobHandler> {
  return {
    [CENSUS_CHECK_JOB]: async (payload) => {
      const id = payload.census_import;
      if (typeof id !== 'string') throw new PermanentJobError('The payload names no census_import.');
      await check.check(id);
    },
  };
}
