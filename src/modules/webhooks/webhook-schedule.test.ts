import { describe, expect, it } from 'vitest';
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelayMs } from './webhook-schedule.ts';

describe('webhook retry schedule', () => {
  it('when every retry is taken at its shortest, then there are at least 10 attempts over more than 24 hours', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBeGreaterThanOrEqual(10);
    const shortest = WEBHOOK_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay * 0.9, 0);
    expect(shortest).toBeGreaterThan(24 * 60 * 60 * 1000);
  });

  it.each([
    [1, 10_000],
    [2, 60_000],
    [3, 300_000],
    [4, 1_800_000],
    [11, 43_200_000],
  ])('when attempt %i fails, then the next waits %i ms give or take 10%', (attempt, base) => {
    expect(webhookRetryDelayMs(attempt, () => 0)).toBe(Math.round(base * 0.9));
    expect(webhookRetryDelayMs(attempt, () => 0.5)).toBe(base);
    expect(webhookRetryDelayMs(attempt, () => 1)).toBe(Math.round(base * 1.1));
  });

  it('when the last attempt fails, then there is no next one', () => {
    expect(webhookRetryDelayMs(WEBHOOK_MAX_ATTEMPTS)).toBeUndefined();
  });

  it('when the attempt is not a positive whole number, then it is a programming error', () => {
    expect(() => webhookRetryDelayMs(0)).toThrow(RangeError);
    expect(() => webhookRetryDelayMs(1.5)).toThrow(RangeError);
  });
});
