import type { JobHandler } from './job-worker.ts';

/**
 * The handlers the server's worker runs, by job kind: each module that enqueues jobs contributes its own
 * (e.g. `{ 'carrier.send_benefit_change': ... }` from benefit-changes). Two handlers for one kind is a wiring
 * mistake, caught at startup.
 */
export function jobHandlers(entries: Record<string, JobHandler>[]): Record<string, JobHandler> {
  const handlers: Record<string, JobHandler> = {};
  for (const entry of entries) {
    for (const [kind, handler] of Object.entries(entry)) {
      if (Object.hasOwn(handlers, kind)) throw new Error(`Two handlers are registered for job kind "${kind}".`);
      handlers[kind] = handler;
    }
  }
  return handlers;
}
