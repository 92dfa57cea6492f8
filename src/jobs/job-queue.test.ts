import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_ERROR_LENGTH, PermanentJobError, jobErrorMessage, retryDelayMs } from './job-queue.ts';

const SECOND = 1000;

describe('retryDelayMs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // The ceiling: 5 s doubling per failed attempt, capped at an hour.
  it.each([
    [1, 5 * SECOND],
    [2, 10 * SECOND],
    [3, 20 * SECOND],
    [4, 40 * SECOND],
    [8, 640 * SECOND],
    [10, 2560 * SECOND],
    [11, 3600 * SECOND],
    [12, 3600 * SECOND],
    [50, 3600 * SECOND],
    [10_000, 3600 * SECOND],
  ])('when attempt %i failed, then the delay lies between half of %i ms and all of it', (attempt, ceiling) => {
    const random = vi.spyOn(Math, 'random');

    random.mockReturnValue(0);
    expect(retryDelayMs(attempt)).toBe(ceiling / 2);
    random.mockReturnValue(0.999_999_999);
    expect(retryDelayMs(attempt)).toBe(ceiling);
    random.mockReturnValue(0.5);
    expect(retryDelayMs(attempt)).toBe(ceiling * 0.75);
  });

  it('when many delays are drawn, then they stay in bounds and spread over the range (jitter)', () => {
    const delays = Array.from({ length: 2000 }, () => retryDelayMs(3));
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(10 * SECOND);
      expect(delay).toBeLessThanOrEqual(20 * SECOND);
      expect(Number.isInteger(delay)).toBe(true);
    }
    expect(Math.min(...delays)).toBeLessThan(11 * SECOND);
    expect(Math.max(...delays)).toBeGreaterThan(19 * SECOND);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('when the attempt is %s, then it is refused', (attempt) => {
    expect(() => retryDelayMs(attempt)).toThrow(RangeError);
  });
});

describe('jobErrorMessage', () => {
  it('when an error is thrown, then only its message is kept (no stack, no properties)', () => {
    const error = Object.assign(new Error('carrier said 503'), { payload: { ssn: '123-45-6789' } });
    expect(jobErrorMessage(error)).toBe('carrier said 503');
  });

  it('when an error has no message, then its name stands in', () => {
    expect(jobErrorMessage(new PermanentJobError())).toBe('PermanentJobError');
  });

  it('when a string is thrown, then it is the message; when an object is, then none of it is kept', () => {
    expect(jobErrorMessage('timed out')).toBe('timed out');
    expect(jobErrorMessage({ ssn: '123-45-6789' })).toBe('a non-error value was thrown (object)');
  });

  it('when the message is longer than the limit, then it is cut to the limit, ending in an ellipsis', () => {
    const message = jobErrorMessage(new Error('x'.repeat(5000)));
    expect(message).toHaveLength(MAX_ERROR_LENGTH);
    expect(message.endsWith('x…')).toBe(true);
    expect(jobErrorMessage(new Error('y'.repeat(MAX_ERROR_LENGTH)))).toBe('y'.repeat(MAX_ERROR_LENGTH));
  });

  it('when the cut would fall inside a surrogate pair, then the whole pair is dropped', () => {
    const message = jobErrorMessage(new Error(`${'x'.repeat(MAX_ERROR_LENGTH - 2)}😀😀`));
    expect(message.isWellFormed()).toBe(true);
    expect(message).toBe(`${'x'.repeat(MAX_ERROR_LENGTH - 2)}…`);
  });
});

describe('PermanentJobError', () => {
  it('when made, then it is an Error named for what it is', () => {
    const error = new PermanentJobError('carrier rejected the member');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PermanentJobError');
    expect(error.message).toBe('carrier rejected the member');
  });
});
