import { describe, expect, it } from 'vitest';
import { jobHandlers } from './handlers.ts';
import type { JobHandler } from './job-worker.ts';

const noop: JobHandler = async () => undefined;
const other: JobHandler = async () => undefined;

describe('jobHandlers', () => {
  it('when no module contributes, then there are no handlers', () => {
    expect(jobHandlers([])).toEqual({});
  });

  it('when modules contribute different kinds, then all are merged', () => {
    const handlers = jobHandlers([{ 'carrier.send_benefit_change': noop }, { 'webhook.deliver': other }]);
    expect(handlers).toEqual({ 'carrier.send_benefit_change': noop, 'webhook.deliver': other });
  });

  it('when two modules register one kind, then it is refused at startup', () => {
    expect(() => jobHandlers([{ 'webhook.deliver': noop }, { 'webhook.deliver': other }])).toThrow(/Two handlers .*"webhook.deliver"/);
  });
});
